#!/usr/bin/env bash
# Downloads (does not install) Debian 13's libtorch-dev and the -dev packages its headers include, and
# unpacks them with dpkg -x into DEST, for a syntax-only compile of the core against the LibTorch 2.x API.
# Idempotent: does nothing when DEST/.done exists. Usage: scripts/fetch-torch2-headers.sh DEST
set -euo pipefail
dest=$(realpath -m "${1:?usage: $0 DEST}")
[ -f "$dest/.done" ] && exit 0
mkdir -p "$dest/apt/lists/partial" "$dest/apt/cache/archives/partial" "$dest/debs" "$dest/root"
# Same archive and key as this machine's bookworm sources, suite trixie (Debian 13), kept out of the system's lists.
uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$uri" ] || uri=http://deb.debian.org/debian
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri trixie main" > "$dest/apt/sources.list"
opts=(-o "Dir::Etc::SourceList=$dest/apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
      -o "Dir::State::Lists=$dest/apt/lists" -o "Dir::Cache=$dest/apt/cache" -o "Debug::NoLocking=1"
      -o "APT::Architecture=amd64" -o "Dir::State::status=/dev/null")
apt-get "${opts[@]}" -q update >/dev/null
# libtorch-dev's headers pull in headers of these -dev packages (fmt via c10, protobuf-free for the core).
cd "$dest/debs"
for pkg in libtorch-dev libfmt-dev; do
  apt-get "${opts[@]}" -q download "$pkg" >/dev/null
done
for deb in "$dest"/debs/*.deb; do dpkg -x "$deb" "$dest/root"; done
test -f "$dest/root/usr/include/torch/csrc/api/include/torch/torch.h" || { echo "libtorch 2.x headers missing in $dest" >&2; exit 1; }
touch "$dest/.done"
echo "LibTorch 2.x headers in $dest/root/usr/include ($(ls "$dest"/debs))"
