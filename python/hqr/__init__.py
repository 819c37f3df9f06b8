"""hqr from Python: libhqr (LAPACK/BLAS on the node's GPUs) for numpy and SciPy.

    python -m hqr script.py [args]    # numpy's and SciPy's LAPACK through hqr
    import hqr; hqr.info()            # version, GPUs, paths taken so far
    hqr.linalg.qr_insert / qr_delete  # SciPy's QR updates, a block at once
    hqr.linalg.cho_logdet             # Cholesky factor and log-determinant

The package carries libhqr.so and libhqr64.so (see hqr._lib for where they
are found, and how a CUDA build finds cuBLAS/cuSOLVER); python/README.md.
"""
import ctypes
import os
import sys

from . import _lib

try:
    from ._version import __version__
except ImportError:  # a source checkout: the library's version
    __version__ = None

__all__ = ["info", "library_paths", "linalg", "__version__"]


def library_paths():
    """(libhqr.so, libhqr64.so): the files `python -m hqr` preloads."""
    st = _lib.state()
    return st["path"], st["path64"]


# numpy's and SciPy's LAPACK symbol schemes, most specific first: pip wheels
# (numpy >= 2, SciPy >= 1.13) call scipy_<name>_64_ / scipy_<name>_; numpy 1.x
# wheels <name>_64_; Debian's packages the plain <name>_ of liblapack.so.3.
_SCHEMES = ("scipy_%s_64_", "scipy_%s_", "%s_64_", "%s_")


def _lapack_symbol(module_file, routine="dpotrf"):
    try:
        with open(module_file, "rb") as f:
            data = f.read()
    except OSError:
        return None
    for scheme in _SCHEMES:
        name = scheme % routine
        i = data.find(name.encode() + b"\0")
        while i > 0 and (data[i - 1:i].isalnum() or data[i - 1:i] == b"_"):
            i = data.find(name.encode() + b"\0", i + 1)
        if i > 0:
            return name
    return None


def _served(module_file, hqr_path):
    """Whether the module's dpotrf binds to libhqr: which name it calls
    (read from the extension's file) and who answers that name first in the
    process's global scope (LD_PRELOAD comes first there)."""
    name = _lapack_symbol(module_file)
    if name is None:
        return {"symbol": None, "provider": None, "served_by_hqr": False}
    prov = _lib.global_provider(name)
    return {"symbol": name, "provider": prov,
            "served_by_hqr": bool(prov) and os.path.basename(prov).startswith("libhqr")}


def _counters(lib):
    return {"cpu": lib.hqr_path_calls(b"c"), "gpu": lib.hqr_path_calls(b"g"),
            "gpu_then_cpu": lib.hqr_path_calls(b"r")}


def _paths(lib, path64):
    """The path counters of libhqr.so and, where this process has loaded it
    (pip's numpy calls it: ILP64), of libhqr64.so, added up."""
    total = _counters(lib)
    try:
        lib64 = ctypes.CDLL(path64, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except (OSError, TypeError):
        return total
    _lib._setup(lib64)
    for k, v in _counters(lib64).items():
        total[k] += v
    return total


def info():
    """A dict: hqr's version, the library files, the GPUs serving calls, the
    path counters so far of both libraries (calls run on the CPU 'cpu', on a
    GPU 'gpu', started on a GPU and finished on the CPU 'gpu_then_cpu'), and whether numpy's and
    SciPy's LAPACK (when imported) are served by hqr in this process."""
    lib = _lib.load()
    st = _lib.state()
    n = lib.hqr_device_count()
    out = {
        "version": lib.hqr_version().decode(),
        "library": st["path"],
        "library64": st["path64"],
        "origin": st["origin"],
        "preloaded": "libhqr" in os.environ.get("LD_PRELOAD", ""),
        "device_count": n,
        "device": lib.hqr_device(),
        "device_name": lib.hqr_device_name().decode(),
        "device_calls": {d: lib.hqr_device_calls(d) for d in range(n)},
        "paths": _paths(lib, st["path64"]),
        "cuda_libraries_preloaded": st["cuda_preloaded"],
    }
    if st["skipped"]:
        out["skipped_libraries"] = st["skipped"]
    if "numpy" in sys.modules:
        import numpy
        entry = {"version": numpy.__version__}
        try:
            from numpy.linalg import _umath_linalg
            entry.update(_served(_umath_linalg.__file__, st["path"]))
        except ImportError:
            entry["served_by_hqr"] = False
        out["numpy"] = entry
    if "scipy" in sys.modules:
        import scipy
        entry = {"version": scipy.__version__}
        try:
            from scipy.linalg import _flapack
            entry.update(_served(_flapack.__file__, st["path"]))
        except ImportError:
            entry["served_by_hqr"] = False
        out["scipy"] = entry
    return out


def __getattr__(name):
    if name == "linalg":
        from . import linalg
        return linalg
    raise AttributeError("module 'hqr' has no attribute %r" % name)
