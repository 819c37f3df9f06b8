"""pip's numpy and SciPy through hqr (test/pip_wheels.sh runs this).

    pip_wheels.py run SEED OUT.npz    the calls below on data drawn from SEED;
                                      before each call a line "# call NAME" on
                                      stderr, so HQR_VERBOSE's lines fall
                                      into the section of the call that made them
    pip_wheels.py compare PLAIN.npz HQR.npz
                                      TAP lines: every result of the hqr run
                                      checked on its own (residuals) and
                                      against the plain run
"""
import sys

import numpy as np

# call: relative tolerance of its result against the plain run
CALLS = {
    "np_cholesky": 1e-10,
    "np_qr": 1e-10,
    "np_lstsq": 1e-9,
    "np_inv": 1e-9,
    "sp_cho_factor": 1e-10,
    "sp_qr": 1e-10,
    "sp_lstsq": 1e-9,
}


def mark(name):
    sys.stderr.flush()
    sys.stderr.write("# call %s\n" % name)
    sys.stderr.flush()


def run(seed, out):
    import scipy.linalg

    rng = np.random.default_rng(seed)
    n, m, k = 400, 500, 300
    g = rng.standard_normal((n, n))
    spd = g @ g.T + n * np.eye(n)  # eigenvalues in [n, ~5n]: well conditioned
    tall = rng.standard_normal((m, k))  # Gaussian 500 x 300: condition about 10
    rhs = rng.standard_normal(m)
    res = {"spd": spd, "tall": tall, "rhs": rhs}

    mark("np_cholesky")
    res["np_cholesky"] = np.linalg.cholesky(spd)
    mark("np_qr")
    res["np_qr_q"], res["np_qr_r"] = np.linalg.qr(tall)
    mark("np_lstsq")
    res["np_lstsq"] = np.linalg.lstsq(tall, rhs, rcond=None)[0]
    mark("np_inv")
    res["np_inv"] = np.linalg.inv(spd)
    mark("sp_cho_factor")
    c, lower = scipy.linalg.cho_factor(spd)
    res["sp_cho_factor"] = np.tril(c) if lower else np.triu(c)
    mark("sp_qr")
    res["sp_qr_q"], res["sp_qr_r"] = scipy.linalg.qr(tall)
    mark("sp_lstsq")
    res["sp_lstsq"] = scipy.linalg.lstsq(tall, rhs)[0]
    mark("end")
    np.savez(out, **res)


def rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def signs(q, r):
    """Q's first N columns and R's first N rows (N = R's columns), with R's
    diagonal made nonnegative: these are unique up to those signs; the rest of
    a full Q is checked by orthogonality alone."""
    d = np.sign(np.diag(r))
    d[d == 0] = 1
    k = len(d)
    return q[:, :k] * d, r[:k] * d[:, None]


def compare(plain_file, hqr_file):
    p, h = np.load(plain_file), np.load(hqr_file)
    eps = np.finfo(float).eps
    spd, tall, rhs = h["spd"], h["tall"], h["rhs"]
    checks = []
    for key in ("spd", "tall", "rhs"):
        checks.append(("the input data (%s)" % key, np.array_equal(p[key], h[key]), ""))

    for name in ("np_cholesky", "sp_cho_factor"):
        f = h[name]
        # np: lower factor (A = L L^T); SciPy's cho_factor: upper by default (A = U^T U)
        prod = f @ f.T if np.allclose(f, np.tril(f)) else f.T @ f
        r = rel(prod, spd)
        d = rel(f, p[name])
        checks.append((name, r < 100 * spd.shape[0] * eps and d < CALLS[name],
                       "residual %.1e, vs plain %.1e" % (r, d)))

    for name in ("np_qr", "sp_qr"):
        q, r = h[name + "_q"], h[name + "_r"]
        res = rel(q @ r, tall)
        orth = np.linalg.norm(q.T @ q - np.eye(q.shape[1])) / np.sqrt(q.shape[1])
        qh, rh = signs(q, r)
        qp, rp = signs(p[name + "_q"], p[name + "_r"])
        d = max(rel(qh, qp), rel(rh, rp))
        checks.append((name, res < 100 * tall.shape[0] * eps and orth < 100 * tall.shape[0] * eps
                       and d < CALLS[name],
                       "residual %.1e, orthogonality %.1e, vs plain %.1e" % (res, orth, d)))

    for name in ("np_lstsq", "sp_lstsq"):
        x = h[name]
        # normal equations' residual: A^T (b - A x) = 0 at the minimum
        ne = np.linalg.norm(tall.T @ (rhs - tall @ x)) / (np.linalg.norm(tall) ** 2 * np.linalg.norm(x))
        d = rel(x, p[name])
        checks.append((name, ne < 100 * tall.shape[0] * eps and d < CALLS[name],
                       "normal-equation residual %.1e, vs plain %.1e" % (ne, d)))

    x = h["np_inv"]
    r = np.linalg.norm(spd @ x - np.eye(spd.shape[0])) / (np.linalg.norm(spd) * np.linalg.norm(x))
    d = rel(x, p["np_inv"])
    checks.append(("np_inv", r < 100 * spd.shape[0] * eps and d < CALLS["np_inv"],
                   "residual %.1e, vs plain %.1e" % (r, d)))

    failed = 0
    for name, good, detail in checks:
        print("%s - pip_wheels: %s agrees with the plain run%s" % (
            "ok" if good else "not ok", name, " (%s)" % detail if detail else ""))
        failed += not good
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
