#!/usr/bin/env python3
"""Regenerates async_{80,90}.ptx from async.cu and races_{80,90}.ptx from
races.cu with a real NVRTC (-lineinfo).

    python3 gen_async.py INCLUDE_DIR [path/to/libnvrtc.so]

INCLUDE_DIR holds CUDA's headers (cooperative_groups.h, cuda_pipeline.h):
.ci/install-cuda-headers.sh prints one. The tests read only the outputs.
"""
import ctypes, sys, os

inc = sys.argv[1]
lib = ctypes.CDLL(sys.argv[2] if len(sys.argv) > 2 else "libnvrtc.so.11.2")
here = os.path.dirname(os.path.abspath(__file__))
for stem, arch in [(s, a) for s in ("async", "races", "globalraces") for a in ("80", "90")]:
    src = open(os.path.join(here, stem + ".cu"), "rb").read()
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, (stem + ".cu").encode(), 0, None, None) == 0
    opts = [b"--gpu-architecture=compute_" + arch.encode(), b"-std=c++17", b"-lineinfo", b"-I" + inc.encode()]
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
    open(os.path.join(here, "%s_%s.ptx" % (stem, arch)), "wb").write(buf.value)
