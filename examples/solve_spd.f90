! solve_spd — a plain LAPACK program, the kind hqr is meant to speed up
! without a rebuild. Nothing in it knows about hqr: it is built with
!     gfortran -O2 solve_spd.f90 -o solve_spd -llapack
! and run either as it is or with LD_PRELOAD=/path/to/libhqr.so.
!
! usage: solve_spd [n]        (default n = 4000)
!
! 1. Cholesky: builds a symmetric positive definite n-by-n system A x = b with
!    a known solution, solves it with DPOTRF + DPOTRS.
! 2. Least squares: builds an n-by-(n/4) overdetermined problem, solves
!    min ||b - A x|| with DGEQRF + DORMQR + DTRTRS.
! Prints the time of each step, a scaled residual and a checksum (the sum of
! |solution|), one "key=value" line per problem; exit status 1 when a
! residual is too large or INFO is not 0.
program solve_spd
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: n, m, k, nargs, info, lwork, i, j
  character(len=32) :: arg
  real(dp), allocatable :: a(:, :), b(:), x(:), xtrue(:), d(:), q(:, :), c(:), r(:), tau(:), work(:)
  real(dp) :: t0, t1, t2, eps, anorm, resid, err, wq(1)
  integer(8) :: seed
  logical :: bad
  real(dp), external :: dlamch
  external :: dpotrf, dpotrs, dgeqrf, dormqr, dtrtrs

  n = 4000
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  eps = dlamch('E')
  seed = 12345_8
  bad = .false.

  ! ---- 1. Cholesky: A x = b, A SPD (diagonally dominant), x known ----------
  allocate (a(n, n), b(n), x(n), xtrue(n), d(n))
  do j = 1, n
    do i = 1, j - 1
      a(i, j) = rnd()
      a(j, i) = a(i, j)
    end do
    a(j, j) = n + abs(rnd())
    d(j) = a(j, j)
    xtrue(j) = 1.0_dp + mod(j, 7) / 7.0_dp
  end do
  anorm = 0
  do j = 1, n
    anorm = max(anorm, sum(abs(a(:, j))))
  end do
  b = 0
  do j = 1, n
    b = b + a(:, j) * xtrue(j)
  end do
  x = b
  t0 = now()
  call dpotrf('L', n, a, n, info)       ! the lower triangle becomes L
  t1 = now()
  if (info == 0) call dpotrs('L', n, 1, a, n, x, n, info)
  t2 = now()
  ! The strict upper triangle still holds A (symmetric), d its diagonal:
  ! r = b - A x, column by column.
  allocate (r(n))
  r = b - d * x
  do j = 2, n
    r(1:j - 1) = r(1:j - 1) - a(1:j - 1, j) * x(j)
    r(j) = r(j) - dot_product(a(1:j - 1, j), x(1:j - 1))
  end do
  resid = maxval(abs(r))
  resid = resid / (anorm * maxval(abs(x)) * n * eps)
  err = maxval(abs(x - xtrue)) / maxval(abs(xtrue))
  write (*, '(a,i0,a,f0.3,a,f0.3,a,es9.2,a,es9.2,a,es23.16,a,i0)') 'cholesky n=', n, &
    ' dpotrf=', t1 - t0, 's dpotrs=', t2 - t1, 's residual=', resid, ' error=', err, &
    ' checksum=', sum(abs(x)), ' info=', info
  bad = bad .or. info /= 0 .or. .not. (resid < 30)
  deallocate (a, b, x, xtrue, d, r)

  ! ---- 2. Least squares: min || b - A x ||, A m-by-k, m = n, k = n/4 -------
  m = n
  k = max(1, n / 4)
  allocate (a(m, k), q(m, k), b(m), c(m), r(m), tau(k))
  do j = 1, k
    do i = 1, m
      a(i, j) = rnd()
    end do
  end do
  do i = 1, m
    b(i) = rnd()
  end do
  q = a
  c = b
  call dgeqrf(m, k, q, m, tau, wq, -1, info)
  lwork = int(wq(1))
  call dormqr('L', 'T', m, 1, k, q, m, tau, c, m, wq, -1, info)
  lwork = max(lwork, int(wq(1)), 1)
  allocate (work(lwork))
  t0 = now()
  call dgeqrf(m, k, q, m, tau, work, lwork, info)            ! A = Q R
  t1 = now()
  if (info == 0) call dormqr('L', 'T', m, 1, k, q, m, tau, c, m, work, lwork, info)  ! c = Q^T b
  if (info == 0) call dtrtrs('U', 'N', 'N', k, 1, q, m, c, m, info)                  ! R x = c(1:k)
  t2 = now()
  ! Optimality: A^T (b - A x) = 0, scaled as LAPACK's xQRT17.
  r = b
  do j = 1, k
    r = r - a(:, j) * c(j)
  end do
  anorm = 0
  do j = 1, k
    anorm = max(anorm, sum(abs(a(:, j))))
  end do
  resid = 0
  do j = 1, k
    resid = max(resid, abs(dot_product(a(:, j), r)))
  end do
  resid = resid / (anorm * sum(abs(b)) * m * eps)
  write (*, '(a,i0,a,i0,a,f0.3,a,f0.3,a,es9.2,a,es23.16,a,i0)') 'lstsq m=', m, ' n=', k, &
    ' dgeqrf=', t1 - t0, 's dormqr+dtrtrs=', t2 - t1, 's residual=', resid, &
    ' checksum=', sum(abs(c(1:k))), ' info=', info
  bad = bad .or. info /= 0 .or. .not. (resid < 30)

  if (bad) then
    write (*, '(a)') 'FAILED'
    stop 1
  end if

contains

  real(dp) function rnd()  ! reproducible uniform numbers in (-1, 1)
    seed = iand(seed * 6364136223846793005_8 + 1442695040888963407_8, huge(seed))
    rnd = 2.0_dp * real(ishft(seed, -11), dp) / real(ishft(huge(seed), -11), dp) - 1.0_dp
  end function rnd

  real(dp) function now()
    integer(8) :: count, rate
    call system_clock(count, rate)
    now = real(count, dp) / real(rate, dp)
  end function now

end program solve_spd
