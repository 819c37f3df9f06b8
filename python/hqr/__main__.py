"""python -m hqr script.py [args] | -c code [args] | -m module [args]

Runs a Python program with libhqr in front of numpy's and SciPy's LAPACK:
the interpreter is executed again with LD_PRELOAD naming the package's
libhqr.so (LP64: SciPy's scipy_<name>_ and Debian's plain names) and
libhqr64.so (ILP64: numpy's scipy_<name>_64_), ahead of any LD_PRELOAD
already set, and NVIDIA's CUDA wheel folders on LD_LIBRARY_PATH; the program
then runs as `python script.py` would (runpy; sys.argv[0] the script).
HQR_VERBOSE=1 prints one line per hqr call.
"""
import os
import runpy
import sys

_MARK = "HQR_PYTHON_PRELOADED"
_USAGE = "usage: python -m hqr script.py [args] | -c code [args] | -m module [args]"


def _reexec():
    from . import _lib
    _lib.load()  # the same choice of library (and CUDA folders) as `import hqr`
    st = _lib.state()
    libs = [st["path"]] + ([st["path64"]] if os.path.exists(st["path64"]) else [])
    env = dict(os.environ)
    old = env.get("LD_PRELOAD", "")
    env["LD_PRELOAD"] = " ".join(libs + ([old] if old else []))
    if st["nvidia_dirs"]:
        ld = env.get("LD_LIBRARY_PATH", "")
        env["LD_LIBRARY_PATH"] = ":".join(st["nvidia_dirs"] + ([ld] if ld else []))
    # the child finds the library the parent chose, whatever its origin
    env["HQR_LIBRARY"] = st["path"]
    env["HQR_LIBRARY64"] = st["path64"]
    env["HQR_LIBRARY_ORIGIN"] = st["origin"]
    env[_MARK] = "1"
    args = [sys.executable]
    # keep the interpreter's own options (-X, -W, -O, -I ...)
    args += [a for a in getattr(sys, "orig_argv", [])[1:1 + _interp_opts()]]
    args += ["-m", "hqr"] + sys.argv[1:]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, args, env)


def _interp_opts():
    """How many of sys.orig_argv's items after the executable are the
    interpreter's own options (those before `-m hqr`)."""
    argv = getattr(sys, "orig_argv", [])
    for i, a in enumerate(argv[1:]):
        if a == "-m" or a.startswith("-mhqr"):
            return i
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if len(sys.argv) < 2 else sys.stdout)
        return 2 if len(sys.argv) < 2 else 0
    if os.environ.get(_MARK) != "1":
        _reexec()
    from . import _lib
    _lib.load()  # the library the parent chose, with its origin
    # a child Python of the program starts plainly
    for var in (_MARK, "HQR_LIBRARY_ORIGIN"):
        os.environ.pop(var, None)
    args = sys.argv[1:]
    if args[0] == "-c":
        if len(args) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        sys.argv = ["-c"] + args[2:]
        code = compile(args[1], "<string>", "exec")
        glob = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(code, glob)
        return 0
    if args[0] == "-m":
        if len(args) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        sys.argv = [args[1]] + args[2:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return 0
    sys.argv = args
    sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
    runpy.run_path(args[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
