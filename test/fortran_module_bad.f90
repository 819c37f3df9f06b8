! Must NOT compile (test/fortran_module.sh): the module's explicit interfaces
! reject a single-precision matrix passed to dpotrf and a missing argument.
program fortran_module_bad
  use hqr
  implicit none
  real :: a(4, 4)
  integer(hqr_int) :: info
  a = 0
  call dpotrf('L', 4, a, 4, info)
end program fortran_module_bad
