"""Finding and loading libhqr for the hqr package.

Where the library comes from, first found wins:
  1. HQR_LIBRARY: the path of a libhqr.so (libhqr64.so is taken from the same
     folder, or from HQR_LIBRARY64);
  2. the wheel's own copies, hqr/lib/libhqr.so and hqr/lib/libhqr64.so;
  3. the system's libhqr.so (ld.so's search path: /usr/local/lib after
     `make install`, LD_LIBRARY_PATH).

A CUDA build of libhqr loads without cuBLAS and cuSOLVER: it dlopens
libcublas.so.13 and libcusolver.so.12 (CUDA 13) by name when its GPU side
starts, and runs on the CPU where they cannot be found. So that it finds
NVIDIA's pip wheels (nvidia-cublas, nvidia-cusolver:
site-packages/nvidia/cu13/lib) when they are installed, the package preloads
them from there, with RTLD_GLOBAL, before loading libhqr; otherwise the
library's own RUNPATH (the CUDA_HOME/lib64 it was built with) and ld.so's
search path (a system CUDA) serve. `python -m hqr` puts the same folders on
LD_LIBRARY_PATH for the re-executed interpreter.
"""
import ctypes
import glob
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))

# The CUDA libraries a CUDA build of libhqr needs, in dependency order
# (cuSOLVER needs cuSPARSE and nvJitLink; cuBLAS needs cuBLASLt).
_CUDA_LIBS = ("libnvJitLink.so.*", "libcusparse.so.*", "libcublasLt.so.*",
              "libcublas.so.*", "libcusolver.so.*")

_state = {}


def nvidia_lib_dirs():
    """The library folders of NVIDIA's CUDA wheels on sys.path: nvidia/cu13/lib
    (CUDA 13 wheels) and nvidia/<component>/lib (CUDA 12 wheels)."""
    dirs = []
    for entry in sys.path:
        base = os.path.join(entry or ".", "nvidia")
        if not os.path.isdir(base):
            continue
        for d in sorted(glob.glob(os.path.join(base, "cu*", "lib"))) + \
                sorted(glob.glob(os.path.join(base, "*", "lib"))):
            if os.path.isdir(d) and d not in dirs:
                dirs.append(d)
    return dirs


def _preload_cuda(dirs):
    loaded = []
    for pattern in _CUDA_LIBS:
        for d in dirs:
            # the SONAME link (libcublas.so.13), not the fully versioned file
            names = sorted(f for f in glob.glob(os.path.join(d, pattern))
                           if f.count(".so.") == 1 and f.split(".so.")[1].isdigit())
            if not names:
                continue
            try:
                ctypes.CDLL(names[-1], mode=ctypes.RTLD_GLOBAL)
                loaded.append(names[-1])
            except OSError:
                pass
            break
    return loaded


def _candidates():
    env = os.environ.get("HQR_LIBRARY")
    if env:
        lib64 = os.environ.get("HQR_LIBRARY64") or \
            os.path.join(os.path.dirname(os.path.abspath(env)), "libhqr64.so")
        # `python -m hqr` hands its choice to the child with its origin
        yield os.environ.get("HQR_LIBRARY_ORIGIN", "HQR_LIBRARY"), os.path.abspath(env), lib64
        return
    lib = os.path.join(_here, "lib", "libhqr.so")
    if os.path.exists(lib):
        yield "wheel", lib, os.path.join(_here, "lib", "libhqr64.so")
    yield "system", "libhqr.so", "libhqr64.so"


def load():
    """Loads libhqr (once) and returns the ctypes handle; raises OSError with
    every attempt's reason when no libhqr can be loaded."""
    if "lib" in _state:
        return _state["lib"]
    dirs = nvidia_lib_dirs()
    _state["cuda_preloaded"] = _preload_cuda(dirs) if dirs else []
    _state["nvidia_dirs"] = dirs
    errors = []
    for origin, path, path64 in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s (%s): %s" % (path, origin, e))
            continue
        _setup(lib)
        _state.update(lib=lib, path=_loaded_path(lib, path), path64=path64,
                      origin=origin, skipped=errors)
        return lib
    raise OSError("hqr: no libhqr could be loaded:\n  " + "\n  ".join(errors))


def load_cpu_lapack():
    """Loads SciPy's OpenBLAS (once, where SciPy is installed) before the
    package's first call of libhqr.so: hqr's CPU path calls the next LAPACK,
    and of pip's wheels only SciPy's has libhqr.so's 32-bit INTEGER
    (scipy_<name>; numpy's is 64-bit). Where there is none, libhqr.so opens
    the system's liblapack.so.3, and with neither, its first call that
    needs one stops the process with a line saying so."""
    if _state.get("cpu_lapack_tried"):
        return
    _state["cpu_lapack_tried"] = True
    try:
        import scipy.linalg  # noqa: F401  (its _flapack loads libscipy_openblas)
    except ImportError:
        pass


def _setup(lib):
    lib.hqr_version.restype = ctypes.c_char_p
    lib.hqr_device_name.restype = ctypes.c_char_p
    lib.hqr_device_count.restype = ctypes.c_int
    lib.hqr_device.restype = ctypes.c_int
    lib.hqr_path_calls.restype = ctypes.c_long
    lib.hqr_path_calls.argtypes = [ctypes.c_char]
    lib.hqr_device_calls.restype = ctypes.c_long
    lib.hqr_device_calls.argtypes = [ctypes.c_int]


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _dladdr_fn():
    for name in (None, "libc.so.6", "libdl.so.2"):
        try:
            f = ctypes.CDLL(name).dladdr
        except (OSError, AttributeError):
            continue
        f.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        f.restype = ctypes.c_int
        return f
    return None


def provider(address):
    """The file of the loaded object that holds `address`, or None."""
    f = _dladdr_fn()
    info = _DlInfo()
    if f is None or not address or not f(address, ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.path.realpath(info.dli_fname.decode())


def global_provider(symbol):
    """Where the process's global scope (what an extension module's undefined
    `symbol` binds to first) finds `symbol`, or None."""
    try:
        fn = getattr(ctypes.CDLL(None), symbol)
    except AttributeError:
        return None
    return provider(ctypes.cast(fn, ctypes.c_void_p).value)


def _loaded_path(lib, fallback):
    return provider(ctypes.cast(lib.hqr_version, ctypes.c_void_p).value) or fallback


def state():
    load()
    return dict(_state)
