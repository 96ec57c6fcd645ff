#!/usr/bin/env bash
# The .deb, as a user of a fresh Debian 12 gets it: cpack -G DEB in the (Debian LibTorch) build folder,
# its Depends checked to be Debian's package names (dpkg-shlibdeps computed them), then installed with apt
# into a throwaway Debian 12 root made by debootstrap, where apt fetches those Depends from the archive:
# attnwb --version, attnwb inspect of a fixture, and the GUI under Xvfb opening a trace given on its
# command line; then removed. Needs root (debootstrap, chroot) and the Debian archive; exits 77 (skipped)
# without them. Debian's .debs are kept in ~/.cache/attention-workbench/deb-test (AWB_DEB_CACHE).
# Usage: test_deb.sh BUILD_DIR SOURCE_DIR
set -u
build=${1:?usage: $0 BUILD_DIR SOURCE_DIR}
src=${2:?usage: $0 BUILD_DIR SOURCE_DIR}
build=$(cd "$build" && pwd)
mirror=${AWB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${AWB_DEB_CACHE:-$HOME/.cache/attention-workbench/deb-test}
if [ "$(id -u)" -ne 0 ] || ! command -v debootstrap >/dev/null || ! command -v unshare >/dev/null; then
    echo "skipped: needs root, debootstrap and unshare (scripts/setup.sh installs debootstrap)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [ -f "$tmp/out" ] && sed 's/^/  | /' "$tmp/out" | tail -30; failed=$((failed + 1)); }

t0=$SECONDS
if (cd "$build" && cpack -G DEB -B "$tmp/pkg") >"$tmp/out" 2>&1; then ok "cpack -G DEB"; else fail "cpack -G DEB"; exit 1; fi
deb=$(ls "$tmp"/pkg/attention-workbench_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { fail "no attention-workbench_*.deb in cpack's output"; exit 1; }
echo "     $(basename "$deb"): $(du -h "$deb" | cut -f1), made in $((SECONDS - t0)) s"
depends=$(dpkg-deb -f "$deb" Depends)
echo "     Depends: $depends"
# Debian's names, from dpkg-shlibdeps (the library packages, with versions), not written by hand.
names=" $(sed -E 's/ \([^)]*\)//g; s/,//g' <<<"$depends") "
missing=""
for p in libtorch1.13 libqt6widgets6 libqcustomplot2.1-qt6 libsimdjson14 zlib1g libc6 libstdc++6; do
    [[ "$names" == *" $p "* ]] || missing+="$p "
done
[ -z "$missing" ] && ok "Depends names Debian's packages (LibTorch, Qt 6, QCustomPlot, simdjson, zlib, libc, libstdc++)" ||
    { echo "$depends" >"$tmp/out"; fail "Depends lacks: $missing"; }
dpkg-deb -c "$deb" >"$tmp/contents"
missing=""
for f in ./usr/bin/attnwb ./usr/bin/attention-workbench ./usr/libexec/attention-workbench/attnwb-engine \
         ./usr/share/applications/attention-workbench.desktop ./usr/share/mime/packages/attention-workbench.xml \
         ./usr/share/man/man1/attnwb.1.gz ./usr/share/man/man1/attention-workbench.1.gz ./usr/share/icons/hicolor/scalable/apps/attention-workbench.svg; do
    grep -qF " $f" "$tmp/contents" || missing+="$f "
done
grep -qE ' \./usr/share/metainfo/[^ ]+\.metainfo\.xml$' "$tmp/contents" || missing+="metainfo "
[ -z "$missing" ] && ok "the package holds the programs, desktop entry, file types, AppStream metadata, man pages, icon" ||
    { cp "$tmp/contents" "$tmp/out"; fail "the package lacks: $missing"; }

# A minimal Debian 12 root; apt in it installs the .deb and fetches its Depends.
root=$tmp/root
mkdir -p "$cache/debootstrap" "$cache/apt"
t0=$SECONDS
if debootstrap --variant=minbase --cache-dir="$cache/debootstrap" bookworm "$root" "$mirror" >"$tmp/out" 2>&1; then
    ok "debootstrap bookworm ($((SECONDS - t0)) s)"
else
    fail "debootstrap bookworm from $mirror"; exit 1
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
cp "$src/tests/fixtures/traces/kineto_gpu_2x.json" "$root/tmp/"
# Each command runs in its own mount namespace, so /proc, /dev and apt's cache leave with it.
in_root() {
    unshare --mount --propagation private bash -c '
        root=$1 cache=$2; shift 2
        mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
        mount --bind "$cache" "$root/var/cache/apt/archives" && exec chroot "$root" "$@"' bash "$root" "$cache/apt" "$@"
}
check() {  # check NAME PATTERN -- COMMAND...: exit 0 and PATTERN in its output
    local name=$1 pattern=$2
    shift 3
    if in_root "$@" >"$tmp/out" 2>&1 && grep -qE -- "$pattern" "$tmp/out"; then ok "$name"; else fail "$name"; fi
}
t0=$SECONDS
check "apt installs the .deb and its Depends from Debian's archive" 'Setting up attention-workbench' -- \
    env DEBIAN_FRONTEND=noninteractive bash -c "apt-get update -q && apt-get install -y -q --no-install-recommends /tmp/$(basename "$deb") xvfb xauth"
echo "     apt: $((SECONDS - t0)) s"
check "attnwb --version, its engine and Debian's LibTorch 1.13 found" '^LibTorch: built with 1\.13.*loaded 1\.13.* \(/usr/lib/' -- attnwb --version
check "attnwb inspects a trace" 'Self CUDA time total' -- attnwb inspect /tmp/kineto_gpu_2x.json
check "attnwb profiles a run (the engine runs)" 'Self CPU time total' -- attnwb profile --batch 1 --heads 2 --seq 32 --head-dim 16 --threads 1 --quiet
check "the GUI under Xvfb opens a trace given on its command line" '^window: Attention Workbench - .*kineto_gpu_2x' -- \
    env AWB_QUIT_AFTER_MS=5000 xvfb-run -a attention-workbench /tmp/kineto_gpu_2x.json
check "the file types are registered (dpkg's trigger ran update-mime-database)" 'application/x-pytorch-trace' -- \
    grep -h 'x-pytorch-trace' /usr/share/mime/types
check "apt removes it" 'Removing attention-workbench' -- env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q attention-workbench
[ ! -e "$root/usr/bin/attnwb" ] && [ ! -e "$root/usr/libexec/attention-workbench" ] && ok "nothing of it left in /usr" || fail "files left after removal"
echo "deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
