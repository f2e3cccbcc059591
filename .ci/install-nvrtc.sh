#!/usr/bin/env bash
# Installs NVIDIA's run-time compiler, libnvrtc, so that the fake backend
# compiles real CUDA C and runs the PTX in its interpreter (NVRTC needs no
# GPU). On Debian (bookworm) it is the package libnvrtc11.2 (NVRTC 11.8) of
# the non-free component, which this script adds to the apt sources when
# missing. Does nothing when libnvrtc is already installed. Elsewhere, install
# the pip wheel nvidia-cuda-nvrtc-cu12 (the loader finds it in site-packages)
# or point NOCGO_CUDA_LIBNVRTC at a libnvrtc.so.
set -euo pipefail

ldconfig=$(command -v ldconfig || echo /sbin/ldconfig) # not on a user's PATH
found() { "$ldconfig" -p 2>/dev/null | grep -m1 'libnvrtc\.so' | sed 's/.*=> //'; }
if [ -n "$(found)" ]; then
  echo "libnvrtc: $(found)"
  exit 0
fi
command -v apt-get >/dev/null || { echo "install-nvrtc: no apt-get: install libnvrtc another way" >&2; exit 1; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# contrib and non-free in every Debian source, once (deb822 or one-line form;
# "non-free-firmware" is another component and does not count).
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  $sudo sed -i -E '/^Components:/{/ contrib( |$)/!s/$/ contrib/;/ non-free( |$)/!s/$/ non-free/}' \
    /etc/apt/sources.list.d/debian.sources
fi
if [ -f /etc/apt/sources.list ]; then
  $sudo sed -i -E '/^deb(-src)? .*debian/{/ contrib( |$)/!s/$/ contrib/;/ non-free( |$)/!s/$/ non-free/}' \
    /etc/apt/sources.list
fi

$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends libnvrtc11.2 >/dev/null
[ -n "$(found)" ] || { echo "install-nvrtc: libnvrtc11.2 installed but no libnvrtc.so found" >&2; exit 1; }
echo "libnvrtc: $(found)"
