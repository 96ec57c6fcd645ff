#!/usr/bin/env bash
# The core's layering (docs/architecture.md#layering), as its includes say it: each folder includes only
# the folders below it. model: none of ours; io (the importers) and analysis: model; results: io,
# analysis, model; report: results and what that includes. Exit 1 naming each include that breaks it.
set -euo pipefail
root="${1:-.}"
allowed() {  # folder -> the folders its files may include
    case "$1" in
        model) echo "model" ;;
        io) echo "model io" ;;
        analysis) echo "model analysis" ;;
        results) echo "model io analysis results" ;;
        report) echo "model io analysis results report" ;;
        engine) echo "model analysis engine" ;;
    esac
}
bad=0
for dir in model io analysis results report engine; do
    ok=" $(allowed "$dir") "
    while IFS= read -r hit; do
        file="${hit%%:*}"
        rest="${hit#*:}"
        line="${rest%%:*}"
        folder=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$rest")
        if [[ "$ok" != *" $folder "* ]]; then
            echo "check_layers: core/$dir/${file##*/}:$line includes $folder/ (core/$dir may include: $(allowed "$dir"))"
            bad=1
        fi
    done < <(grep -nE '^#include "[a-z_]+/' "$root/core/$dir"/*.{h,cpp} 2>/dev/null | sed -E "s#^$root/core/$dir/##" || true)
done
[ "$bad" -eq 0 ] && echo "check_layers: every include of core/ keeps to its layer"
exit "$bad"
