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
# No path into the build folder: not in the RPATH of any installed program.
if ! for f in "$bin/attnwb" "$prefix/libexec/attention-workbench/attnwb-engine" "$bin/attention-workbench"; do
        [ -e "$f" ] && readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -F "$build"; done | grep -q .; then
    ok "no RPATH into the build folder"
else
    fail "an installed program's RPATH names the build folder"
fi
if [ -x "$bin/attention-workbench" ]; then
    run "installed attention-workbench --version says Qt too" '^Qt: built with [0-9.]+, running [0-9.]+$' -- "$bin/attention-workbench" --version
    desktop=$prefix/share/applications/attention-workbench.desktop
    if [ -f "$desktop" ] && desktop-file-validate "$desktop" >"$tmp/out" 2>"$tmp/err"; then ok "the desktop entry passes desktop-file-validate"; else fail "desktop entry"; fi
    icons=0
    for n in 16 32 48 64 128 256; do [ -s "$prefix/share/icons/hicolor/${n}x${n}/apps/attention-workbench.png" ] && icons=$((icons + 1)); done
    [ "$icons" -eq 6 ] && [ -s "$prefix/share/icons/hicolor/scalable/apps/attention-workbench.svg" ] && ok "icons in the hicolor theme (SVG and 6 PNG sizes)" || fail "icons: $icons of 6 PNG sizes"
    # A trace given on the command line opens (offscreen; the window closes itself after 3 s).
    run "installed attention-workbench opens a trace given on its command line" '^window: Attention Workbench - .*kineto_gpu_2x' -- env QT_QPA_PLATFORM=offscreen AWB_QUIT_AFTER_MS=4000 "$bin/attention-workbench" "$src/tests/fixtures/traces/kineto_gpu_2x.json"
fi
man=$prefix/share/man/man1
if command -v help2man >/dev/null; then
    [ -s "$man/attnwb.1" ] && grep -q 'inspect' "$man/attnwb.1" && grep -q 'Print the version' "$man/attnwb.1" && ok "man page attnwb.1, every subcommand in it" || fail "attnwb.1"
    if [ -x "$bin/attention-workbench" ]; then [ -s "$man/attention-workbench.1" ] && ok "man page attention-workbench.1" || fail "attention-workbench.1"; fi
fi
echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
