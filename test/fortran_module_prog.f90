! Way in 3: `use hqr` (test/fortran_module.sh). Calls hqr's runtime API and
! several LAPACK routines through the module's explicit interfaces, and a
! QR-updating routine with an illegal argument, which must report it through
! XERBLA (this program's own, below) and return INFO < 0.
module xerbla_record
  implicit none
  integer :: xerbla_calls = 0, xerbla_info = 0
  character(len=32) :: xerbla_name = ''
end module xerbla_record

! LAPACK's XERBLA as a test suite supplies it: record, do not stop.
subroutine xerbla(srname, info)
  use xerbla_record
  implicit none
  character(len=*), intent(in) :: srname
  integer, intent(in) :: info
  xerbla_calls = xerbla_calls + 1
  xerbla_name = srname
  xerbla_info = info
end subroutine xerbla

program fortran_module_prog
  use hqr
  use xerbla_record
  use, intrinsic :: iso_c_binding, only: c_int, c_long, c_double, c_double_complex
  implicit none
  integer, parameter :: dp = c_double, zp = c_double_complex
  integer :: nbad = 0
  real(dp), parameter :: eps = epsilon(1.0_dp) / 2

  call check_runtime()
  call check_dpotrf_dpotrs(40)
  call check_zpotrf(30)
  call check_dgels(50, 20, 2)
  call check_dgeqrf_dormqr(35, 15)
  call check_qrupd_illegal()
  call check_qrupd_addcols(12, 6, 2, 3)
  if (nbad /= 0) then
    print '(a,i0,a)', 'FAIL: ', nbad, ' check(s) failed'
    stop 1
  end if
  print '(a)', 'PASS'

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      print '(a,a)', 'ok: ', what
    else
      print '(a,a)', 'FAILED: ', what
      nbad = nbad + 1
    end if
  end subroutine expect

  subroutine fill(a)
    real(dp), intent(out) :: a(:, :)
    call random_number(a)
    a = 2 * a - 1
  end subroutine fill

  real(dp) function norm1(a)
    real(dp), intent(in) :: a(:, :)
    norm1 = maxval(sum(abs(a), dim=1))
  end function norm1

  subroutine check_runtime()
    character(len=:), allocatable :: v, name
    integer :: d1, d2
    v = hqr_version()
    d1 = scan(v, '.')
    d2 = scan(v, '.', back=.true.)
    call expect(d1 > 1 .and. d2 > d1 + 1 .and. d2 < len(v) .and. verify(v, '0123456789.') == 0, &
                'hqr_version() = "' // v // '" is MAJOR.MINOR.PATCH')
    name = hqr_device_name()
    print '(a,i0,a,a)', 'hqr_device() = ', hqr_device(), ', hqr_device_name() = ', name
    call expect((hqr_device() == -1) .eqv. (name == 'none'), 'hqr_device_name() is "none" exactly when hqr_device() is -1')
    call hqr_set_verbose(0_c_int)
    call hqr_set_nb(0_c_int)
    call hqr_set_gpu_min_n(-1_c_long)
    call hqr_set_device(-1_c_int)
    call expect(hqr_device() == -1, 'hqr_set_device(-1) sends every call to the CPU')
  end subroutine check_runtime

  subroutine check_dpotrf_dpotrs(n)
    integer, intent(in) :: n
    real(dp) :: b(n, n), a(n, n), f(n, n), x(n, 1), rhs(n, 1)
    integer(hqr_int) :: info, info2
    integer :: i
    call fill(b)
    a = matmul(transpose(b), b)
    do i = 1, n
      a(i, i) = a(i, i) + n
    end do
    call fill(rhs)
    f = a
    x = rhs
    call dpotrf('L', n, f, n, info)
    call dpotrs('L', n, 1, f, n, x, n, info2)
    call expect(info == 0 .and. info2 == 0 .and. &
                norm1(rhs - matmul(a, x)) / (n * norm1(a) * norm1(x) * eps) < 30, 'dpotrf + dpotrs solve A x = b')
  end subroutine check_dpotrf_dpotrs

  subroutine check_zpotrf(n)
    integer, intent(in) :: n
    real(dp) :: re(n, n), im(n, n)
    complex(zp) :: b(n, n), a(n, n), f(n, n)
    integer(hqr_int) :: info
    integer :: i, j
    call fill(re)
    call fill(im)
    b = cmplx(re, im, zp)
    a = matmul(conjg(transpose(b)), b)
    do i = 1, n
      a(i, i) = a(i, i) + n
    end do
    f = a
    call zpotrf('U', n, f, n, info)
    do j = 1, n
      f(j + 1:n, j) = 0
    end do
    call expect(info == 0 .and. maxval(sum(abs(a - matmul(conjg(transpose(f)), f)), dim=1)) &
                / (n * maxval(sum(abs(a), dim=1)) * eps) < 30, 'zpotrf: A = U^H U')
    ! Not positive definite: INFO is the order of the failing minor.
    f = a
    f(3, 3) = -1
    call zpotrf('U', n, f, n, info)
    call expect(info == 3, 'zpotrf: INFO = 3 for a non-positive third minor')
  end subroutine check_zpotrf

  subroutine check_dgels(m, n, nrhs)
    integer, intent(in) :: m, n, nrhs
    real(dp) :: a(m, n), f(m, n), b(m, nrhs), x(m, nrhs), wq(1)
    real(dp), allocatable :: work(:)
    integer(hqr_int) :: info
    call fill(a)
    call fill(b)
    f = a
    x = b
    call dgels('N', m, n, nrhs, f, m, x, m, wq, -1, info)
    call expect(info == 0 .and. wq(1) >= n + nrhs, 'dgels: LWORK = -1 query')
    allocate (work(int(wq(1))))
    call dgels('N', m, n, nrhs, f, m, x, m, work, size(work), info)
    call expect(info == 0 .and. norm1(matmul(transpose(a), b - matmul(a, x(1:n, :)))) &
                / (m * norm1(a) * norm1(b) * eps) < 30, 'dgels: A^T (b - A x) = 0')
  end subroutine check_dgels

  subroutine check_dgeqrf_dormqr(m, n)
    integer, intent(in) :: m, n
    real(dp) :: a(m, n), f(m, n), r(m, n), tau(n), wq(1)
    real(dp), allocatable :: work(:)
    integer(hqr_int) :: info, info2
    integer :: j
    call fill(a)
    f = a
    call dgeqrf(m, n, f, m, tau, wq, -1, info)
    allocate (work(max(int(wq(1)), n * 64)))
    call dgeqrf(m, n, f, m, tau, work, size(work), info)
    r = 0
    do j = 1, n
      r(1:j, j) = f(1:j, j)
    end do
    call dormqr('L', 'N', m, n, n, f, m, tau, r, m, work, size(work), info2)
    call expect(info == 0 .and. info2 == 0 .and. norm1(a - r) / (m * norm1(a) * eps) < 30, 'dgeqrf + dormqr: A = Q R')
  end subroutine check_dgeqrf_dormqr

  subroutine check_qrupd_illegal()
    real(dp) :: q(8, 8), r(8, 6), u(8, 1), work(64)
    integer(hqr_int) :: info
    q = 0
    r = 0
    u = 1
    xerbla_calls = 0
    info = 0
    ! J = N + 2 is out of range (1 <= J <= N+1): argument 4.
    call dqrupd_addcols(8, 5, 1, 7, q, 8, r, 8, u, 8, work, 64, info)
    print '(a,i0,a,a,a,i0,a)', 'dqrupd_addcols(j=n+2): info=', info, ', xerbla("', trim(xerbla_name), '", ', xerbla_info, ')'
    call expect(info < 0, 'dqrupd_addcols with an illegal J returns INFO < 0')
    call expect(info == -4, 'dqrupd_addcols with an illegal J returns INFO = -4')
    call expect(xerbla_calls == 1 .and. xerbla_name == 'DQRUPD_ADDCOLS' .and. xerbla_info == 4, &
                'dqrupd_addcols reports argument 4 to the program''s XERBLA')
  end subroutine check_qrupd_illegal

  ! A valid update: either it succeeds and Q*R is the new matrix with Q
  ! orthogonal, or it reports INFO /= 0 -- it must never claim a success it
  ! did not deliver.
  subroutine check_qrupd_addcols(m, n, p, j)
    integer, intent(in) :: m, n, p, j
    real(dp) :: a(m, n), u(m, p), at(m, n + p), q(m, m), r(m, n + p), tau(m), work(4096), id(m, m)
    integer(hqr_int) :: info, lwork
    integer :: i
    call fill(a)
    call fill(u)
    at(:, 1:j - 1) = a(:, 1:j - 1)
    at(:, j:j + p - 1) = u
    at(:, j + p:) = a(:, j:)
    ! Q R of A with LAPACK (through the module)
    q = 0
    q(:, 1:n) = a
    call dgeqrf(m, n, q, m, tau, work, size(work), info)
    r = 0
    do i = 1, n
      r(1:i, i) = q(1:i, i)
    end do
    call dorgqr(m, m, n, q, m, tau, work, size(work), info)
    work = 0
    call dqrupd_addcols(m, n, p, j, q, m, r, m, u, m, work, -1, info)
    lwork = int(work(1))
    print '(a,i0,a,i0)', 'dqrupd_addcols query: info=', info, ' lwork=', lwork
    if (info /= 0 .or. lwork < 1 .or. lwork > size(work)) lwork = size(work)
    call dqrupd_addcols(m, n, p, j, q, m, r, m, u, m, work, lwork, info)
    if (info /= 0) then
      print '(a,i0,a)', 'dqrupd_addcols: info=', info, ' (no success claimed)'
      call expect(.true., 'dqrupd_addcols: does not claim success (INFO /= 0)')
      return
    end if
    id = -matmul(transpose(q), q)
    do i = 1, m
      id(i, i) = id(i, i) + 1
    end do
    call expect(norm1(at - matmul(q, r)) / (norm1(at) * m * eps) < 30 .and. norm1(id) / (m * eps) < 30, &
                'dqrupd_addcols: Q R equals A with the columns inserted, Q orthogonal')
  end subroutine check_qrupd_addcols

end program fortran_module_prog
