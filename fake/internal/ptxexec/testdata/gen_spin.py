#!/usr/bin/env python3
"""Regenerates spin_90.ptx from spin.cu with a real NVRTC (-lineinfo).

    python3 gen_spin.py [path/to/libnvrtc.so]

The tests read only the output, so they run where no NVRTC is installed.
"""
import ctypes, sys, os

lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libnvrtc.so.11.2")
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "spin.cu"), "rb").read()
prog = ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"spin.cu", 0, None, None) == 0
opts = [b"--gpu-architecture=compute_90", b"-std=c++17", b"-lineinfo"]
arr = (ctypes.c_char_p * len(opts))(*opts)
r = lib.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
log = ctypes.create_string_buffer(n.value)
lib.nvrtcGetProgramLog(prog, log)
if r != 0:
    sys.exit("compile failed:\n" + log.value.decode())
lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
buf = ctypes.create_string_buffer(n.value)
lib.nvrtcGetPTX(prog, buf)
open(os.path.join(here, "spin_90.ptx"), "wb").write(buf.value)
lib.nvrtcDestroyProgram(ctypes.byref(prog))
