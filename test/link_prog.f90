! Way in 2 from Fortran: a legacy program (implicit interfaces) that calls
! dgesv and dgemm (forwarded by hqr) and dpotrf (hqr's own), linked with
! -lhqr alone (test/link.sh). Prints "PASS" or stops with status 1.
program link_prog
  implicit none
  integer, parameter :: n = 100
  double precision :: a(n, n), f(n, n), s(n, n), b(n), x(n)
  integer :: ipiv(n), info, i, j
  logical :: bad
  external :: dgesv, dgemm, dpotrf
  bad = .false.
  do j = 1, n
    do i = 1, n
      a(i, j) = sin(dble(i * j + 3 * i)) + merge(2.0d0 * n, 0.0d0, i == j)
    end do
    b(j) = cos(dble(j))
  end do
  f = a
  x = b
  call dgesv(n, 1, f, n, ipiv, x, n, info)
  print '(a,i0,a,es10.3)', 'dgesv info=', info, ' residual=', maxval(abs(b - matmul(a, x)))
  bad = bad .or. info /= 0 .or. .not. maxval(abs(b - matmul(a, x))) < 1d-10
  call dgemm('T', 'N', n, n, n, 1.0d0, a, n, a, n, 0.0d0, s, n)
  print '(a,es10.3)', 'dgemm error=', maxval(abs(s - matmul(transpose(a), a)))
  bad = bad .or. .not. maxval(abs(s - matmul(transpose(a), a))) < 1d-9
  f = s
  call dpotrf('U', n, f, n, info)
  do j = 1, n
    f(j + 1:n, j) = 0
  end do
  print '(a,i0,a,es10.3)', 'dpotrf info=', info, ' error=', maxval(abs(s - matmul(transpose(f), f))) / maxval(abs(s))
  bad = bad .or. info /= 0 .or. .not. maxval(abs(s - matmul(transpose(f), f))) / maxval(abs(s)) < 1d-13
  if (bad) then
    print '(a)', 'FAIL'
    stop 1
  end if
  print '(a)', 'PASS'
end program link_prog
