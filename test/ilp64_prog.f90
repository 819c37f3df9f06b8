! A plain LAPACK program for 64-bit INTEGER (test/ilp64.sh): compiled with
! gfortran -fdefault-integer-8, implicit interfaces as legacy code has them,
! and linked either with -lhqr64 alone or with -llapack64 (then run plainly
! and with LD_PRELOAD=libhqr64.so), so it calls nothing but LAPACK. It checks
! hqr's routines with LAPACK-style residual ratios on pseudo-random data (the
! seed is the first argument), a routine hqr forwards (dgesv), and illegal
! arguments whose lower 32 bits alone would be legal, reported through this
! program's own XERBLA.
! INFO starts at -1 before every call: a library that wrote a 32-bit 0 there
! would leave the upper half set, and INFO would read -4294967296.
! Prints "ok: ..." or "FAILED: ..." per check, then PASS (or FAIL, exit 1).
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

program ilp64_prog
  use xerbla_record
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: thresh = 30
  ! 2**32: added to a value, it changes nothing a 32-bit INTEGER would see.
  integer, parameter :: two32 = 4294967296
  integer :: seed, nbad = 0
  real(dp) :: eps
  character(len=32) :: arg
  external :: dpotrf, dpotri, dgeqrf, dorgqr, dgels, dgesv
  real(dp), external :: dlamch

  call get_command_argument(1, arg)
  read (arg, *) seed
  print '(a,i0)', '# seed ', seed
  eps = dlamch('E')
  call expect(storage_size(seed) == 64, 'default INTEGER is 64-bit (-fdefault-integer-8)')
  call check_dpotrf_dpotri(70, 75)
  call check_dgeqrf(60, 35, 64)
  call check_dgels(80, 30, 3)
  call check_dgesv(50, 2)
  call check_illegal()
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

  subroutine ratio_below(name, info, ratio)
    character(len=*), intent(in) :: name
    integer, intent(in) :: info
    real(dp), intent(in) :: ratio
    character(len=24) :: r
    write (r, '(es10.3)') ratio
    call expect(info == 0 .and. ratio < thresh, name // ': INFO = 0, ratio ' // trim(adjustl(r)) // ' < 30')
    if (info /= 0) print '(a,i0)', '#   INFO = ', info
  end subroutine ratio_below

  real(dp) function rnd()  ! uniform in (-1, 1)
    seed = iand(seed * 6364136223846793005_8 + 1442695040888963407_8, huge(seed))
    rnd = 2.0_dp * real(ishft(seed, -11), dp) / real(ishft(huge(seed), -11), dp) - 1.0_dp
  end function rnd

  subroutine fill(a)
    real(dp), intent(out) :: a(:, :)
    integer :: i, j
    do j = 1, size(a, 2)
      do i = 1, size(a, 1)
        a(i, j) = rnd()
      end do
    end do
  end subroutine fill

  real(dp) function norm1(a)
    real(dp), intent(in) :: a(:, :)
    norm1 = maxval(sum(abs(a), dim=1))
  end function norm1

  ! dpotrf ('L') with LDA > N: ||A - L*L^T|| / (n ||A|| eps), rows below N
  ! untouched; then dpotri: ||I - A*inv(A)|| / (n ||A|| ||inv(A)|| eps).
  subroutine check_dpotrf_dpotri(n, lda)
    integer, intent(in) :: n, lda
    real(dp) :: a(n, n), b(n, n), f(lda, n), pad(lda - n, n), l(n, n), e(n, n)
    integer :: info, i, j
    call fill(b)
    a = matmul(transpose(b), b)
    do i = 1, n
      a(i, i) = a(i, i) + n
    end do
    call fill(f)
    pad = f(n + 1:, :)
    f(1:n, :) = a
    info = -1
    call dpotrf('L', n, f, lda, info)
    l = 0
    do j = 1, n
      l(j:n, j) = f(j:n, j)
    end do
    call ratio_below('dpotrf', info, norm1(a - matmul(l, transpose(l))) / (n * norm1(a) * eps))
    call expect(all(f(n + 1:, :) == pad), 'dpotrf: rows N+1:LDA untouched')
    info = -1
    call dpotri('L', n, f, lda, info)
    e = f(1:n, :)
    do j = 1, n
      do i = 1, j - 1
        e(i, j) = e(j, i)
      end do
    end do
    l = e
    e = -matmul(a, l)
    do i = 1, n
      e(i, i) = e(i, i) + 1
    end do
    call ratio_below('dpotri', info, norm1(e) / (n * norm1(a) * norm1(l) * eps))
  end subroutine check_dpotrf_dpotri

  ! dgeqrf (LWORK query first), Q from dorgqr: ||A - Q*R|| / (m ||A|| eps)
  ! and ||I - Q^T*Q|| / (m eps).
  subroutine check_dgeqrf(m, n, lda)
    integer, intent(in) :: m, n, lda
    real(dp) :: a(m, n), f(lda, n), r(n, n), e(n, n), tau(n), wq(1)
    real(dp), allocatable :: work(:)
    integer :: info, j, lwork
    call fill(a)
    call fill(f)
    f(1:m, :) = a
    info = -1
    call dgeqrf(m, n, f, lda, tau, wq, -1, info)
    call expect(info == 0 .and. wq(1) >= n, 'dgeqrf: LWORK = -1 query')
    lwork = int(wq(1))
    allocate (work(lwork))
    info = -1
    call dgeqrf(m, n, f, lda, tau, work, lwork, info)
    r = 0
    do j = 1, n
      r(1:j, j) = f(1:j, j)
    end do
    if (info == 0) then
      info = -1
      call dorgqr(m, n, n, f, lda, tau, work, lwork, info)
    end if
    call ratio_below('dgeqrf + dorgqr: A = Q*R', info, norm1(a - matmul(f(1:m, :), r)) / (m * norm1(a) * eps))
    e = -matmul(transpose(f(1:m, :)), f(1:m, :))
    do j = 1, n
      e(j, j) = e(j, j) + 1
    end do
    call ratio_below('dorgqr: Q^T*Q = I', info, norm1(e) / (m * eps))
  end subroutine check_dgeqrf

  ! dgels (LWORK query first): ||A^T (b - A x)|| / (max(m,n,nrhs) ||A|| ||b|| eps)
  subroutine check_dgels(m, n, nrhs)
    integer, intent(in) :: m, n, nrhs
    real(dp) :: a(m, n), f(m, n), b(m, nrhs), x(m, nrhs), wq(1)
    real(dp), allocatable :: work(:)
    integer :: info, lwork
    call fill(a)
    call fill(b)
    f = a
    x = b
    info = -1
    call dgels('N', m, n, nrhs, f, m, x, m, wq, -1, info)
    lwork = int(wq(1))
    allocate (work(lwork))
    info = -1
    call dgels('N', m, n, nrhs, f, m, x, m, work, lwork, info)
    call ratio_below('dgels', info, norm1(matmul(transpose(a), b - matmul(a, x(1:n, :)))) &
                     / (max(m, n, nrhs) * norm1(a) * norm1(b) * eps))
  end subroutine check_dgels

  ! dgesv, forwarded to the 64-bit system LAPACK: ||b - A x|| / (n ||A|| ||x|| eps)
  subroutine check_dgesv(n, nrhs)
    integer, intent(in) :: n, nrhs
    real(dp) :: a(n, n), f(n, n), b(n, nrhs), x(n, nrhs)
    integer :: ipiv(n), info
    call fill(a)
    call fill(b)
    f = a
    x = b
    info = -1
    call dgesv(n, nrhs, f, n, ipiv, x, n, info)
    call ratio_below('dgesv (forwarded)', info, norm1(b - matmul(a, x)) / (n * norm1(a) * norm1(x) * eps))
    call expect(all(ipiv >= 1 .and. ipiv <= n), 'dgesv (forwarded): IPIV in 1..N')
  end subroutine check_dgesv

  ! Each value below is legal in its lower 32 bits alone; in 64 bits it is not.
  subroutine check_illegal()
    real(dp) :: a(4, 4), work(64), tau(4)
    integer :: info, ipiv(4)
    call fill(a)
    call reset_xerbla(info)
    call dpotrf('L', -two32, a, 4, info)
    call reported('dpotrf, N = -2**32', info, 'DPOTRF', 2)
    call reset_xerbla(info)
    call dpotri('U', 2, a, 2 - two32, info)
    call reported('dpotri, LDA = 2 - 2**32', info, 'DPOTRI', 4)
    call reset_xerbla(info)
    call dgeqrf(4 + two32, 4, a, 4, tau, work, 64, info)
    call reported('dgeqrf, M = 4 + 2**32 > LDA', info, 'DGEQRF', 4)
    call reset_xerbla(info)
    call dgesv(-two32, 1, a, 4, ipiv, a, 4, info)
    call reported('dgesv (forwarded), N = -2**32', info, 'DGESV', 1)
  end subroutine check_illegal

  subroutine reset_xerbla(info)
    integer, intent(out) :: info
    info = -1
    xerbla_calls = 0
    xerbla_name = ''
    xerbla_info = 0
  end subroutine reset_xerbla

  ! INFO = -position, and exactly one XERBLA(routine, position).
  subroutine reported(what, info, routine, position)
    character(len=*), intent(in) :: what, routine
    integer, intent(in) :: info, position
    character(len=160) :: msg
    write (msg, '(a,a,i0,a,a,a,i0,a)') what, ': INFO = ', -position, ', XERBLA(', routine, ', ', position, ')'
    call expect(info == -position .and. xerbla_calls == 1 .and. xerbla_name == routine &
                .and. xerbla_info == position, trim(msg))
    if (.not. (info == -position .and. xerbla_calls == 1)) &
      print '(a,i0,a,i0,a,a,a,i0)', '#   got INFO = ', info, ', ', xerbla_calls, ' XERBLA call(s), last ', &
            trim(xerbla_name), ' ', xerbla_info
  end subroutine reported

end program ilp64_prog
