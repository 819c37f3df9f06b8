"""SciPy-compatible QR updates and a Cholesky log-determinant, on libhqr.

qr_insert and qr_delete take scipy.linalg.qr_insert's and qr_delete's
arguments and give the same results up to the signs (phases, for complex
data) of R's rows and Q's columns: a block of P rows or columns is one call
of hqr's xQRUPD_* routine (ABI.md section 5; the economy forms, 5.7, for
economic (M,N) (N,N) factors), not P single updates. Where they differ
from SciPy (python/README.md):

* economic row deletion has no hqr routine (deleting rows needs the full Q):
  it is the QR of Q's remaining rows, Q[keep] = Q2*R2, R~ = R2*R (xGEQRF);
* with overwrite_qr/overwrite_qru, the update runs in place only when the
  array is F-contiguous, aligned, writeable and of native byte order, and
  the results are then views of the inputs (other arrays are copied); the
  contents of `u` afterwards are unspecified;
* rcond (economic column insertion) is checked for every inserted column,
  against Q and the columns before it, as SciPy does column by column;
  rcond <= 0 skips the check.
"""
import ctypes
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.linalg import LinAlgError

from . import _lib

__all__ = ["qr_insert", "qr_delete", "cho_logdet"]

_PREFIX = {"f": "s", "d": "d", "F": "c", "D": "z"}
_c_int = ctypes.c_int


def _fn(dtype, name):
    _lib.load_cpu_lapack()
    return getattr(_lib.load(), _PREFIX[dtype.char] + name)


def _i(v):
    return ctypes.byref(_c_int(int(v)))


def _p(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def _call(dtype, name, make_args):
    """Queries LWORK (make_args(work, -1)), then calls with the optimal WORK;
    returns nothing, raises on INFO < 0 (a bug here: arguments are checked
    before the call)."""
    fn = _fn(dtype, name)
    info = _c_int(0)
    q = np.zeros(1, dtype)
    fn(*make_args(q, _i(-1), ctypes.byref(info)))
    if info.value != 0:
        raise ValueError("hqr: %s%s workspace query: INFO = %d"
                         % (_PREFIX[dtype.char], name, info.value))
    lwork = max(1, int(q[0].real))
    work = np.empty(lwork, dtype)
    fn(*make_args(work, _i(lwork), ctypes.byref(info)))
    if info.value != 0:
        raise ValueError("hqr: %s%s: INFO = %d" % (_PREFIX[dtype.char], name, info.value))


_CH_U = ctypes.c_char_p(b"U")
_LEN1 = ctypes.c_size_t(1)


def _native(a):
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def _check_finite(a, check):
    # The sum first: one pass and no temporary array (a sum is finite only
    # where every term is); where it is not, an overflow or a non-finite
    # entry, the test entry by entry decides.
    if check and not np.isfinite(a.sum()) and not np.isfinite(a).all():
        raise ValueError("array must not contain infs or NaNs")


def _in_place_ok(a):
    return (a.flags.f_contiguous and a.flags.aligned and a.flags.writeable
            and a.dtype.isnative)


# Bytes per thread of a copy: below, fewer threads (starting one costs more).
_COPY_GRAIN = 1 << 25


def _grown(a, rows, cols):
    """A new Fortran-ordered (rows, cols) array of a's dtype (a 2-D, at most
    that large) with `a` in its top-left corner and zeros elsewhere, written
    in blocks of columns on several threads where it is large: numpy copies
    on one thread, and a new array's first touches (the kernel's page faults)
    cost as much as the copy itself (0.2 s per call for qr_insert's 16384 x
    4196 Q on the H200 host). numpy's copies release the GIL."""
    out = np.empty((rows, cols), a.dtype, order="F")
    ar, ac = a.shape

    def fill(c0, c1):
        e = min(c1, ac)
        if c0 < e:
            out[:ar, c0:e] = a[:, c0:e]
            out[ar:, c0:e] = 0
        if c1 > ac:
            out[:, max(c0, ac):c1] = 0

    threads = int(min(os.cpu_count() or 1, 16, cols, out.nbytes // _COPY_GRAIN))
    if threads <= 1:
        fill(0, cols)
        return out
    edges = [cols * i // threads for i in range(threads + 1)]
    with ThreadPoolExecutor(threads) as pool:
        for f in [pool.submit(fill, edges[i], edges[i + 1]) for i in range(threads)]:
            f.result()
    return out


def _work_copy(a, overwrite):
    """The array hqr updates: `a` itself when it may be overwritten and is
    usable in place, a Fortran-ordered copy otherwise."""
    if overwrite and isinstance(a, np.ndarray) and _in_place_ok(a):
        return a
    a = np.asarray(a)
    return _grown(a, *a.shape) if a.ndim == 2 else np.array(a, order="F", copy=True)


def _validate_qr(Q, R, check_finite):
    q = _native(np.asarray(Q))
    r = _native(np.asarray(R))
    if q.ndim != 2 or r.ndim != 2:
        raise ValueError("Q and R must be 2-D")
    if q.dtype != r.dtype:
        raise ValueError("Q and R must have the same dtype")
    if q.dtype.char not in _PREFIX:
        raise ValueError("Only arrays with dtypes float32, float64, "
                         "complex64, and complex128 are supported.")
    if q.shape[1] != r.shape[0]:
        raise ValueError("Q and R do not have compatible shapes. Expected (M,M) (M,N) "
                         "or (M,N) (N,N) but found %s %s for Q and R respectively"
                         % (q.shape, r.shape))
    economic = False
    if q.shape[0] != q.shape[1] and r.shape[0] == r.shape[1]:
        economic = True
    elif q.shape[0] != q.shape[1]:
        raise ValueError("Expected (M,M) (M,N) or (M,N) (N,N) but found %s %s "
                         "for Q and R respectively" % (q.shape, r.shape))
    if economic and q.shape[0] < q.shape[1]:
        raise ValueError("economic factors need M >= N; found Q %s" % (q.shape,))
    _check_finite(q, check_finite)
    _check_finite(r, check_finite)
    return q, r, economic


def qr_delete(Q, R, k, p=1, which="row", overwrite_qr=False, check_finite=True):
    """QR downdate on row or column deletions (scipy.linalg.qr_delete).

    If ``A = Q R``, returns the QR factors of A with the `p` rows or columns
    starting at `k` removed. Q is (M,M) and R (M,N) (full), or Q (M,N) and R
    (N,N) (economic). Negative `k` counts from the end. Full row deletion runs
    xQRUPD_DELROWS, column deletion xQRUPD_DELCOLS or xQRUPD_DELCOLS_ECON;
    economic row deletion is a QR of Q's remaining rows (no hqr routine).

    Returns (Q1, R1); the diagonal of R1 is not made positive.
    """
    if which not in ("row", "col"):
        raise ValueError("'which' must be either 'row' or 'col'")
    q, r, economic = _validate_qr(Q, R, check_finite)
    k = int(k)
    p = int(p)
    dt = q.dtype
    m = q.shape[0]
    n = r.shape[1]
    if which == "row":
        if not -m <= k < m:
            raise ValueError("'k' is out of bounds")
        if k < 0:
            k += m
        if k + p > m or p <= 0:
            raise ValueError("'p' is out of range")
        if p == m:
            return np.zeros((0, 0), dt), np.zeros((0, n), dt)
        if economic:
            keep = np.delete(q, np.s_[k:k + p], axis=0)
            q2, r2 = np.linalg.qr(keep)
            return (np.asarray(q2, dt, order="F"),
                    np.asarray(np.asarray(r2, dt) @ np.triu(r), dt, order="F"))
        qw = _work_copy(Q if overwrite_qr else q, overwrite_qr)
        rw = _work_copy(R if overwrite_qr else r, overwrite_qr)
        if qw.dtype != dt or rw.dtype != dt:
            qw, rw = np.array(q, order="F"), np.array(r, order="F")
        _call(dt, "qrupd_delrows_", lambda w, lw, info: (
            _i(m), _i(n), _i(p), _i(k + 1), _p(qw), _i(m), _p(rw), _i(m), _p(w), lw, info))
        return qw[:m - p, :m - p], rw[:m - p, :]
    if not -n <= k < n:
        raise ValueError("'k' is out of bounds")
    if k < 0:
        k += n
    if k + p > n or p <= 0:
        raise ValueError("'p' is out of range")
    qw = _work_copy(Q if overwrite_qr else q, overwrite_qr)
    rw = _work_copy(R if overwrite_qr else r, overwrite_qr)
    if qw.dtype != dt or rw.dtype != dt:
        qw, rw = np.array(q, order="F"), np.array(r, order="F")
    if economic:
        _call(dt, "qrupd_delcols_econ_", lambda w, lw, info: (
            _CH_U, _i(m), _i(n), _i(p), _i(k + 1), _p(qw), _i(m), _p(rw), _i(max(1, n)),
            _p(w), lw, info, _LEN1))
        return qw[:, :n - p], rw[:n - p, :n - p]
    _call(dt, "qrupd_delcols_", lambda w, lw, info: (
        _CH_U, _i(m), _i(n), _i(p), _i(k + 1), _p(qw), _i(m), _p(rw), _i(max(1, m)),
        _p(w), lw, info, _LEN1))
    return qw, rw[:, :n - p]


def _validate_u(u, dt, check_finite, which, m, n):
    u = _native(np.asarray(u))
    if u.dtype != dt:
        raise ValueError("'u' must have the same type as Q and R")
    if which == "row":
        if u.ndim not in (1, 2) or u.shape[-1] != n:
            raise ValueError("'u' should be either (N,) or (p,N) when inserting rows. "
                             "Found %s." % (u.shape,))
        u2 = u.reshape(1, n) if u.ndim == 1 else u
    else:
        if u.ndim not in (1, 2) or u.shape[0] != m:
            raise ValueError("'u' should be either (M,) or (M,p) when inserting columns. "
                             "Found %s." % (u.shape,))
        u2 = u.reshape(m, 1) if u.ndim == 1 else u
    if u2.size == 0:
        raise ValueError("'u' is empty")
    _check_finite(u2, check_finite)
    return np.array(u2, order="F", copy=True)


def _check_rcond(q, u, rcond):
    """SciPy's test for economic column insertion, column by column: with
    w = u_j/||u_j||, s its coefficients on Q and the columns inserted before
    it, and y = w - [Q, ...] s, the reciprocal condition number of Q augmented
    with w is ||y|| / (1 + ||s||) (Q orthonormal); below rcond is an error."""
    norms = np.linalg.norm(u, axis=0)
    w = u / np.where(norms == 0, 1, norms)
    s = q.conj().T @ w
    if norms.all() and _rcond_clear(q, w, s, rcond):
        return
    y = w - q @ s
    s2 = q.conj().T @ y                      # the second Gram-Schmidt pass
    y -= q @ s2
    s += s2
    ry = np.linalg.qr(y, mode="r")           # the inserted columns among themselves
    for j in range(u.shape[1]):
        coef = np.sqrt(np.linalg.norm(s[:, j]) ** 2 + np.linalg.norm(ry[:j, j]) ** 2)
        rc = abs(ry[j, j]) / (1 + coef)
        if norms[j] == 0 or rc < rcond:
            raise LinAlgError("One of the columns of u lies in the span of Q. Found "
                              "reciprocal condition number of %s for Q augmented with "
                              "u/||u||." % rc)


def _rcond_clear(q, w, s, rcond):
    """True when no column can fail _check_rcond's test, from one pass over Q
    (s = Q^H w) instead of its four products with Q and the QR of y (most of a
    qr_insert's time in numpy when Q is large). C = w^H w - s^H s is, in exact
    arithmetic with Q orthonormal, y's Gram matrix; its Cholesky pivots are the
    |y_jj|^2 of the test, each at least C's smallest eigenvalue, and the
    coefficients' norm is at most ||w|| = 1 there, so rc_j >= |y_jj| / 2. C's
    rounding errors are below err (s's entries are dot products of length m
    of unit vectors, each off by m eps at most; s^H s adds n of them times
    entries of s, whose column sums are at most sqrt(n): 2 m sqrt(n) eps an
    entry of C, p entries a row bound its norm). If C - (err + (2.2 rcond)^2) I
    has a Cholesky factor, every rc_j exceeds rcond. Nearly dependent columns,
    and single precision at large m, fail it and take the test's own steps."""
    m, n = q.shape
    p = w.shape[1]
    eps = np.finfo(w.dtype).eps
    c = w.conj().T @ w - s.conj().T @ s
    err = (2 * m * np.sqrt(n) + m + n + p) * p * eps
    mu = err + (2.2 * rcond) ** 2
    if not mu < 1:
        return False
    try:
        np.linalg.cholesky(c - mu * np.eye(p, dtype=c.dtype))
    except LinAlgError:
        return False
    return True


def qr_insert(Q, R, u, k, which="row", rcond=None, overwrite_qru=False, check_finite=True):
    """QR update on row or column insertions (scipy.linalg.qr_insert).

    If ``A = Q R``, returns the QR factors of A with the rows (u: (N,) or
    (p,N)) or columns (u: (M,) or (M,p)) of `u` inserted before row or column
    `k` (0 <= k <= M or N; negative counts from the end). Full factors use
    xQRUPD_ADDROWS / xQRUPD_ADDCOLS, economic ones (Q (M,N), R (N,N))
    xQRUPD_ADDROWS_ECON / xQRUPD_ADDCOLS_ECON; columns beyond M - N added to
    economic factors make them full, as in SciPy (Q (M,M), R (M,N+p)).

    rcond: economic column insertion only (None: the dtype's eps; <= 0 skips
    the check); LinAlgError when a column of u is (nearly) in the span of Q and
    the columns inserted before it.

    Returns (Q1, R1); the diagonal of R1 is not made positive.
    """
    if which not in ("row", "col"):
        raise ValueError("'which' must be either 'row' or 'col'")
    q, r, economic = _validate_qr(Q, R, check_finite)
    dt = q.dtype
    m = q.shape[0]
    n = r.shape[1]
    k = int(k)
    if which == "row":
        if rcond is not None:
            raise ValueError("'rcond' is unused when inserting rows and must be None")
        uw = _validate_u(u, dt, check_finite, "row", m, n)
        p = uw.shape[0]
        if not -m <= k <= m:
            raise ValueError("'k' is out of bounds")
        if k < 0:
            k += m
        if economic:
            qw = _grown(q, m + p, n)
            rw = _grown(r, n, n)
            _call(dt, "qrupd_addrows_econ_", lambda w, lw, info: (
                _CH_U, _i(m), _i(n), _i(p), _i(k + 1), _p(qw), _i(m + p), _p(rw), _i(max(1, n)),
                _p(uw), _i(p), _p(w), lw, info, _LEN1))
            return qw, rw
        qw = _grown(q, m + p, m + p)
        rw = _grown(r, m + p, n)
        _call(dt, "qrupd_addrows_", lambda w, lw, info: (
            _CH_U, _i(m), _i(n), _i(p), _i(k + 1), _p(qw), _i(m + p), _p(rw), _i(m + p),
            _p(uw), _i(p), _p(w), lw, info, _LEN1))
        return qw, rw

    uw = _validate_u(u, dt, check_finite, "col", m, n)
    p = uw.shape[1]
    if not -n <= k <= n:
        raise ValueError("'k' is out of bounds")
    if k < 0:
        k += n
    if rcond is not None and not economic:
        raise ValueError("'rcond' is not used when updating full, (M,M) (M,N) "
                         "decompositions and must be None.")
    if not economic:
        qw = _work_copy(Q if overwrite_qru else q, overwrite_qru)
        if qw.dtype != dt:
            qw = np.array(q, order="F")
        rw = _grown(r, m, n + p)
        _full_addcols(dt, m, n, p, k, qw, rw, uw)
        return qw, rw
    p_eco = min(p, m - n)
    p_full = p - p_eco
    if rcond is None:
        rcond = np.finfo(dt).eps
    if rcond > 0 and p_eco > 0:
        _check_rcond(q, uw[:, :p_eco], rcond)
    qw = _grown(q, m, n + p_eco)
    ldr = n + p_eco
    rw = _grown(r, ldr, n + p)
    if p_eco > 0:
        # uw is the call's own copy: no second one where it all goes in
        ue = uw if p_eco == p else np.array(uw[:, :p_eco], order="F")
        _call(dt, "qrupd_addcols_econ_", lambda w, lw, info: (
            _i(m), _i(n), _i(p_eco), _i(k + 1), _p(qw), _i(max(1, m)), _p(rw), _i(max(1, ldr)),
            _p(ue), _i(max(1, m)), _p(w), lw, info))
    if p_full > 0:
        # Q is square now (n + p_eco = m): the rest as a full update
        _full_addcols(dt, m, n + p_eco, p_full, k + p_eco, qw, rw,
                      np.array(uw[:, p_eco:], order="F"))
    return qw, rw


def _full_addcols(dt, m, n, p, k, qw, rw, uw):
    _call(dt, "qrupd_addcols_", lambda w, lw, info: (
        _i(m), _i(n), _i(p), _i(k + 1), _p(qw), _i(max(1, m)), _p(rw), _i(max(1, m)),
        _p(uw), _i(max(1, m)), _p(w), lw, info))


def cho_logdet(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factorization and log-determinant of a Hermitian positive
    definite matrix in one call (hqr's xPOLOGDET: xPOTRF, then
    log det(a) = 2 sum log(real(diag(factor))), summed without over- or
    underflow).

    Returns ``(logdet, (c, lower))``: the log-determinant (a real scalar of
    a's precision) and scipy.linalg.cho_factor's result (c holds the factor in
    its upper, or with lower=True lower, triangle; the other triangle is a's),
    ready for scipy.linalg.cho_solve. Only the one triangle of `a` is read.

    Raises LinAlgError when a is not positive definite, ValueError when it is
    not square or (check_finite) holds infs or NaNs.
    """
    a1 = _native(np.asarray(a))
    if a1.ndim != 2 or a1.shape[0] != a1.shape[1]:
        raise ValueError("expected square matrix")
    if a1.dtype.char not in _PREFIX:
        if a1.dtype.kind in "biuf":
            a1 = a1.astype(np.float64)
        elif a1.dtype.kind == "c":
            a1 = a1.astype(np.complex128)
        else:
            raise ValueError("unsupported dtype %s" % a1.dtype)
    _check_finite(a1, check_finite)
    dt = a1.dtype
    c = _work_copy(a if (overwrite_a and isinstance(a, np.ndarray) and a1 is a) else a1,
                   overwrite_a and a1 is a)
    n = c.shape[0]
    real = np.float32 if dt.char in "fF" else np.float64
    logdet = (ctypes.c_float if real is np.float32 else ctypes.c_double)(0.0)
    info = _c_int(0)
    uplo = ctypes.c_char_p(b"L" if lower else b"U")
    _fn(dt, "pologdet_")(uplo, _i(n), _p(c), _i(max(1, n)), ctypes.byref(logdet),
                         ctypes.byref(info), _LEN1)
    if info.value > 0:
        raise LinAlgError("%d-th leading minor of the array is not positive definite"
                          % info.value)
    if info.value < 0:
        raise ValueError("illegal value in %d-th argument of internal pologdet" % -info.value)
    return real(logdet.value), (c, bool(lower))
