"""hqr.linalg against SciPy: the parametrization of SciPy's own QR-update tests
(scipy/linalg/tests/test_decomp_update.py: shapes sqr, tall, fat, Mx1, 1xN,
1x1; full and economic; every position; 1 and p rows/columns; dtypes f d F D;
overwrite flags; strided, negatively strided and byte-swapped inputs; the
errors), written again against hqr.linalg, and cho_logdet against numpy's
slogdet. Each case: Q1 @ R1 equals the updated A, Q1 orthonormal, R1 upper
triangular (SciPy's tolerances), shapes and dtype equal to SciPy's results
(when SciPy is importable). Prints TAP lines "ok - ..." / "not ok - ...".
"""
import itertools
import sys
import traceback

import numpy as np

import hqr.linalg as hl

try:
    import scipy.linalg as sl
except ImportError:
    sl = None

failed = 0


def report(ok, what, detail=""):
    global failed
    if ok:
        print("ok - %s" % what)
    else:
        failed += 1
        print("not ok - %s" % what)
        if detail:
            print("  " + detail.replace("\n", "\n  "))


def tols(dt):
    return 10.0 ** -(np.finfo(dt).precision - 2), 10 * np.finfo(dt).eps


def check_qr(q, r, a, dt, square):
    rtol, atol = tols(dt)
    if q.dtype != dt or r.dtype != dt:
        return "dtype %s %s" % (q.dtype, r.dtype)
    if square and q.shape[0] != q.shape[1]:
        return "Q not square: %s" % (q.shape,)
    if not np.allclose(q.conj().T @ q, np.eye(q.shape[1]), rtol=rtol, atol=atol):
        return "Q not orthonormal"
    mask = np.tri(r.shape[0], r.shape[1], -1, bool)
    if not np.allclose(r[mask], 0, rtol=rtol, atol=2 * np.finfo(dt).eps):
        return "R not upper triangular"
    if not np.allclose(q @ r, a, rtol=rtol, atol=atol):
        return "Q R != A: %g" % np.abs(q @ r - a).max()
    return None


SHAPES = {"sqr": (8, 8), "tall": (12, 7), "fat": (7, 12), "Mx1": (8, 1), "1xN": (1, 8), "1x1": (1, 1)}


def generate(kind, dt, mode="full", which=None, p=1):
    np.random.seed(29382)
    a = np.random.random(SHAPES[kind])
    if dt.kind == "c":
        a = a + 1j * np.random.random(a.shape)
    a = a.astype(dt)
    q, r = np.linalg.qr(a, mode="complete" if mode == "full" else "reduced")
    q, r = q.astype(dt), r.astype(dt)
    if which is None:
        return a, q, r
    shape = (a.shape[1],) if which == "row" else (a.shape[0],)
    if p > 1:
        shape = (p, a.shape[1]) if which == "row" else (a.shape[0], p)
    u = np.random.random(shape)
    if dt.kind == "c":
        u = u + 1j * np.random.random(shape)
    return a, q, r, u.astype(dt)


class Group:
    def __init__(self, name):
        self.name, self.n, self.errors = name, 0, []

    def case(self, desc, fn):
        self.n += 1
        try:
            err = fn()
        except Exception:
            err = traceback.format_exc(limit=3)
        if err:
            self.errors.append("%s: %s" % (desc, err))

    def done(self):
        report(not self.errors, "%s (%d cases)" % (self.name, self.n), "\n".join(self.errors[:5]))


def same_shapes(res, ref):
    if ref is None:
        return None
    if res[0].shape != ref[0].shape or res[1].shape != ref[1].shape:
        return "shapes %s %s, SciPy's %s %s" % (res[0].shape, res[1].shape, ref[0].shape, ref[1].shape)
    return None


def delete_case(q, r, a, dt, k, p, which, square):
    def run():
        res = hl.qr_delete(q, r, k, p, which, overwrite_qr=False)
        ref = sl.qr_delete(q, r, k, p, which) if sl else None
        axis = 0 if which == "row" else 1
        n = a.shape[axis]
        kk = k + n if k < 0 else k
        a1 = np.delete(a, np.s_[kk:kk + p], axis)
        return same_shapes(res, ref) or check_qr(res[0], res[1], a1, dt, square)
    return run


def insert_case(q, r, u, a, dt, k, which, square):
    def run():
        u0 = u.copy()
        res = hl.qr_insert(q, r, u, k, which, overwrite_qru=False)
        ref = sl.qr_insert(q, r, u0.copy(), k, which) if sl else None
        if not np.array_equal(u, u0):
            return "u changed without overwrite_qru"
        axis = 0 if which == "row" else 1
        p = 1 if u.ndim == 1 else (u.shape[0] if which == "row" else u.shape[1])
        a1 = np.insert(a, k if p == 1 else np.full(p, k, np.intp), u if which == "row" or p == 1 else u, axis)
        return same_shapes(res, ref) or check_qr(res[0], res[1], a1, dt, square)
    return run


def strided(arrs):
    out = []
    for i, a in enumerate(arrs):
        s = [(3, 7), (2, 2), (3, 4), (4, 2)][i % 4]
        if a.ndim == 1:
            base = np.zeros(s[0] * a.shape[0] + s[1], a.dtype)
            v = base[s[1]::s[0]]
        else:
            base = np.zeros((s[0] * a.shape[0] + s[1], 2 * a.shape[1] + 1), a.dtype)
            v = base[s[1]::s[0], 1::2]
        v[...] = a
        out.append(v)
    return out


def negated(arrs):
    out = []
    for a in arrs:
        b = np.zeros_like(a)[(slice(None, None, -1),) * a.ndim]
        b[...] = a
        out.append(b)
    return out


def swapped(arrs):
    return [a.astype(a.dtype.newbyteorder()) for a in arrs]


def main():
    for dt in map(np.dtype, "fdFD"):
        # ---- qr_delete --------------------------------------------------------
        g = Group("qr_delete %s: rows and columns, 1 and p at every position, sqr/tall/fat/Mx1/1xN, full and economic" % dt.char)
        for kind, mode in [("sqr", "full"), ("tall", "full"), ("fat", "full"), ("Mx1", "full"),
                           ("1xN", "full"), ("tall", "economic"), ("Mx1", "economic")]:
            a, q, r = generate(kind, dt, mode)
            square = mode == "full"
            m, n = a.shape
            for which, size in (("row", m), ("col", n)):
                if (kind == "1xN" and which == "row") or (kind == "Mx1" and which == "col" and mode == "full"):
                    continue
                for p in [1] + list(range(2, 6)) + ([7] if mode == "economic" and which == "row" else []):
                    for k in range(size - p + 1) if p > 1 else range(size):
                        if p > 1 and k + p >= size and not (mode == "economic" and which == "row"):
                            continue
                        g.case("%s %s %s k=%d p=%d" % (kind, mode, which, k, p),
                               delete_case(q, r, a, dt, k, p, which, square))
            for k, p, w in itertools.product([-3, -7], [1, 3], ["row", "col"]):
                if kind == "sqr":
                    g.case("negative k=%d p=%d %s" % (k, p, w), delete_case(q, r, a, dt, k, p, w, True))
        g.done()

        g = Group("qr_delete %s: every row or column deleted (empty results, SciPy's shapes)" % dt.char)
        for kind, mode, which, p in [("1xN", "full", "row", 1), ("tall", "full", "row", 12),
                                     ("tall", "economic", "row", 12), ("Mx1", "economic", "col", 1),
                                     ("Mx1", "full", "col", 1), ("tall", "full", "col", 7),
                                     ("tall", "economic", "col", 7), ("1x1", "full", "row", 1),
                                     ("1x1", "full", "col", 1)]:
            a, q, r = generate(kind, dt, mode)
            def run(q=q, r=r, which=which, p=p):
                res = hl.qr_delete(q, r, 0, p, which)
                ref = sl.qr_delete(q, r, 0, p, which) if sl else None
                return same_shapes(res, ref) or (None if res[0].dtype == dt else "dtype")
            g.case("%s %s %s p=%d" % (kind, mode, which, p), run)
        g.done()

        g = Group("qr_delete %s: strided, negatively strided, byte-swapped inputs; overwrite_qr" % dt.char)
        for adjust, (which, p) in itertools.product([strided, negated, swapped],
                                                    [("row", 1), ("row", 3), ("col", 1), ("col", 3)]):
            for kind in ("sqr", "tall", "fat"):
                a, q0, r0 = generate(kind, dt)
                qs, rs = adjust([q0, r0])
                g.case("%s %s %s p=%d" % (adjust.__name__, kind, which, p),
                       delete_case(qs, rs, a, dt, 1, p, which, True))
        for which, p, mode in [("row", 1, "full"), ("row", 3, "full"), ("col", 1, "full"),
                               ("col", 3, "full"), ("row", 1, "economic"), ("col", 3, "economic")]:
            a, q0, r0 = generate("sqr" if mode == "full" else "tall", dt, mode)
            axis = 0 if which == "row" else 1
            a1 = np.delete(a, np.s_[3:3 + p], axis)
            for order in "FC":
                def run(order=order, which=which, p=p, mode=mode):
                    q, r = q0.copy(order), r0.copy(order)
                    q1, r1 = hl.qr_delete(q, r, 3, p, which, overwrite_qr=True)
                    err = check_qr(q1, r1, a1, dt, mode == "full")
                    if err:
                        return err
                    inplace = order == "F" and not (mode == "economic" and which == "row")
                    if inplace and not (np.shares_memory(q1, q) and np.shares_memory(r1, r)):
                        return "F-ordered Q and R not updated in place"
                    return None
                g.case("overwrite %s %s p=%d %s" % (order, which, p, mode), run)
        g.done()

        # ---- qr_insert --------------------------------------------------------
        g = Group("qr_insert %s: rows and columns, 1 and p at every position, sqr/tall/fat/Mx1/1xN/1x1, full and economic" % dt.char)
        cases = []
        for kind in SHAPES:
            for which in ("row", "col"):
                for p in (1, 3):
                    cases.append((kind, "full", which, p))
        cases += [("tall", "full", "col", 5), ("tall", "full", "col", 7), ("fat", "full", "row", 5),
                  ("fat", "full", "row", 7), ("tall", "economic", "row", 1), ("tall", "economic", "row", 3),
                  ("tall", "economic", "col", 1), ("tall", "economic", "col", 3),
                  ("tall", "economic", "col", 5), ("tall", "economic", "col", 7),
                  ("Mx1", "economic", "row", 1), ("Mx1", "economic", "row", 3),
                  ("Mx1", "economic", "col", 1), ("Mx1", "economic", "col", 3)]
        for kind, mode, which, p in cases:
            a, q, r, u = generate(kind, dt, mode, which, p)
            size = a.shape[0] if which == "row" else a.shape[1]
            for k in range(size + 1):
                g.case("%s %s %s p=%d k=%d" % (kind, mode, which, p, k),
                       insert_case(q, r, u, a, dt, k, which, mode == "full"))
        g.done()

        g = Group("qr_insert %s: strided, negatively strided, byte-swapped inputs; overwrite_qru" % dt.char)
        for adjust, (which, p) in itertools.product([strided, negated, swapped],
                                                    [("row", 1), ("row", 3), ("col", 1), ("col", 3)]):
            for kind in ("sqr", "tall", "fat"):
                a, q0, r0, u0 = generate(kind, dt, "full", which, p)
                qs, rs, us = adjust([q0, r0, u0])
                g.case("%s %s %s p=%d" % (adjust.__name__, kind, which, p),
                       insert_case(qs, rs, us, a, dt, 0, which, True))
        for p in (1, 3):
            a, q0, r0, u0 = generate("sqr", dt, "full", "col", p)
            a1 = np.insert(a, 0 if p == 1 else np.zeros(p, np.intp), u0, 1)
            for order in "FC":
                def run(order=order, p=p):
                    q = q0.copy(order)
                    q1, r1 = hl.qr_insert(q, r0, u0.copy(), 0, "col", overwrite_qru=True)
                    err = check_qr(q1, r1, a1, dt, True)
                    if err:
                        return err
                    if order == "F" and q1 is not q:
                        return "F-ordered Q not updated in place"
                    return None
                g.case("overwrite_qru %s p=%d" % (order, p), run)
        g.done()

        # ---- errors -------------------------------------------------------------
        g = Group("qr_insert/qr_delete %s: SciPy's errors (which, k, p, empty, shapes, dtypes, check_finite, scalars, rcond)" % dt.char)

        def raises(exc, fn, *args, **kw):
            def run():
                try:
                    fn(*args, **kw)
                except exc:
                    return None
                except Exception as e:
                    return "raised %r, expected %s" % (e, exc.__name__)
                return "did not raise %s" % exc.__name__
            return run
        a, q, r = generate("tall", dt)
        g.case("bad which", raises(ValueError, hl.qr_delete, q, r, 0, which="foo"))
        g.case("bad which insert", raises(ValueError, hl.qr_insert, q, r, r[0], 0, which="foo"))
        for k, w in [(q.shape[0], "row"), (-q.shape[0] - 1, "row"), (r.shape[0], "col"), (-r.shape[0] - 1, "col")]:
            g.case("delete bad k=%d %s" % (k, w), raises(ValueError, hl.qr_delete, q, r, k, 1, w))
        for p, w in [(-1, "row"), (-1, "col"), (0, "row"), (0, "col"), (q.shape[0] - 2, "row"), (r.shape[1] - 2, "col")]:
            g.case("delete bad p=%d %s" % (p, w), raises(ValueError, hl.qr_delete, q, r, 3 if p > 0 else 0, p, w))
        g.case("delete empty Q", raises(ValueError, hl.qr_delete, np.array([]), r, 0, 1))
        g.case("delete empty R", raises(ValueError, hl.qr_delete, q, np.array([]), 0, 1))
        g.case("delete mismatched", raises(ValueError, hl.qr_delete, q, r[1:], 0, 1))
        a, q, r, u = generate("sqr", dt, "full", "row", 3)
        for w in ("row", "col"):
            g.case("insert empty Q %s" % w, raises(ValueError, hl.qr_insert, np.array([]), r, u, 0, w))
            g.case("insert empty R %s" % w, raises(ValueError, hl.qr_insert, q, np.array([]), u, 0, w))
            g.case("insert empty u %s" % w, raises(ValueError, hl.qr_insert, q, r, np.array([]), 0, w))
            g.case("insert k beyond %s" % w, raises(ValueError, hl.qr_insert, q, r, u, 9, w))
        a, q, r, u = generate("tall", dt, "full", "row")
        for w in ("row", "col"):
            g.case("mismatched R %s" % w, raises(ValueError, hl.qr_insert, q, r[1:], u, 0, w))
            g.case("mismatched Q %s" % w, raises(ValueError, hl.qr_insert, q[:-2], r, u, 0, w))
            g.case("mismatched u %s" % w, raises(ValueError, hl.qr_insert, q, r, u[1:], 0, w))
        a, q0, r0, u0 = generate("sqr", dt, "full", "row")
        for bad in ["int8", "int64", "uint32", "float16", "longdouble", "bool"]:
            qb, ub = q0.real.astype(bad), u0.real.astype(bad)
            with np.errstate(invalid="ignore"):
                rb = r0.real.astype(bad)
            for w in ("row", "col"):
                g.case("insert %s Q %s" % (bad, w), raises(ValueError, hl.qr_insert, qb, r0, u0, 0, w))
                g.case("insert %s R %s" % (bad, w), raises(ValueError, hl.qr_insert, q0, rb, u0, 0, w))
                g.case("insert %s u %s" % (bad, w), raises(ValueError, hl.qr_insert, q0, r0, ub, 0, w))
                g.case("delete %s Q %s" % (bad, w), raises(ValueError, hl.qr_delete, qb, r0, 0, 1, w))
                g.case("delete %s R %s" % (bad, w), raises(ValueError, hl.qr_delete, q0, rb, 0, 2, w))
        a, q0, r0, u0 = generate("sqr", dt, "full", "row", 3)
        for what in ("Q", "R", "u"):
            q, r, u = q0.copy("F"), r0.copy("F"), u0.copy("F")
            {"Q": q, "R": r, "u": u}[what][1 if what != "u" else 0, 1 if what != "u" else 0] = np.nan
            for w in ("row", "col"):
                g.case("check_finite %s insert %s" % (what, w), raises(ValueError, hl.qr_insert, q, r, u, 0, w))
                if what != "u":
                    g.case("check_finite %s delete %s" % (what, w), raises(ValueError, hl.qr_delete, q, r, 0, 3, w))
        a, q, r, u = generate("1x1", dt, "full", "row")
        for w in ("row", "col"):
            g.case("scalar Q %s" % w, raises(ValueError, hl.qr_insert, q[0, 0], r, u, 0, w))
            g.case("scalar R %s" % w, raises(ValueError, hl.qr_insert, q, r[0, 0], u, 0, w))
            g.case("scalar u %s" % w, raises(ValueError, hl.qr_insert, q, r, u[0], 0, w))
            g.case("scalar Q delete %s" % w, raises(ValueError, hl.qr_delete, q[0, 0], r, 0, 1, w))
        q, r = np.eye(5, 3, dtype=dt), np.eye(3, dtype=dt)
        g.case("economic column in span(Q): LinAlgError",
               raises(np.linalg.LinAlgError, hl.qr_insert, q, r, np.array([1, 0, 0, 0, 0], dt), 0, "col"))
        g.case("economic block with a column in span(Q): LinAlgError",
               raises(np.linalg.LinAlgError, hl.qr_insert, q, r,
                      np.array([[0, 1], [0, 0], [0, 0], [1, 0], [0, 0]], dt), 1, "col"))
        g.case("economic block with dependent columns: LinAlgError",
               raises(np.linalg.LinAlgError, hl.qr_insert, q, r,
                      np.array([[0, 0], [0, 0], [0, 0], [1, 2], [1, 2]], dt), 1, "col"))
        g.case("rcond with rows: ValueError", raises(ValueError, hl.qr_insert, q, r, np.ones(3, dt), 0, "row", rcond=1e-3))
        g.case("rcond with full factors: ValueError",
               raises(ValueError, hl.qr_insert, np.eye(3, dtype=dt), r, np.ones(3, dt), 0, "col", rcond=1e-3))
        def rcond_off():
            # a column in span(Q) up to rounding
            np.random.seed(1)
            a = np.random.random((20, 5)).astype(dt)
            q, r = np.linalg.qr(a)
            u = (a[:, :2] @ np.random.random(2)).astype(dt)
            q1, r1 = hl.qr_insert(q.astype(dt), r.astype(dt), u, 2, "col", rcond=0)
            return check_qr(q1, r1, np.insert(a, 2, u, 1), dt, False)
        g.case("rcond=0 skips the check (a column in span(Q) up to rounding)", rcond_off)
        def exact_span(u, k):
            # an exactly zero residual: Q orthonormal all the same, R's diagonal 0
            q, r = np.eye(5, 3, dtype=dt), np.eye(3, dtype=dt)
            u = np.array(u, dt).reshape(5, -1)
            q1, r1 = hl.qr_insert(q, r, u if u.shape[1] > 1 else u[:, 0], k, "col", rcond=0)
            return check_qr(q1, r1, np.insert(np.eye(5, 3, dtype=dt), [k] * u.shape[1], u, 1), dt, False)
        g.case("rcond=0, u = e1 with Q = eye(5, 3) appended", lambda: exact_span([1, 0, 0, 0, 0], 3))
        g.case("rcond=0, u = e1 with Q = eye(5, 3) first", lambda: exact_span([1, 0, 0, 0, 0], 0))
        g.case("rcond=0, a block in span(Q) and dependent columns",
               lambda: exact_span([[0, 1, 0], [0, 0, 0], [0, 0, 0], [1, 0, 2], [1, 0, 2]], 1))
        g.done()

        # ---- rcond's one-pass screen (hl._rcond_clear) ----------------------------
        g = Group("qr_insert %s economic: rcond's one-pass screen never clears what the column-by-column test "
                  "rejects, and clears well-separated columns" % dt.char)
        rng = np.random.default_rng()                       # fresh data every run
        def gauss(*shape):
            return rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dt.kind == "c" else 0)
        for beta in (1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-13, 1e-16, 0):
            for rcond in (None, 1e-10, 1e-5, 1e-3, 0.1, 0.45):
                def screen(beta=beta, rcond=rcond):
                    m, n, p = 60, 10, 4
                    q, r = np.linalg.qr(gauss(m, n).astype(dt))
                    z = gauss(m, p)
                    u = (q @ rng.standard_normal((n, p)).astype(dt) + beta * z).astype(dt)
                    u[:, p - 1] = u[:, 0] + beta * z[:, p - 1]     # the block's last column near its first as well
                    rc = np.finfo(dt).eps if rcond is None else rcond
                    norms = np.linalg.norm(u, axis=0)
                    w = u / norms
                    cleared = hl._rcond_clear(q, w, q.conj().T @ w, rc)
                    def verdict():
                        try:
                            hl.qr_insert(q, r, u, 3, "col", rcond=rcond)
                            return "accepted"
                        except np.linalg.LinAlgError:
                            return "rejected"
                    fast = verdict()
                    clear = hl._rcond_clear
                    hl._rcond_clear = lambda *a: False         # the column-by-column test alone
                    try:
                        full = verdict()
                    finally:
                        hl._rcond_clear = clear
                    if fast != full:
                        return "with the screen %s, without it %s (screen cleared: %s)" % (fast, full, cleared)
                    if cleared and full == "rejected":
                        return "the screen cleared a block the test rejects"
                    if beta == 1 and rcond in (None, 1e-10) and not cleared:
                        return "the screen did not clear well-separated columns"
                    if beta <= 1e-10 and cleared:
                        return "the screen cleared nearly dependent columns (beta %g)" % beta
                    return None
                g.case("beta %g, rcond %s" % (beta, rcond), screen)
        g.done()

        # ---- cho_logdet ---------------------------------------------------------
        g = Group("cho_logdet %s: against numpy's slogdet, the factor with cho_solve, errors" % dt.char)
        for n in (0, 1, 5, 64, 200):
            for lower in (False, True):
                def run(n=n, lower=lower):
                    np.random.seed(n)
                    x = np.random.random((n, n)) + (1j * np.random.random((n, n)) if dt.kind == "c" else 0)
                    a = (x @ x.conj().T + n * np.eye(n)).astype(dt)
                    ld, (c, low) = hl.cho_logdet(a, lower=lower)
                    ref = np.linalg.slogdet(a.astype(np.complex128 if dt.kind == "c" else np.float64))[1]
                    rtol = 1e-4 if dt.char in "fF" else 1e-12
                    if not np.isclose(ld, ref, rtol=rtol, atol=rtol):
                        return "logdet %r, slogdet %r" % (ld, ref)
                    if low != lower or c.dtype != dt:
                        return "factor tuple"
                    if sl is not None and n > 0:
                        b = np.ones(n, dt)
                        x = sl.cho_solve((c, low), b)
                        if not np.allclose(a @ x, b, rtol=rtol * 10, atol=rtol * 10):
                            return "cho_solve with the factor"
                    return None
                g.case("n=%d lower=%s" % (n, lower), run)
        g.case("not positive definite: LinAlgError",
               raises(np.linalg.LinAlgError, hl.cho_logdet, np.diag(np.array([1, -1, 1], dt))))
        g.case("not square: ValueError", raises(ValueError, hl.cho_logdet, np.ones((3, 2), dt)))
        g.case("NaN: ValueError", raises(ValueError, hl.cho_logdet, np.full((2, 2), np.nan, dt)))
        g.done()
    return 1 if failed else 0


if __name__ == "__main__":
    if sl is None:
        print("# SciPy not importable: shapes are not compared with SciPy's")
    sys.exit(main())
