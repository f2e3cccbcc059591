#!/usr/bin/env bash
# Fetches NVIDIA's CUDA headers (cuda_fp16.h, cuda_bf16.h, cooperative_groups.h,
# ...) from Debian's nvidia-cuda-dev package (non-free; CUDA 11.8, matching the
# libnvrtc11.2 that install-nvrtc.sh installs) and unpacks only its usr/include
# into the directory given (default /tmp/cuda-headers), without installing the
# package. Prints the include directory, for NOCGO_CUDA_INCLUDE: the
# conformance suite's samples that include CUDA headers then run on the fake.
# The headers are NVIDIA's, licensed: they are fetched here, never committed.
set -euo pipefail
dest="${1:-/tmp/cuda-headers}"
if [ -f "$dest/usr/include/cuda_fp16.h" ]; then echo "$dest/usr/include"; exit 0; fi
command -v apt-get >/dev/null || { echo "install-cuda-headers: no apt-get" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# install-nvrtc.sh has added the non-free component and run apt-get update.
(cd "$work" && apt-get download -qq nvidia-cuda-dev >/dev/null)
mkdir -p "$dest"
dpkg-deb --fsys-tarfile "$work"/nvidia-cuda-dev_*.deb | tar -x -C "$dest" ./usr/include
[ -f "$dest/usr/include/cuda_fp16.h" ] || { echo "install-cuda-headers: no cuda_fp16.h in the package" >&2; exit 1; }
echo "$dest/usr/include"
