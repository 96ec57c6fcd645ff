#!/usr/bin/env bash
# Installs the PyTorch wheel pinned for the LibTorch 2.x build (torch 2.11.0 from PyPI: CUDA 13.0,
# Kineto; the GPU machine's version) into a cached virtual environment, and prints that
# environment's python on stdout (everything else goes to stderr).
#
# Idempotent and cached: the wheels are downloaded once into $AWB_CACHE/wheels and the venv is built
# once from them; a later call whose venv imports the pinned torch does nothing. Outside the source
# tree, so clean clones (CI) reuse it. Needs /usr/bin/python3 with venv (scripts/setup.sh).
# Environment: AWB_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/attention-workbench),
# AWB_TORCH2_VERSION (default 2.11.0), AWB_TORCH2_VENV (default $AWB_CACHE/venv-torch-$VERSION).
set -euo pipefail
version="${AWB_TORCH2_VERSION:-2.11.0}"
cache="${AWB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/attention-workbench}"
venv="${AWB_TORCH2_VENV:-$cache/venv-torch-$version}"
wheels="$cache/wheels"
# numpy: torch warns without it, and the fixture scripts print with it; nothing else is needed.
requirements=("torch==$version" "numpy")

ready() {
  [ -f "$venv/.awb-ready" ] && "$venv/bin/python" - "$version" <<'EOF' 2>/dev/null
import sys, torch
sys.exit(0 if torch.__version__.split("+")[0] == sys.argv[1] else 1)
EOF
}

if ready; then
  echo "setup-torch2: torch $version ready in $venv" >&2
  echo "$venv/bin/python"
  exit 0
fi

t0=$SECONDS
mkdir -p "$wheels"
echo "setup-torch2: downloading torch $version and its dependencies into $wheels (files already there are reused)" >&2
# A first python for pip: the system's (the venv may not exist yet). `pip download` keeps files that
# are already in the folder, so nothing is fetched twice.
/usr/bin/python3 -m venv "$cache/pip-runner" >&2
"$cache/pip-runner/bin/pip" download -q --only-binary=:all: -d "$wheels" "${requirements[@]}" >&2
echo "setup-torch2: building $venv from $wheels" >&2
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --no-index --find-links "$wheels" "${requirements[@]}" >&2
touch "$venv/.awb-ready"
ready || { echo "setup-torch2: $venv does not import torch $version" >&2; exit 1; }
echo "setup-torch2: torch $version installed in $((SECONDS - t0)) s; venv $(du -sh "$venv" | cut -f1), wheels $(du -sh "$wheels" | cut -f1)" >&2
echo "$venv/bin/python"
