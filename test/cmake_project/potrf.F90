! A CMake user's Fortran program (test/cmake.sh): `use hqr` and dpotrf on a
! 3x3 SPD matrix with a known factor. The module must be the one of the
! target's INTEGER size: hqr::hqr64 defines HQR_ILP64 (seen here through the
! preprocessor, .F90) and must give hqr_int = 8 bytes. Prints "PASS" or stops
! with status 1.
program potrf_f
  use hqr
  implicit none
#if defined(HQR_ILP64)
  integer, parameter :: want_bytes = 8
#else
  integer, parameter :: want_bytes = 4
#endif
  real(8) :: a(3,3), l(3,3), err
  integer(hqr_int) :: info
  integer :: i
  if (storage_size(info) /= 8 * want_bytes) then
    print '(a,i0,a,i0)', 'hqr_int has ', storage_size(info) / 8, ' bytes, not ', want_bytes
    stop 1
  end if
  l = reshape([2d0, 1d0, -1d0, 0d0, 3d0, 2d0, 0d0, 0d0, 4d0], [3, 3])
  a = matmul(l, transpose(l))
  call dpotrf('L', 3_hqr_int, a, 3_hqr_int, info)
  err = 0
  do i = 1, 3
    err = max(err, maxval(abs(a(i:3,i) - l(i:3,i))))
  end do
  print '(a,i0,a,es8.1)', 'dpotrf info=', info, ' max error ', err
  if (info /= 0 .or. err > 1d-14) stop 1
  print '(a)', 'PASS'
end program potrf_f
