#!/usr/bin/env bash
# The install, as a user or an admin makes it: `cmake --install BUILD --prefix P` into a throwaway
# prefix, then the installed programs run from another folder with no build tree on their path: attnwb
# --version (the engine found in libexec by attnwb's own location), a trace inspected, a run profiled
# (the engine runs), attention-workbench --version and a trace opened offscreen, the desktop entry
# valid, the icons and man pages in place, no RPATH into the build folder.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -u
build=${1:?usage: $0 BUILD_DIR SOURCE_DIR}
src=${2:?usage: $0 BUILD_DIR SOURCE_DIR}
build=$(cd "$build" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -30; failed=$((failed + 1)); }
run() {  # run NAME PATTERN -- COMMAND...: exit 0 and PATTERN in the output
    local name=$1 pattern=$2
    shift 3
    if (cd "$tmp/elsewhere" && "$@") >"$tmp/out" 2>"$tmp/err" && grep -qE -- "$pattern" "$tmp/out" "$tmp/err"; then ok "$name"; else fail "$name"; fi
}

if cmake --install "$build" --prefix "$prefix" >"$tmp/out" 2>"$tmp/err"; then ok "cmake --install into a prefix"; else fail "cmake --install"; exit 1; fi
mkdir -p "$tmp/elsewhere"
bin=$prefix/bin
[ -x "$bin/attnwb" ] && [ ! -e "$bin/attnwb-engine" ] && [ -x "$prefix/libexec/attention-workbench/attnwb-engine" ] &&
    ok "attnwb in bin, its engine in libexec/attention-workbench (not a user command)" || fail "layout: $(cd "$prefix" && find . -type f | head -20 | tr '\n' ' ')"
run "installed attnwb --version names the LibTorch it loaded" '^LibTorch: built with .*; loaded .*libtorch_cpu' -- env -i PATH=/usr/bin:/bin "$bin/attnwb" --version
# The version in one place: the CMakeLists.txt project version.
version=$(sed -nE 's/^project\(AttentionWorkbench VERSION ([0-9.]+).*/\1/p' "$src/CMakeLists.txt")
run "the version is CMakeLists.txt's ($version)" "attnwb $version " -- "$bin/attnwb" --version
run "installed attnwb inspects a trace" 'Self CPU time total|operators' -- "$bin/attnwb" inspect "$src/tests/fixtures/traces/kineto_gpu_2x.json" --quiet
run "installed attnwb profiles a run (the engine from libexec)" 'Self CPU time total' -- "$bin/attnwb" profile --batch 1 --heads 2 --seq 32 --head-dim 16 --threads 1 --quiet
# No path into the build folder: not in the RPATH of any installed program (the ELF files; the 2.x build's
# launchers are scripts).
elves() { find "$1" -type f -perm -u+x -exec sh -c 'head -c4 "$1" | grep -q ELF' sh {} \; -print; }
if ! for f in $(elves "$prefix"); do readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -F "$build"; done | grep -q .; then
    ok "no RPATH into the build folder ($(elves "$prefix" | wc -l) programs)"
else
    fail "an installed program's RPATH names the build folder"
fi
if [ -x "$bin/attention-workbench" ]; then
    run "installed attention-workbench --version says Qt too" '^Qt: built with [0-9.]+, running [0-9.]+$' -- "$bin/attention-workbench" --version
    desktop=$prefix/share/applications/attention-workbench.desktop
    if [ -f "$desktop" ] && desktop-file-validate "$desktop" >"$tmp/out" 2>"$tmp/err"; then ok "the desktop entry passes desktop-file-validate"; else fail "desktop entry"; fi
    # A trace named as Kineto's gzipped ones are (the file types and the hand-off below open it).
    cp "$src/tests/fixtures/traces/kineto_gpu_2x.json.gz" "$tmp/rank0.pt.trace.json.gz"
    icons=0
    for n in 16 32 48 64 128 256; do [ -s "$prefix/share/icons/hicolor/${n}x${n}/apps/attention-workbench.png" ] && icons=$((icons + 1)); done
    [ "$icons" -eq 6 ] && [ -s "$prefix/share/icons/hicolor/scalable/apps/attention-workbench.svg" ] && ok "icons in the hicolor theme (SVG and 6 PNG sizes)" || fail "icons: $icons of 6 PNG sizes"
    # The file types, as the desktop sees them (shared-mime-info's database of the prefix, read by GIO):
    # traces by their first bytes or names, our results and workspaces by their schema line.
    if command -v update-mime-database >/dev/null && command -v gio >/dev/null; then
        update-mime-database "$prefix/share/mime" >/dev/null 2>&1
        "$bin/attnwb" profile --batch 1 --heads 2 --seq 32 --head-dim 16 --threads 1 --quiet --json "$tmp/r.json" --trace "$tmp/t.json" >/dev/null 2>&1
        types=""
        for f in "$src/tests/fixtures/traces/kineto_gpu_2x.json" "$tmp/t.json" "$tmp/rank0.pt.trace.json.gz" "$tmp/r.json"; do
            types+="$(XDG_DATA_DIRS="$prefix/share:/usr/share" gio info -a standard::content-type "$f" | sed -n 's/.*content-type: //p') "
        done
        want="application/x-pytorch-trace application/x-pytorch-trace application/x-pytorch-trace-gzip application/x-attention-workbench-results "
        [ "$types" = "$want" ] && ok "file types: Kineto and our traces, a .pt.trace.json.gz, a profile report" || fail "file types: got '$types'"
    fi
    # AppStream: as installed, and rendered with the links a published repository gives (homepage, screenshots).
    metainfo=$(ls "$prefix"/share/metainfo/*.metainfo.xml 2>/dev/null | head -1)
    if command -v appstreamcli >/dev/null; then
        cmake -DAWB_METAINFO_IN="$src/resources/desktop/attention-workbench.metainfo.xml.in" -DAWB_METAINFO_OUT="$tmp/linked.metainfo.xml" \
              -DAWB_VERSION="$version" -DAWB_RELEASE_DATE=2026-01-01 -DAWB_APPSTREAM_ID=org.example.AttentionWorkbench \
              -DAWB_PROJECT_LICENSE=MIT -DAWB_PUBLIC_URL=https://example.org/attention-workbench -P "$src/resources/desktop/metainfo.cmake" >/dev/null
        if [ -n "$metainfo" ] && appstreamcli validate --no-net --strict "$metainfo" >"$tmp/out" 2>"$tmp/err" &&
           grep -q "<release version=\"$version\"" "$metainfo" && grep -c '<image>' "$tmp/linked.metainfo.xml" | grep -qx 3 &&
           appstreamcli validate --no-net --strict "$tmp/linked.metainfo.xml" >"$tmp/out" 2>"$tmp/err"; then
            ok "AppStream metadata passes appstreamcli validate --strict (as installed, and with screenshots)"
        else
            fail "AppStream metadata ${metainfo:-missing}"
        fi
    fi
    # A trace given on the command line opens (offscreen; the window closes itself after 3 s).
    run "installed attention-workbench opens a trace given on its command line" '^window: Attention Workbench - .*kineto_gpu_2x' -- env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp" AWB_QUIT_AFTER_MS=4000 "$bin/attention-workbench" "$src/tests/fixtures/traces/kineto_gpu_2x.json"
    # Files opened the desktop way gather in the running workbench: a second launch with a file hands it over
    # and exits, the first opens it; --new-window opens its own. (A runtime folder of the test's own.)
    mkdir -m 700 "$tmp/runtime"
    (cd / && exec env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp/runtime" AWB_QUIT_AFTER_MS=15000 "$bin/attention-workbench") >"$tmp/first" 2>&1 &
    first=$!
    for _ in $(seq 300); do [ -S "$tmp/runtime/attention-workbench.socket" ] && break; sleep 0.1; done
    run "a second launch hands its file to the running workbench and exits" '^attention-workbench: 1 file opened in the running workbench' -- \
        timeout 30 env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp/runtime" "$bin/attention-workbench" ../rank0.pt.trace.json.gz
    run "--new-window opens its own window while one runs" '^window: Attention Workbench - kineto_gpu_2x' -- \
        env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp/runtime" AWB_QUIT_AFTER_MS=3000 "$bin/attention-workbench" --new-window "$src/tests/fixtures/traces/kineto_gpu_2x.json"
    wait "$first"
    grep -q '^window: Attention Workbench - rank0.pt.trace.json.gz' "$tmp/first" && ok "the running workbench opened the handed file (its path made absolute)" ||
        { cp "$tmp/first" "$tmp/out"; : >"$tmp/err"; fail "the running workbench did not open the handed file"; }
fi
# The 2.x build: launchers start the programs that load LibTorch with the wheel's torch/lib, wherever torch
# is installed; the archive (cpack -G TGZ) runs from anywhere it is unpacked.
if [ -x "$prefix/libexec/attention-workbench/bin/attnwb-engine" ]; then
    python=$(sed -nE 's/^AWB_TORCH_PYTHON:[A-Z]+=(.+)$/\1/p' "$build/CMakeCache.txt")
    torch_lib=$("$python" -c 'import importlib.util as u; print(u.find_spec("torch").submodule_search_locations[0])')/lib
    ! readelf -d "$prefix/libexec/attention-workbench/bin/attnwb-engine" | grep -qF "$torch_lib" &&
        ok "the 2.x engine has no RPATH into the wheel (its launcher finds LibTorch)" || fail "the 2.x engine's RPATH names $torch_lib"
    run "the launcher takes AWB_PYTHON's torch" "loaded 2\.[0-9.]+.* \($torch_lib/libtorch_cpu\.so\)" -- env -i PATH=/usr/bin:/bin AWB_PYTHON="$python" "$bin/attnwb" --version
    mkdir -p "$tmp/fake/torch/lib" && touch "$tmp/fake/torch/__init__.py" "$tmp/fake/torch/lib/libtorch_cpu.so" &&
        echo "__version__ = '2.0.1+cpu'" >"$tmp/fake/torch/version.py"
    if (cd "$tmp/elsewhere" && env AWB_PYTHON="$python" PYTHONPATH="$tmp/fake" "$prefix/libexec/attention-workbench/attnwb-engine" --version) >"$tmp/out" 2>"$tmp/err"; then
        fail "the launcher ran with torch 2.0"
    else
        [ $? -eq 127 ] && grep -q 'built against LibTorch 2\.[0-9]*, but the torch in .*fake/torch .* is 2\.0: install torch==' "$tmp/err" &&
            ok "the launcher refuses another torch version, naming both" || fail "the launcher's message for torch 2.0"
    fi
    run "the launcher names a torch/lib without LibTorch" 'nowhere \(from AWB_TORCH_LIB\) holds no libtorch_cpu\.so' -- \
        sh -c "AWB_TORCH_LIB=$tmp/nowhere '$bin/attention-workbench' --version; test \$? -eq 127"
    if (cd "$build" && cpack -G TGZ -B "$tmp/pkg") >"$tmp/out" 2>"$tmp/err"; then
        archive=$(ls "$tmp"/pkg/attention-workbench-*.tar.gz | head -1)
        mkdir -p "$tmp/unpacked" && tar -xzf "$archive" -C "$tmp/unpacked"
        top=$(ls -d "$tmp"/unpacked/attention-workbench-*/)
        run "the archive ($(basename "$archive"), $(du -h "$archive" | cut -f1)) unpacked elsewhere runs with the wheel's LibTorch" \
            "loaded 2\.[0-9.]+.* \($torch_lib/libtorch_cpu\.so\)" -- env -i PATH=/usr/bin:/bin AWB_PYTHON="$python" "$top/bin/attnwb" --version
        run "the unpacked archive profiles a run" 'Self CPU time total' -- env -i PATH=/usr/bin:/bin AWB_PYTHON="$python" \
            "$top/bin/attnwb" profile --batch 1 --heads 2 --seq 32 --head-dim 16 --threads 1 --quiet
    else
        fail "cpack -G TGZ"
    fi
fi
man=$prefix/share/man/man1
if command -v help2man >/dev/null; then
    [ -s "$man/attnwb.1.gz" ] && zgrep -q 'inspect' "$man/attnwb.1.gz" && zgrep -q 'Print the version' "$man/attnwb.1.gz" && ok "man page attnwb.1.gz, every subcommand in it" || fail "attnwb.1.gz"
    if [ -x "$bin/attention-workbench" ]; then zcat "$man/attention-workbench.1.gz" | grep -qF 'new\-window' && ok "man page attention-workbench.1.gz" || fail "attention-workbench.1.gz"; fi
fi
echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
