#!/usr/bin/env bash
# Rehearses the GPU check here as the GPU machine will see it (proven here before it runs there): in a private
# mount namespace, /dev/null is bound over every file of the Debian packages .gpu-deps carries, so the
# configure and build can only succeed with the carried copies (and the programs only run if their
# RPATH finds the carried libsimdjson); ccache is off, as there. Needs root (unshare -m).
#   scripts/gpu_check/rehearse.sh [gpu-check options], e.g. --cpu-rehearsal, --steps env,configure,build
# Uses the pinned 2.11 wheel's python (scripts/setup-torch2.sh) as the machine's python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
py="$(bash scripts/setup-torch2.sh)"
packages="$(python3 -c 'import sys; sys.path.insert(0, "scripts/gpu_check"); import deps; print(" ".join(deps.PACKAGES))')"
exec unshare -m --propagation private bash -c '
  set -euo pipefail
  hidden=0
  for p in '"$packages"'; do
    while read -r f; do
      if [ -f "$f" ] && [ ! -L "$f" ]; then mount --bind /dev/null "$f"; hidden=$((hidden + 1)); fi
    done < <(dpkg -L "$p")
  done
  [ ! -s /usr/include/zlib.h ] && [ ! -s /usr/include/nlohmann/json.hpp ] || { echo "hiding failed" >&2; exit 1; }
  echo "rehearsal: $hidden files of the carried packages hidden from this build; ccache off"
  export CCACHE_DISABLE=1
  exec bash scripts/gpu-check.sh --python "$0" "$@"' "$py" "$@"
