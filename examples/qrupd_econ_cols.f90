! qrupd_econ_cols — tall least squares while regressors enter and leave,
! with the economy QR factorization (the Fortran twin of qrupd_econ_cols.c,
! through the module's interfaces; ABI.md section 5.8).
!
!   qrupd_econ_cols [M [N]]      default M = 1000000 observations, N = 200
!
! Fits b ~ A*x, A M-by-K, with K = N regressors chosen from a pool of N+10.
! The economy factors A = Q*R (Q M-by-K with orthonormal columns, R K-by-K)
! come once from DGEQRF + DORGQR; the full M-by-M Q would take 8 TB at the
! default size, the economy Q takes 1.6 GB. Then the model changes, and
! hqr's economy updating routines change Q and R with it:
!   1. 10 new regressors enter before column K/2+1    dqrupd_addcols_econ
!   2. the first 10 regressors leave (columns 1..10)   dqrupd_delcols_econ
!   3. the regressor in column K/2 leaves              dqrupd_delcols_econ
!   4. it enters again, as the last column (J = K+1)   dqrupd_addcols_econ
! After the factorization and after each step, x solves R*x = Q**T*b (DGEMV,
! DTRTRS) and is compared with a fresh solve of the current A by DGELS: the
! program prints the relative difference ||x - x_dgels|| / ||x_dgels|| and
! the seconds each took, and ends with a check line; it stops with code 1
! when a difference exceeds 1e-10 (A's condition number is close to 1, so
! rounding leaves about 1e-15). The default size needs 3.5 GB and runs for
! minutes on two cores, nearly all of it in the first factorization and
! the five fresh solves (each update takes seconds);
! test/qrupd_econ_examples.sh runs it at M = 100000.
!
! The data: column c (from 0) of the pool is the numbers c*M+1 .. c*M+M of
! one MINSTD stream (x <- 16807*x mod (2**31-1), uniform on (-1/2,1/2)), so
! any column can be made again from its index alone (a jump ahead); b's
! noise is the column after the pool's last. b = sum over c < 20 of the
! pool's column c/(c+1), plus noise/10. The C program makes the same
! numbers.
!
! Build: gfortran qrupd_econ_cols.f90 -I<dir of hqr.mod> -L<hqr>/lib -lhqr
program qrupd_econ_cols
  use hqr
  implicit none
  integer, parameter :: padd = 10                  ! regressors entering in step 1
  real(c_double), parameter :: limit = 1e-10_c_double
  integer(c_int64_t), parameter :: minstd_m = 2147483647_c_int64_t, minstd_a = 16807_c_int64_t
  real(c_double), allocatable :: q(:,:), r(:,:), u(:,:), a(:,:), b(:), bf(:), tau(:), work(:)
  integer(hqr_int), allocatable :: reg(:)          ! reg(c): the pool index of column c of A
  real(c_double) :: wq(1), worst, t0
  integer(hqr_int) :: m, n, k, kmax, npool, info, c, jout, gone
  character(len=64) :: step
  external :: dgemv, dtrtrs                        ! the system's, forwarded by libhqr

  m = 1000000
  n = 200
  if (command_argument_count() >= 1) m = int_argument(1)
  if (command_argument_count() >= 2) n = int_argument(2)
  if (n < 2 * padd .or. m < n + padd + 1) then
    write (*, '("usage: qrupd_econ_cols [M [N]] with N >= ", i0, " and M > N + ", i0)') 2 * padd, padd
    stop 2
  end if
  npool = n + padd
  kmax = n + padd
  allocate(q(m, kmax), a(m, kmax), u(m, padd), b(m), bf(m), r(kmax, kmax), reg(kmax), work(1))
  worst = 0
  write (*, '("qrupd_econ_cols: least squares on ", i0, " observations, ", i0, &
       &" regressors of a pool of ", i0, ";")') m, n, npool
  write (*, '("economy factors: Q ", i0, " x K (", f4.2, " GB at K = ", i0, "), R K x K")') &
       m, 8e-9_c_double * m * kmax, kmax

  ! b: the first 20 regressors of the pool, weighted, plus noise/10.
  call column(npool, b)
  b = 0.1_c_double * b
  do c = 0, 19
    call column(c, u(:, 1))
    b = b + u(:, 1) / (c + 1)
  end do

  ! A = the pool's first N regressors, factored in Q's storage by DGEQRF;
  ! R is its upper triangle, Q (M-by-K) comes from DORGQR.
  k = n
  do c = 1, k
    reg(c) = c - 1
    call column(reg(c), q(:, c))
  end do
  allocate(tau(k))
  t0 = seconds()
  call dgeqrf(m, k, q, m, tau, wq, -1, info)
  call need(wq(1))
  call dgeqrf(m, k, q, m, tau, work, size(work), info)
  call check('dgeqrf', info)
  r = 0
  do c = 1, k
    r(1:c, c) = q(1:c, c)
  end do
  call dorgqr(m, k, k, q, m, tau, wq, -1, info)
  call need(wq(1))
  call dorgqr(m, k, k, q, m, tau, work, size(work), info)
  call check('dorgqr', info)
  call solve_and_compare('start: DGEQRF + DORGQR', 'factor', seconds() - t0)

  write (step, '(i0, " regressors enter at column ", i0)') padd, k / 2 + 1
  call add_columns(n, padd, k / 2 + 1, '1. ' // trim(step))
  write (step, '("regressors in columns 1..", i0, " leave")') padd
  call delete_columns(padd, 1, '2. ' // trim(step))
  jout = k / 2
  gone = reg(jout)
  write (step, '("the regressor in column ", i0, " leaves")') jout
  call delete_columns(1, jout, '3. ' // trim(step))
  write (step, '("it enters again as column ", i0)') k + 1
  call add_columns(gone, 1, k + 1, '4. ' // trim(step))

  if (worst <= limit) then
    write (*, '("check: largest |x - x_dgels|/|x_dgels| = ", es7.1e2, " (limit 1e-10): ok")') worst
  else
    write (*, '("check: largest |x - x_dgels|/|x_dgels| = ", es7.1e2, " (limit 1e-10): FAILED")') worst
    stop 1
  end if

contains

  ! out(1:M) = column c of the stream: its numbers c*M+1 .. c*M+M.
  subroutine column(cc, out)
    integer(hqr_int), intent(in) :: cc
    real(c_double), intent(out) :: out(:)
    integer(c_int64_t) :: s, base, e
    integer(hqr_int) :: ii
    s = 1                                          ! 16807**(c*M) mod (2**31-1): the seed is 1
    base = minstd_a
    e = int(cc, c_int64_t) * m
    do while (e > 0)
      if (mod(e, 2_c_int64_t) == 1) s = mod(s * base, minstd_m)
      base = mod(base * base, minstd_m)
      e = e / 2
    end do
    do ii = 1, m
      s = mod(s * minstd_a, minstd_m)
      out(ii) = real(s, c_double) / minstd_m - 0.5_c_double
    end do
  end subroutine column

  ! x from R*x = Q**T*b; x_dgels from DGELS on a fresh copy of A; prints
  ! their relative difference.
  subroutine solve_and_compare(what, how, t_update)
    character(*), intent(in) :: what, how
    real(c_double), intent(in) :: t_update
    real(c_double) :: x(k), t_solve, t_fresh, rel, t1
    integer(hqr_int) :: inf, cc

    t1 = seconds()
    call dgemv('T', m, k, 1.0_c_double, q, m, b, 1, 0.0_c_double, x, 1)
    call dtrtrs('U', 'N', 'N', k, 1, r, kmax, x, k, inf)
    call check('dtrtrs', inf)
    t_solve = seconds() - t1

    t1 = seconds()
    do cc = 1, k
      call column(reg(cc), a(:, cc))
    end do
    bf = b
    call dgels('N', m, k, 1, a, m, bf, m, wq, -1, inf)
    call need(wq(1))
    call dgels('N', m, k, 1, a, m, bf, m, work, size(work), inf)
    call check('dgels', inf)
    t_fresh = seconds() - t1

    rel = norm2(x - bf(1:k)) / norm2(bf(1:k))
    if (worst == worst .and. .not. (rel <= worst)) worst = rel   ! a NaN sticks
    write (*, '(a, t46, "K = ", i3, 2x, a, f7.2, " s, solve ", f5.2, " s, fresh DGELS ", f6.2, &
         &" s:  |x - x_dgels|/|x_dgels| = ", es7.1e2)') what, k, how, t_update, t_solve, t_fresh, rel
    flush (6)
  end subroutine solve_and_compare

  ! Insert the pool's regressors first..first+p-1 before column j.
  subroutine add_columns(first, p, j, what)
    integer(hqr_int), intent(in) :: first, p, j
    character(*), intent(in) :: what
    integer(hqr_int) :: inf, cc
    real(c_double) :: t1, t
    do cc = 1, p
      call column(first + cc - 1, u(:, cc))
    end do
    t1 = seconds()
    call dqrupd_addcols_econ(m, k, p, j, q, m, r, kmax, u, m, wq, -1, inf)
    call check('dqrupd_addcols_econ (query)', inf)
    call need(wq(1))
    call dqrupd_addcols_econ(m, k, p, j, q, m, r, kmax, u, m, work, size(work), inf)
    call check('dqrupd_addcols_econ', inf)
    t = seconds() - t1
    reg(j+p:k+p) = reg(j:k)
    do cc = 1, p
      reg(j + cc - 1) = first + cc - 1
    end do
    k = k + p
    call solve_and_compare(what, 'update', t)
  end subroutine add_columns

  ! Delete columns j..j+p-1; JOBQ = 'U': Q is needed for Q**T*b and for the
  ! next ADDCOLS_ECON.
  subroutine delete_columns(p, j, what)
    integer(hqr_int), intent(in) :: p, j
    character(*), intent(in) :: what
    integer(hqr_int) :: inf
    real(c_double) :: t1, t
    t1 = seconds()
    call dqrupd_delcols_econ('U', m, k, p, j, q, m, r, kmax, wq, -1, inf)
    call check('dqrupd_delcols_econ (query)', inf)
    call need(wq(1))
    call dqrupd_delcols_econ('U', m, k, p, j, q, m, r, kmax, work, size(work), inf)
    call check('dqrupd_delcols_econ', inf)
    t = seconds() - t1
    reg(j:k-p) = reg(j+p:k)
    k = k - p
    call solve_and_compare(what, 'update', t)
  end subroutine delete_columns

  real(c_double) function seconds()
    integer(c_int64_t) :: count, rate
    call system_clock(count, rate)
    seconds = real(count, c_double) / rate
  end function seconds

  integer(hqr_int) function int_argument(pos)
    integer, intent(in) :: pos
    character(len=32) :: text
    call get_command_argument(pos, text)
    read (text, *) int_argument
  end function int_argument

  ! After a LWORK = -1 query that returned wsize: WORK large enough.
  subroutine need(wsize)
    real(c_double), intent(in) :: wsize
    if (int(wsize) > size(work)) then
      deallocate(work)
      allocate(work(int(wsize)))
    end if
  end subroutine need

  subroutine check(what, inf)
    character(*), intent(in) :: what
    integer(hqr_int), intent(in) :: inf
    if (inf /= 0) then
      write (*, '(a, ": INFO = ", i0)') what, inf
      stop 1
    end if
  end subroutine check

end program qrupd_econ_cols
