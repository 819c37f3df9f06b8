! qrupd_lsq — least squares whose QR factorization follows the data
! (the Fortran twin of qrupd_lsq.c, through the module's interfaces).
!
! Fits b ~ A*x to observations t = 1..10 with the regressors 1, t, cos(t)
! and b(t) = 2 + t/2 + sin(2t). The augmented matrix W = [A b] is factored
! once, W = Q*R: R's last column is Q**T*b, so x solves the triangular
! system R(1:K,1:K)*x = R(1:K,K+1), and |R(K+1,K+1)| is the residual norm
! ||A*x - b||. Then the data change, and hqr's updating routines change Q
! and R with them, b always kept as R's last column:
!   1. a new observation, t = 11, inserted as row 4          dqrupd_addrows
!   2. the observations in rows 2..3 (t = 2, 3) deleted       dqrupd_delrows
!   3. a new regressor t**2/10, inserted before b (column K+1) dqrupd_addcols
!   4. the regressor cos(t) (column 3) deleted                dqrupd_delcols
! After each step it prints x and the residual norm.
!
! Build: gfortran qrupd_lsq.f90 -I<dir of hqr.mod> -L<hqr>/lib -lhqr
program qrupd_lsq
  use hqr
  implicit none
  integer, parameter :: ld = 16, nmax = 8   ! room: up to ld rows, nmax columns
  real(c_double) :: q(ld, ld), r(ld, nmax), u(ld, nmax), t(ld), tau(nmax), wq(1)
  real(c_double), allocatable :: work(:)
  integer(hqr_int) :: m, n, k, p, j, info, i, c
  external :: dtrtrs   ! the system LAPACK's, forwarded by libhqr

  m = 10
  k = 3
  n = k + 1
  allocate(work(1))
  q = 0
  r = 0

  ! W = [A b] in R's storage, factored by DGEQRF; the full M-by-M Q by DORGQR.
  do i = 1, m
    t(i) = i
    do c = 1, k
      r(i, c) = regressor(c, t(i))
    end do
    r(i, n) = rhs(t(i))
  end do
  call dgeqrf(m, n, r, ld, tau, wq, -1, info)
  call need(wq(1))
  call dgeqrf(m, n, r, ld, tau, work, size(work), info)
  call check('dgeqrf', info)
  do c = 1, n
    q(c+1:m, c) = r(c+1:m, c)   ! the reflectors, for DORGQR
    r(c+1:m, c) = 0             ! R is upper trapezoidal
  end do
  call dorgqr(m, m, n, q, ld, tau, wq, -1, info)
  call need(wq(1))
  call dorgqr(m, m, n, q, ld, tau, work, size(work), info)
  call check('dorgqr', info)
  call report('10 observations, 3 regressors:')

  ! 1. Observation t = 11 inserted before row 4: U = [a(t) b(t)], 1-by-(K+1).
  p = 1
  j = 4
  do c = 1, k
    u(1, c) = regressor(c, 11.0_c_double)
  end do
  u(1, n) = rhs(11.0_c_double)
  call dqrupd_addrows('U', m, n, p, j, q, ld, r, ld, u, ld, wq, -1, info)
  call need(wq(1))
  call dqrupd_addrows('U', m, n, p, j, q, ld, r, ld, u, ld, work, size(work), info)
  call check('dqrupd_addrows', info)
  t(j+1:m+1) = t(j:m)   ! the rows' t, in order
  t(j) = 11
  m = m + p
  call report('1. t = 11 added as row 4:')

  ! 2. Rows 2..3 (t = 2, 3) deleted; Q is required.
  p = 2
  j = 2
  call dqrupd_delrows(m, n, p, j, q, ld, r, ld, wq, -1, info)
  call need(wq(1))
  call dqrupd_delrows(m, n, p, j, q, ld, r, ld, work, size(work), info)
  call check('dqrupd_delrows', info)
  t(j:m-p) = t(j+p:m)
  m = m - p
  call report('2. rows 2..3 deleted:')

  ! 3. Regressor t**2/10 inserted before b: J = K+1 of the N = K+1 columns,
  !    so b stays last. R has room for N+P columns.
  p = 1
  j = k + 1
  u(1:m, 1) = t(1:m)**2 / 10
  call dqrupd_addcols(m, n, p, j, q, ld, r, ld, u, ld, wq, -1, info)
  call need(wq(1))
  call dqrupd_addcols(m, n, p, j, q, ld, r, ld, u, ld, work, size(work), info)
  call check('dqrupd_addcols', info)
  n = n + p
  k = k + p
  call report('3. regressor t^2/10 added:')

  ! 4. Regressor cos(t), column 3, deleted (JOBQ = 'U': Q kept in step;
  !    'N' would update R alone, enough if only solutions are wanted).
  p = 1
  j = 3
  call dqrupd_delcols('U', m, n, p, j, q, ld, r, ld, wq, -1, info)
  call need(wq(1))
  call dqrupd_delcols('U', m, n, p, j, q, ld, r, ld, work, size(work), info)
  call check('dqrupd_delcols', info)
  n = n - p
  k = k - p
  call report('4. regressor cos(t) deleted:')

contains

  real(c_double) function regressor(jj, tt)   ! jj = 1, 2, 3: 1, t, cos(t)
    integer(hqr_int), intent(in) :: jj
    real(c_double), intent(in) :: tt
    select case (jj)
    case (1)
      regressor = 1
    case (2)
      regressor = tt
    case default
      regressor = cos(tt)
    end select
  end function regressor

  real(c_double) function rhs(tt)
    real(c_double), intent(in) :: tt
    rhs = 2 + tt / 2 + sin(2 * tt)
  end function rhs

  ! After a LWORK = -1 query that returned wq: WORK large enough.
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

  ! x from R(1:k,1:k)*x = R(1:k,k+1); the residual norm |R(k+1,k+1)|.
  subroutine report(step)
    character(*), intent(in) :: step
    real(c_double) :: x(nmax), res
    integer(hqr_int) :: inf
    x(1:k) = r(1:k, k+1)
    call dtrtrs('U', 'N', 'N', k, 1, r, ld, x, k, inf)
    call check('dtrtrs', inf)
    res = 0
    if (m > k) res = abs(r(k+1, k+1))
    write (*, '(a, t38, "x =", *(1x, es19.12e2))', advance='no') step, x(1:k)
    write (*, '("  residual = ", es19.12e2)') res
  end subroutine report

end program qrupd_lsq
