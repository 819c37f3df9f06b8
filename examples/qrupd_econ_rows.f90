! qrupd_econ_rows — tall least squares while observations stream in, with
! R alone (the Fortran twin of qrupd_econ_rows.c, through the module's
! interfaces; ABI.md section 5.8).
!
!   qrupd_econ_rows [M [K [B]]]  default M = 1000000 observations, K = 200
!                                regressors, batches of B = 10000 rows
!
! Fits b ~ A*x (A M-by-K) from observations that arrive B rows at a time
! and are not kept. The trick: factor the augmented matrix W = [A b]
! (M-by-(K+1)) instead of A. Its economy factors W = Q*R have
!
!       R = [ R1  d   ]    R1 K-by-K upper triangular, d = Q(:,1:K)**T*b,
!           [ 0   rho ]    rho = R(K+1,K+1),
!
! so A = Q(:,1:K)*R1 and b = Q(:,1:K)*d + rho*Q(:,K+1), and since Q's
! columns are orthonormal, ||A*x - b||**2 = ||R1*x - d||**2 + rho**2: the
! least-squares solution solves R1*x = d and the residual norm is |rho|.
! Q is never needed: appending observations [a b] as rows of W is
! dqrupd_addrows_econ with JOBQ = 'N', which updates R alone (R**T*R =
! W**T*W stays exact), so the whole history of the data is the
! (K+1)-by-(K+1) R, whatever M is.
!
! The first batch is factored by DGEQRF (R only), then the others are
! appended (J = rows so far + 1). After the first batch, at half the rows
! and at the end, x and |rho| are compared with a fresh DGELS of all the
! rows so far (made again from the stream): the program prints the relative
! differences and the seconds each part took, and ends with a check line;
! it stops with code 1 when a difference exceeds 1e-10 (A's condition
! number is close to 1, so rounding leaves about 1e-15). The default size
! needs 1.8 GB (for the fresh solves; the updates need R and one batch)
! and about a minute on two cores; test/qrupd_econ_examples.sh runs it at
! M = 100000.
!
! The data: one MINSTD stream (x <- 16807*x mod (2**31-1), uniform on
! (-1/2,1/2)) read row by row, K regressors and then a noise term e per
! observation; b = sum over c of a(c)/c, plus e/10. The C program makes
! the same numbers.
!
! Build: gfortran qrupd_econ_rows.f90 -I<dir of hqr.mod> -L<hqr>/lib -lhqr
program qrupd_econ_rows
  use hqr
  implicit none
  real(c_double), parameter :: limit = 1e-10_c_double
  integer(c_int64_t), parameter :: minstd_m = 2147483647_c_int64_t, minstd_a = 16807_c_int64_t
  real(c_double), allocatable :: r(:,:), u(:,:), a(:,:), bf(:), tau(:), work(:)
  real(c_double) :: wq(1), dummy_q(1), worst, t0, t_update
  integer(c_int64_t) :: s                          ! the stream's state
  integer(hqr_int) :: mtotal, kreg, n, batch, m, batches, half, p, info, i, c

  mtotal = 1000000
  kreg = 200
  batch = 10000
  if (command_argument_count() >= 1) mtotal = int_argument(1)
  if (command_argument_count() >= 2) kreg = int_argument(2)
  if (command_argument_count() >= 3) batch = int_argument(3)
  n = kreg + 1
  if (kreg < 1 .or. batch < n .or. mtotal < batch) then
    write (*, '("usage: qrupd_econ_rows [M [K [B]]] with K >= 1, B > K, M >= B")')
    stop 2
  end if
  ! R of W (n-by-n, LDR = n), one batch of rows of W, A and b for the fresh solves
  allocate(r(n, n), u(batch, n), a(mtotal, kreg), bf(mtotal), work(1))
  worst = 0
  dummy_q = 0
  write (*, '("qrupd_econ_rows: least squares on ", i0, " observations of ", i0, &
       &" regressors, arriving ", i0, " at a time;")') mtotal, kreg, batch
  write (*, '("R of [A b] (", i0, " x ", i0, ") updated by dqrupd_addrows_econ with JOBQ = ''N''")') n, n

  ! The first batch: W(1:B,:) factored by DGEQRF; R is its upper triangle.
  s = 1
  m = batch
  batches = 1
  allocate(tau(n))
  t0 = seconds()
  do i = 1, batch
    call observation(s, u(i, :))
  end do
  call dgeqrf(batch, n, u, batch, tau, wq, -1, info)
  call need(wq(1))
  call dgeqrf(batch, n, u, batch, tau, work, size(work), info)
  call check('dgeqrf', info)
  r = 0
  do c = 1, n
    r(1:c, c) = u(1:c, c)
  end do
  call compare(seconds() - t0)

  ! The others, appended as rows m+1.. of W: R alone (Q not referenced).
  half = mtotal / 2
  t_update = 0
  do while (m < mtotal)
    p = min(batch, mtotal - m)
    do i = 1, p
      call observation(s, u(i, :))                 ! LDU = B: rows 1..p of u
    end do
    t0 = seconds()
    call dqrupd_addrows_econ('N', m, n, p, m + 1, dummy_q, 1, r, n, u, batch, wq, -1, info)
    call check('dqrupd_addrows_econ (query)', info)
    call need(wq(1))
    call dqrupd_addrows_econ('N', m, n, p, m + 1, dummy_q, 1, r, n, u, batch, work, size(work), info)
    call check('dqrupd_addrows_econ', info)
    t_update = t_update + (seconds() - t0)
    m = m + p
    batches = batches + 1
    if ((m >= half .and. m - p < half) .or. m == mtotal) call compare(t_update)
  end do

  if (worst <= limit) then
    write (*, '("check: largest relative difference from DGELS = ", es7.1e2, " (limit 1e-10): ok")') worst
  else
    write (*, '("check: largest relative difference from DGELS = ", es7.1e2, " (limit 1e-10): FAILED")') worst
    stop 1
  end if

contains

  ! One observation from the stream: the row [a(1..K) b] of W.
  subroutine observation(state, w)
    integer(c_int64_t), intent(inout) :: state
    real(c_double), intent(out) :: w(:)
    real(c_double) :: bsum
    integer(hqr_int) :: cc
    bsum = 0
    do cc = 1, kreg
      state = mod(state * minstd_a, minstd_m)
      w(cc) = real(state, c_double) / minstd_m - 0.5_c_double
      bsum = bsum + w(cc) / cc
    end do
    state = mod(state * minstd_a, minstd_m)
    w(kreg + 1) = bsum + 0.1_c_double * (real(state, c_double) / minstd_m - 0.5_c_double)
  end subroutine observation

  ! x from R1*x = d and |rho|; x_dgels and its residual norm from DGELS on
  ! the m rows so far, made again from the stream into a (m-by-K) and bf.
  subroutine compare(t_upd)
    real(c_double), intent(in) :: t_upd
    real(c_double) :: x(kreg), row(kreg + 1), rho, res, rel_x, rel_res, t1, t_fresh
    integer(c_int64_t) :: s2
    integer(hqr_int) :: inf, ii
    external :: dtrtrs                             ! the system's, forwarded by libhqr

    x = r(1:kreg, n)
    call dtrtrs('U', 'N', 'N', kreg, 1, r, n, x, kreg, inf)
    call check('dtrtrs', inf)
    rho = abs(r(n, n))

    t1 = seconds()
    s2 = 1
    do ii = 1, m                                   ! a(1:m, :) with LDA = m, as DGELS sees it
      call observation(s2, row)
      call put_row(a, m, ii, row(1:kreg))
      bf(ii) = row(n)
    end do
    call dgels('N', m, kreg, 1, a, m, bf, m, wq, -1, inf)
    call need(wq(1))
    call dgels('N', m, kreg, 1, a, m, bf, m, work, size(work), inf)
    call check('dgels', inf)
    res = norm2(bf(kreg+1:m))
    t_fresh = seconds() - t1

    rel_x = norm2(x - bf(1:kreg)) / norm2(bf(1:kreg))
    rel_res = abs(rho - res) / res
    if (worst == worst .and. .not. (rel_x <= worst)) worst = rel_x   ! a NaN sticks
    if (worst == worst .and. .not. (rel_res <= worst)) worst = rel_res
    write (*, '("M = ", i7, " (batch ", i4, ", ", a, 1x, f6.2, " s), fresh DGELS ", f6.2, &
         &" s:  |x - x_dgels|/|x_dgels| = ", es7.1e2)') m, batches, &
         trim(merge('DGEQRF        ', 'updates so far', batches == 1)), t_upd, t_fresh, rel_x
    write (*, '("    residual |rho| = ", es18.12e2, ", DGELS''s ", es18.12e2, ": relative difference ", es7.1e2)') &
         rho, res, rel_res
    flush (6)
  end subroutine compare

  ! Row ii of the mm-by-K matrix held in aa's storage with leading dimension mm.
  subroutine put_row(aa, mm, ii, vals)
    integer(hqr_int), intent(in) :: mm, ii
    real(c_double), intent(inout) :: aa(mm, *)
    real(c_double), intent(in) :: vals(:)
    aa(ii, 1:size(vals)) = vals
  end subroutine put_row

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

end program qrupd_econ_rows
