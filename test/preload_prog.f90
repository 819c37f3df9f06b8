! A plain LAPACK program (implicit interfaces, linked with -llapack only) for
! test/preload.sh. It factors, inverts, solves and QRs pseudo-random problems
! (a fixed seed, so two runs see the same data), checks each result with a
! LAPACK-style residual ratio, and prints one line per routine:
!   <routine> ratio=<r> checksum=<c>
! The checksums let the script compare a plain run with an LD_PRELOAD run.
! Exit status 1 when a ratio exceeds the threshold or INFO is not 0.
program preload_prog
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: thresh = 30.0_dp
  integer :: nbad
  integer(8) :: seed
  real(dp) :: eps
  external :: dpotrf, dpotri, dgeqrf, dorgqr, dgels, zpotrf, dgesv
  real(dp), external :: dlamch

  eps = dlamch('E')
  seed = 20240611_8
  nbad = 0
  call check_dpotrf_dpotri(300)
  call check_dgeqrf(400, 250)
  call check_dgels(400, 250, 3)
  call check_zpotrf(200)
  call check_dgesv(300, 2)
  if (nbad /= 0) then
    write (*, '(a,i0,a)') 'FAIL: ', nbad, ' check(s) failed'
    stop 1
  end if
  write (*, '(a)') 'PASS'

contains

  real(dp) function rnd()  ! uniform in (-1, 1), reproducible
    seed = iand(seed * 6364136223846793005_8 + 1442695040888963407_8, huge(seed))
    rnd = 2.0_dp * real(ishft(seed, -11), dp) / real(ishft(huge(seed), -11), dp) - 1.0_dp
  end function rnd

  subroutine report(name, ratio, checksum, info)
    character(len=*), intent(in) :: name
    real(dp), intent(in) :: ratio, checksum
    integer, intent(in) :: info
    write (*, '(a,1x,a,es10.3,1x,a,es24.16,1x,a,i0)') name, 'ratio=', ratio, 'checksum=', checksum, 'info=', info
    if (info /= 0 .or. .not. (ratio < thresh)) then
      nbad = nbad + 1
      write (*, '(a,a)') '  FAILED: ', name
    end if
  end subroutine report

  real(dp) function norm1(a)
    real(dp), intent(in) :: a(:, :)
    norm1 = maxval(sum(abs(a), dim=1))
  end function norm1

  subroutine random_spd(n, a)
    integer, intent(in) :: n
    real(dp), intent(out) :: a(n, n)
    real(dp) :: b(n, n)
    integer :: i, j
    do j = 1, n
      do i = 1, n
        b(i, j) = rnd()
      end do
    end do
    a = matmul(transpose(b), b)
    do i = 1, n
      a(i, i) = a(i, i) + n
    end do
  end subroutine random_spd

  ! dpotrf ('L'): ||A - L*L^T|| / (n ||A|| eps); then dpotri: ||I - A*inv(A)|| / (n ||A|| ||inv(A)|| eps)
  subroutine check_dpotrf_dpotri(n)
    integer, intent(in) :: n
    real(dp) :: a(n, n), f(n, n), l(n, n), e(n, n)
    integer :: info, i, j
    call random_spd(n, a)
    f = a
    call dpotrf('L', n, f, n, info)
    l = 0
    do j = 1, n
      l(j:n, j) = f(j:n, j)
    end do
    call report('dpotrf', norm1(a - matmul(l, transpose(l))) / (n * norm1(a) * eps), sum(abs(l)), info)
    call dpotri('L', n, f, n, info)
    do j = 1, n
      do i = 1, j - 1
        f(i, j) = f(j, i)
      end do
    end do
    e = -matmul(a, f)
    do i = 1, n
      e(i, i) = e(i, i) + 1
    end do
    call report('dpotri', norm1(e) / (n * norm1(a) * norm1(f) * eps), sum(abs(f)), info)
  end subroutine check_dpotrf_dpotri

  ! dgeqrf: ||A - Q*R|| / (m ||A|| eps), Q from dorgqr
  subroutine check_dgeqrf(m, n)
    integer, intent(in) :: m, n
    real(dp) :: a(m, n), f(m, n), r(n, n), tau(n), wq(1)
    real(dp), allocatable :: work(:)
    integer :: info, i, j, lwork
    do j = 1, n
      do i = 1, m
        a(i, j) = rnd()
      end do
    end do
    f = a
    call dgeqrf(m, n, f, m, tau, wq, -1, info)
    lwork = max(1, int(wq(1)))
    allocate (work(lwork))
    call dgeqrf(m, n, f, m, tau, work, lwork, info)
    r = 0
    do j = 1, n
      r(1:j, j) = f(1:j, j)
    end do
    if (info == 0) call dorgqr(m, n, n, f, m, tau, work, lwork, info)
    call report('dgeqrf', norm1(a - matmul(f, r)) / (m * norm1(a) * eps), sum(abs(r)), info)
  end subroutine check_dgeqrf

  ! dgels: ||A^T (b - A x)|| / (max(m,n,nrhs) ||A|| ||b|| eps)
  subroutine check_dgels(m, n, nrhs)
    integer, intent(in) :: m, n, nrhs
    real(dp) :: a(m, n), f(m, n), b(m, nrhs), x(m, nrhs), wq(1)
    real(dp), allocatable :: work(:)
    integer :: info, i, j, lwork
    do j = 1, n
      do i = 1, m
        a(i, j) = rnd()
      end do
    end do
    do j = 1, nrhs
      do i = 1, m
        b(i, j) = rnd()
      end do
    end do
    f = a
    x = b
    call dgels('N', m, n, nrhs, f, m, x, m, wq, -1, info)
    lwork = max(1, int(wq(1)))
    allocate (work(lwork))
    call dgels('N', m, n, nrhs, f, m, x, m, work, lwork, info)
    call report('dgels', norm1(matmul(transpose(a), b - matmul(a, x(1:n, :)))) &
                / (max(m, n, nrhs) * norm1(a) * norm1(b) * eps), sum(abs(x(1:n, :))), info)
  end subroutine check_dgels

  ! zpotrf ('U'): ||A - U^H*U|| / (n ||A|| eps)
  subroutine check_zpotrf(n)
    integer, intent(in) :: n
    complex(dp) :: a(n, n), b(n, n), f(n, n), u(n, n)
    integer :: info, i, j
    do j = 1, n
      do i = 1, n
        b(i, j) = cmplx(rnd(), rnd(), dp)
      end do
    end do
    a = matmul(conjg(transpose(b)), b)
    do i = 1, n
      a(i, i) = a(i, i) + n
    end do
    f = a
    call zpotrf('U', n, f, n, info)
    u = 0
    do j = 1, n
      u(1:j, j) = f(1:j, j)
    end do
    call report('zpotrf', maxval(sum(abs(a - matmul(conjg(transpose(u)), u)), dim=1)) &
                / (n * maxval(sum(abs(a), dim=1)) * eps), sum(abs(u)), info)
  end subroutine check_zpotrf

  ! dgesv (not implemented by hqr: forwarded): ||b - A x|| / (n ||A|| ||x|| eps)
  subroutine check_dgesv(n, nrhs)
    integer, intent(in) :: n, nrhs
    real(dp) :: a(n, n), f(n, n), b(n, nrhs), x(n, nrhs)
    integer :: ipiv(n), info, i, j
    do j = 1, n
      do i = 1, n
        a(i, j) = rnd()
      end do
    end do
    do j = 1, nrhs
      do i = 1, n
        b(i, j) = rnd()
      end do
    end do
    f = a
    x = b
    call dgesv(n, nrhs, f, n, ipiv, x, n, info)
    call report('dgesv', norm1(b - matmul(a, x)) / (n * norm1(a) * norm1(x) * eps), sum(abs(x)), info)
  end subroutine check_dgesv

end program preload_prog
