#!/usr/bin/env python3
"""Regenerates the PTX golden files from kernels.cu with a real NVRTC.

    python3 gen.py [path/to/libnvrtc.so]

Writes kernels_80.ptx and kernels_90.ptx (compute_80 / compute_90) and
names.txt (name expression -> lowered name). The tests read only these
outputs, so they run where no NVRTC is installed.
"""
import ctypes, sys, os

lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libnvrtc.so.11.2")
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "kernels.cu"), "rb").read()
exprs = [b"scale<float>", b"scale<double>"]

def check(r, what, prog=None):
    if r != 0:
        log = b""
        if prog is not None:
            n = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            lib.nvrtcGetProgramLog(prog, buf)
            log = buf.value
        sys.exit("%s failed: %d\n%s" % (what, r, log.decode()))

names = []
for arch in ("80", "90"):
    prog = ctypes.c_void_p()
    check(lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"kernels.cu", 0, None, None), "create")
    for e in exprs:
        check(lib.nvrtcAddNameExpression(prog, e), "add name")
    opts = [b"--gpu-architecture=compute_" + arch.encode(), b"-std=c++17"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    check(lib.nvrtcCompileProgram(prog, len(opts), arr), "compile", prog)
    n = ctypes.c_size_t()
    check(lib.nvrtcGetPTXSize(prog, ctypes.byref(n)), "ptx size")
    buf = ctypes.create_string_buffer(n.value)
    check(lib.nvrtcGetPTX(prog, buf), "ptx")
    open(os.path.join(here, "kernels_%s.ptx" % arch), "wb").write(buf.value)
    if arch == "90":
        for e in exprs:
            p = ctypes.c_char_p()
            check(lib.nvrtcGetLoweredName(prog, e, ctypes.byref(p)), "lowered")
            names.append("%s %s" % (e.decode(), p.value.decode()))
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
open(os.path.join(here, "names.txt"), "w").write("\n".join(names) + "\n")
