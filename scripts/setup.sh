#!/usr/bin/env bash
# Installs the Debian 12 packages Attention Workbench needs to build, test and run. Idempotent: does
# nothing when all are present. Needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(
  g++ cmake ninja-build ccache pkg-config
  libtorch-dev libopenblas0-pthread   # LibTorch 1.13 (CPU) and an optimised BLAS (19x faster matmuls)
  qt6-base-dev libqcustomplot-dev libqcustomplot2.1-qt6
  nlohmann-json3-dev libsimdjson-dev zlib1g-dev libssl-dev libgtest-dev libcli11-dev robin-map-dev
  clang libclang-rt-14-dev llvm       # the importer's fuzz test: libFuzzer, ASan, UBSan, symbolizer
  clang-format-14                     # the sources' layout (.clang-format; tests/style/check_format.sh)
  python3 python3-venv                # test helpers parse JSON with it; the venv of the torch 2.11 wheel (setup-torch2.sh)
  slurmctld slurmd slurm-client munge # the sharded-sweep test's single-node Slurm (tests/slurm/local_slurm.sh)
  help2man desktop-file-utils         # the man pages (from --help), the desktop entry's check (tests/install)
  appstream shared-mime-info libglib2.0-bin  # the AppStream metadata's check, the file types as the desktop sees them
  dpkg-dev debootstrap                # the .deb (cpack, dpkg-shlibdeps) and its test in a throwaway Debian root
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# Install without starting services (Slurm's and munge's daemons): where no policy-rc.d forbids it,
# one does for the install. The Slurm test starts its own daemons.
policy=/usr/sbin/policy-rc.d
added_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod 755 "$policy" && added_policy=1
fi
rc=0
{ $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; } || rc=$?
[ "$added_policy" -eq 0 ] || $sudo rm -f "$policy"
exit "$rc"
