"""The build dependencies the GPU machine lacks, carried in a git-ignored folder (issue 13), and a
prebuilt attnwb as the fallback should the build there fail.

The lent H200 has python3 with torch, nvcc, CMake, ninja and a compiler, but no Debian -dev packages
and no network. `scripts/gpu-check.sh --prepare` (here, where apt works) downloads Debian 12's
packages below and unpacks them into .gpu-deps/root; the device call carries .gpu-deps. zlib and
GoogleTest come as static libraries; simdjson as its shared library, which the build's RPATH finds.
When build-gpu/ holds a build (scripts/gpu_check/rehearse.sh makes one against the same torch 2.11.0
wheel), --prepare also keeps its attnwb, stripped (~2 MiB), in .gpu-deps/prebuilt: if the build on the
GPU machine fails, steps (b)-(e) still run with it (and say so); the core tests need the build.
"""
import os
import shutil
import subprocess
import tempfile
import time

PACKAGES = ["nlohmann-json3-dev", "libcli11-dev", "libsimdjson-dev", "libsimdjson14", "zlib1g-dev",
            "libgtest-dev", "libgmock-dev"]
ARCH_LIB = "usr/lib/x86_64-linux-gnu"


def deps_root(repo):
    return os.path.join(repo, ".gpu-deps", "root")


def cmake_args(repo):
    """Each package found by its exact folder, so that a system copy can never stand in for it."""
    r = deps_root(repo)
    return [f"-Dnlohmann_json_DIR={r}/usr/share/cmake/nlohmann_json",
            f"-DCLI11_DIR={r}/usr/share/cmake/CLI11",
            f"-Dsimdjson_DIR={r}/{ARCH_LIB}/cmake/simdjson",
            f"-DGTest_DIR={r}/{ARCH_LIB}/cmake/GTest",
            f"-DZLIB_INCLUDE_DIR={r}/usr/include",
            f"-DZLIB_LIBRARY={r}/{ARCH_LIB}/libz.a"]


def missing(repo):
    """Files the configure needs that the carried folder lacks (empty when it is complete)."""
    r = deps_root(repo)
    need = ["usr/include/nlohmann/json.hpp", "usr/include/CLI/CLI.hpp", "usr/include/simdjson.h", "usr/include/zlib.h",
            "usr/include/gtest/gtest.h", f"{ARCH_LIB}/libz.a", f"{ARCH_LIB}/libgtest.a", f"{ARCH_LIB}/libgmock.a",
            f"{ARCH_LIB}/libsimdjson.so.14", "usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake",
            "usr/share/cmake/CLI11/CLI11Config.cmake", f"{ARCH_LIB}/cmake/simdjson/simdjson-config.cmake",
            f"{ARCH_LIB}/cmake/GTest/GTestConfig.cmake"]
    return [p for p in need if not os.path.exists(os.path.join(r, p))]


def folder_bytes(path):
    total = 0
    for base, _, files in os.walk(path):
        for f in files:
            p = os.path.join(base, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def prepare(repo):
    """Downloads and unpacks the packages (idempotent: a complete folder of the same list is kept)."""
    top = os.path.join(repo, ".gpu-deps")
    manifest = os.path.join(top, "PACKAGES")
    if not missing(repo) and os.path.exists(manifest) and open(manifest).read().split() == PACKAGES:
        print(f"{top}: packages complete")
        return keep_prebuilt(repo)
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(deps_root(repo))
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # apt's _apt user writes here when it can
        r = subprocess.run(["apt-get", "download"] + PACKAGES, cwd=tmp, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"apt-get download failed (rc {r.returncode}):\n{r.stderr}")
            return 1
        for deb in sorted(os.listdir(tmp)):
            subprocess.run(["dpkg-deb", "-x", os.path.join(tmp, deb), deps_root(repo)], check=True)
            print(f"unpacked {deb}")
    shutil.rmtree(os.path.join(deps_root(repo), "usr/share/doc"), ignore_errors=True)
    # Debian's libz.so points at /lib/.../libz.so.1.2.13, which the GPU machine need not have: the
    # static libz.a is what the build links (ZLIB_LIBRARY).
    so = os.path.join(deps_root(repo), ARCH_LIB, "libz.so")
    if os.path.islink(so):
        os.remove(so)
    with open(manifest, "w") as f:
        f.write("\n".join(PACKAGES) + "\n")
    gone = missing(repo)
    if gone:
        print(f"incomplete after unpacking: {gone}")
        return 1
    return keep_prebuilt(repo)


def prebuilt_dir(repo):
    return os.path.join(repo, ".gpu-deps", "prebuilt")


def keep_prebuilt(repo):
    top = os.path.join(repo, ".gpu-deps")
    built = os.path.join(repo, "build-gpu", "app", "attnwb")
    if os.path.exists(built):
        os.makedirs(prebuilt_dir(repo), exist_ok=True)
        subprocess.run(["strip", "-o", os.path.join(prebuilt_dir(repo), "attnwb"), built], check=True)
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(built)))
        commit = subprocess.run(["git", "-C", repo, "log", "-1", "--format=%h"], capture_output=True, text=True).stdout.strip()
        with open(os.path.join(prebuilt_dir(repo), "BUILT"), "w") as f:
            f.write(f"build-gpu/app/attnwb linked {when}; the tree was at {commit} when it was kept\n")
        print(f"prebuilt fallback: build-gpu's attnwb, linked {when}")
    else:
        print("no build-gpu/app/attnwb: no prebuilt fallback (scripts/gpu_check/rehearse.sh --steps env,configure,build "
              "makes one; then --prepare again)")
    print(f"{top}: {folder_bytes(top) / 2**20:.1f} MiB, carry it: run(carry=['.gpu-deps'])")
    return 0
