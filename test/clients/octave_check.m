% Octave as Debian ships it (liboctave, linked with liblapack.so.3), run by
% test/clients.sh under LD_PRELOAD=libhqr.so. Fresh random matrices; each
% answer is checked by a LAPACK-style scaled residual against THRESH = 30:
%   chol                      (dpotrf)           |R'R - A| / (n |A| eps), R upper triangular
%   inv of a matrix marked    (dpotrf + dpotri)  |A X - I| / (n |A| |X| eps)
%     matrix_type(A, 'positive definite')
%   qr(M, 0)                  (dgeqrf + dorgqr)  |Q R - M| / (m |M| eps), |Q'Q - I| / (m eps)
% Prints TAP lines "ok - LABEL: ..." / "not ok - LABEL: ..." and the seed
% (HQR_SEED=<seed> reruns the same data). Usage: octave-cli octave_check.m LABEL
1;

function check(label, what, ratio)
  if ratio < 30  % a NaN fails
    status = 'ok';
  else
    status = 'not ok';
  end
  printf('%s - %s: %s ratio=%.3g\n', status, label, what, ratio);
end

args = argv();
label = args{1};
seed = str2double(getenv('HQR_SEED'));
if isnan(seed)
  seed = randi(2^31 - 1);  % rand's own state is seeded from the clock and entropy
end
randn('state', seed);
printf('# %s: Octave %s, seed %d\n', label, version(), seed);

n = 300;
m = 400;
B = randn(n);
A = B' * B + n * eye(n);
R = chol(A);
ratio = norm(R' * R - A, 1) / (n * norm(A, 1) * eps);
if ~istriu(R)
  ratio = Inf;
end
check(label, 'chol (dpotrf) R''R = A', ratio);

AP = matrix_type(A, 'positive definite');
X = inv(AP);
check(label, 'inv of a positive definite matrix (dpotrf + dpotri) A inv(A) = I', ...
      norm(A * X - eye(n), 1) / (n * norm(A, 1) * norm(X, 1) * eps));

M = randn(m, n);
[Q, R] = qr(M, 0);
ratio = norm(Q * R - M, 1) / (m * norm(M, 1) * eps);
if ~istriu(R)
  ratio = Inf;
end
check(label, 'qr (dgeqrf + dorgqr) Q R = M', ratio);
check(label, 'qr (dgeqrf + dorgqr) Q''Q = I', norm(Q' * Q - eye(n), 1) / (m * eps));
