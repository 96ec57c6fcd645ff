#!/usr/bin/env bash
# The C++ sources as .clang-format lays them out (clang-format 14, Debian 12's: another version lays
# some lines out differently), and no line of them over 120 bytes (what clang-format cannot wrap: raw
# strings, a table under "clang-format off", a long literal). Exits 77 (skipped) without clang-format-14
# or outside a git checkout. Fix with: clang-format-14 -i $(git ls-files '*.cpp' '*.h')
set -uo pipefail
cd "${1:?usage: check_format.sh SOURCE_DIR}" || exit 2
command -v clang-format-14 >/dev/null || { echo "check_format: no clang-format-14 (scripts/setup.sh installs it)"; exit 77; }
files=$(git ls-files '*.cpp' '*.h' 2>/dev/null) || { echo "check_format: not a git checkout"; exit 77; }
status=0
if ! clang-format-14 --dry-run --Werror $files 2>/tmp/check_format.$$; then
  echo "check_format: not as .clang-format lays them out:"
  grep -E "^[^ ].*: (error|warning):" /tmp/check_format.$$ | cut -d: -f1,2 | sort -u | head -40
  status=1
fi
rm -f /tmp/check_format.$$
long=$(awk 'length > 120 {print FILENAME ":" FNR ": " length " bytes"}' $files)
if [ -n "$long" ]; then
  echo "check_format: lines over 120 bytes:"
  echo "$long" | head -40
  status=1
fi
[ $status -eq 0 ] && echo "check_format: $(echo "$files" | wc -l) files as .clang-format lays them out, none over 120 bytes"
exit $status
