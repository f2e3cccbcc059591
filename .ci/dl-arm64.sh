#!/usr/bin/env bash
# Runs the tests of the given packages (default: ./internal/dl) as linux/arm64
# binaries (CGO_ENABLED=0) under qemu user-mode emulation on any host, so the
# arm64 call trampolines are exercised without arm64 hardware. Each package
# runs twice: the default call path and the purego.SyscallN fallback
# (-tags nocgo_syscalln).
#
#   .ci/dl-arm64.sh                      # ./internal/dl
#   .ci/dl-arm64.sh ./internal/... ./loader
#
# Installs qemu-user-static (or qemu-user) and libc6:arm64 with apt-get when
# they are missing (the test binaries dlopen the arm64 libc).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- ./internal/dl

find_qemu() { command -v qemu-aarch64-static || command -v qemu-aarch64 || true; }
have_libc() { [ -e /lib/ld-linux-aarch64.so.1 ] && [ -e /lib/aarch64-linux-gnu/libc.so.6 ]; }

if [ -z "$(find_qemu)" ] || ! have_libc; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  if ! have_libc && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo dpkg --add-architecture arm64
  fi
  $sudo apt-get update -qq
  if [ -z "$(find_qemu)" ]; then
    $sudo apt-get install -y -qq qemu-user-static >/dev/null ||
      $sudo apt-get install -y -qq qemu-user >/dev/null
  fi
  if ! have_libc; then $sudo apt-get install -y -qq libc6:arm64 >/dev/null; fi
fi

qemu=$(find_qemu)
[ -n "$qemu" ] || { echo "dl-arm64: no qemu-aarch64 after installing" >&2; exit 1; }
echo "== arm64 under $("$qemu" --version | head -n1)"
export NOCGO_CUDA_TEST_EXEC="$qemu" # tests that run their own binary again do it under qemu
# Once, a test process under qemu (a child of the module cache test) hung
# until the 10-minute test timeout; it did not recur in ten reruns. Signals
# in qemu-user are a known source of such hangs, so Go's asynchronous
# preemption (a signal) is turned off here; children are also killed after
# two minutes, and each package's tests after five, so a hang fails fast.
export GODEBUG=asyncpreemptoff=1

# go test builds each test binary for arm64 and runs it through $qemu in the
# package's directory (-exec), with no binfmt registration needed.
export CGO_ENABLED=0 GOOS=linux GOARCH=arm64
go test -count=1 -timeout 5m -exec "$qemu" "$@"
go test -count=1 -timeout 5m -exec "$qemu" -tags nocgo_syscalln "$@"
