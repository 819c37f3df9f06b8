! hqr — Fortran 2003 module for libhqr.so.
!
!   use hqr
!   gfortran prog.f90 -I<dir of hqr.mod> -L<dir of libhqr.so> -lhqr
!
! Explicit interfaces for every routine libhqr exports (ABI.md, include/hqr.h):
!
! * The LAPACK routines (s/d/c/z potrf potri trtri lauum potrs posv geqrf gels
!   gelsd, s/d ormqr orgqr, c/z unmqr ungqr), hqr's log-determinant (s/d/c/z
!   pologdet) and QR-updating routines (s/d/c/z qrupd_addcols, _delcols,
!   _addrows, _delrows, and the economy form's _addcols_econ, _delcols_econ,
!   _addrows_econ), the level-3 BLAS (s/d/c/z gemm symm syrk syr2k trmm
!   trsm, c/z hemm herk her2k) and s/d/c/z copy keep the ordinary Fortran
!   calling convention: no BIND(C), so the compiler appends the symbol's
!   underscore and passes the hidden CHARACTER lengths itself. A program that
!   already calls LAPACK compiles unchanged; the interfaces only add checking
!   of argument types, kinds and ranks. Arrays are assumed-size, so an array
!   element (WORK(1)) or a whole array may be passed, as with LAPACK; a scalar
!   variable where LAPACK expects an array is now a compile-time error.
!
! * hqr's runtime API (hqr_version, hqr_device, hqr_device_name, hqr_set_*) is
!   C and is bound with BIND(C). hqr_version() and hqr_device_name() here are
!   Fortran functions returning CHARACTER(:), ALLOCATABLE; the C entry points
!   themselves are available as hqr_version_c() and hqr_device_name_c().
!
! INTEGER arguments have kind hqr_int: C int (32-bit) for libhqr.so. The
! definition of hqr_int below is the only place the LAPACK INTEGER kind is
! named, so the ILP64 twin's module (libhqr64.so) is this file with that one
! line reading c_int64_t (by sed, or by the preprocessor once the file is
! hqr.F90 with an #ifdef HQR_ILP64 there). The runtime API keeps its C types.
module hqr
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_long, c_float, c_double, &
       c_float_complex, c_double_complex, c_char, c_ptr, c_size_t, &
       c_associated, c_f_pointer
  implicit none
  private :: c_f_pointer, c_associated, c_size_t, c_char, c_ptr, c_string, c_chars

  ! Kind of LAPACK INTEGER arguments (32-bit in libhqr.so, 64-bit in libhqr64.so).
  integer, parameter, public :: hqr_int = c_int
  ! Kinds of the matrix elements, for callers who want to spell them.
  integer, parameter, public :: hqr_sp = c_float, hqr_dp = c_double
  integer, parameter, public :: hqr_cp = c_float_complex, hqr_zp = c_double_complex

  ! ===================================================================== !
  ! LAPACK routines (Fortran calling convention)                          !
  ! ===================================================================== !
  interface
    ! ---- xPOTRF: Cholesky factorization ---------------------------------
    subroutine spotrf(uplo, n, a, lda, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_float), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine spotrf
    subroutine dpotrf(uplo, n, a, lda, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_double), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine dpotrf
    subroutine cpotrf(uplo, n, a, lda, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_float_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine cpotrf
    subroutine zpotrf(uplo, n, a, lda, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_double_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine zpotrf

    ! ---- xPOLOGDET (hqr's own): xPOTRF, then logdet = log(det(A)) when info = 0
    subroutine spologdet(uplo, n, a, lda, logdet, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_float), intent(inout) :: a(lda, *)
      real(c_float), intent(inout) :: logdet
      integer(hqr_int), intent(out) :: info
    end subroutine spologdet
    subroutine dpologdet(uplo, n, a, lda, logdet, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_double), intent(inout) :: a(lda, *)
      real(c_double), intent(inout) :: logdet
      integer(hqr_int), intent(out) :: info
    end subroutine dpologdet
    subroutine cpologdet(uplo, n, a, lda, logdet, info)
      import :: hqr_int, c_float, c_float_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_float_complex), intent(inout) :: a(lda, *)
      real(c_float), intent(inout) :: logdet
      integer(hqr_int), intent(out) :: info
    end subroutine cpologdet
    subroutine zpologdet(uplo, n, a, lda, logdet, info)
      import :: hqr_int, c_double, c_double_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_double_complex), intent(inout) :: a(lda, *)
      real(c_double), intent(inout) :: logdet
      integer(hqr_int), intent(out) :: info
    end subroutine zpologdet

    ! ---- xPOTRI: inverse from the Cholesky factor ------------------------
    subroutine spotri(uplo, n, a, lda, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_float), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine spotri
    subroutine dpotri(uplo, n, a, lda, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_double), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine dpotri
    subroutine cpotri(uplo, n, a, lda, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_float_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine cpotri
    subroutine zpotri(uplo, n, a, lda, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_double_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine zpotri

    ! ---- xTRTRI: triangular inverse --------------------------------------
    subroutine strtri(uplo, diag, n, a, lda, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo, diag
      integer(hqr_int), intent(in) :: n, lda
      real(c_float), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine strtri
    subroutine dtrtri(uplo, diag, n, a, lda, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo, diag
      integer(hqr_int), intent(in) :: n, lda
      real(c_double), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine dtrtri
    subroutine ctrtri(uplo, diag, n, a, lda, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo, diag
      integer(hqr_int), intent(in) :: n, lda
      complex(c_float_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine ctrtri
    subroutine ztrtri(uplo, diag, n, a, lda, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo, diag
      integer(hqr_int), intent(in) :: n, lda
      complex(c_double_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine ztrtri

    ! ---- xLAUUM: U*U**H or L**H*L -----------------------------------------
    subroutine slauum(uplo, n, a, lda, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_float), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine slauum
    subroutine dlauum(uplo, n, a, lda, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      real(c_double), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine dlauum
    subroutine clauum(uplo, n, a, lda, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_float_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine clauum
    subroutine zlauum(uplo, n, a, lda, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, lda
      complex(c_double_complex), intent(inout) :: a(lda, *)
      integer(hqr_int), intent(out) :: info
    end subroutine zlauum

    ! ---- xPOTRS: solve with the Cholesky factor ---------------------------
    subroutine spotrs(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      real(c_float), intent(in) :: a(lda, *)
      real(c_float), intent(inout) :: b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine spotrs
    subroutine dpotrs(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      real(c_double), intent(in) :: a(lda, *)
      real(c_double), intent(inout) :: b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine dpotrs
    subroutine cpotrs(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      complex(c_float_complex), intent(in) :: a(lda, *)
      complex(c_float_complex), intent(inout) :: b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine cpotrs
    subroutine zpotrs(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      complex(c_double_complex), intent(in) :: a(lda, *)
      complex(c_double_complex), intent(inout) :: b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine zpotrs

    ! ---- xPOSV: factor and solve ------------------------------------------
    subroutine sposv(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      real(c_float), intent(inout) :: a(lda, *), b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine sposv
    subroutine dposv(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      real(c_double), intent(inout) :: a(lda, *), b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine dposv
    subroutine cposv(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      complex(c_float_complex), intent(inout) :: a(lda, *), b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine cposv
    subroutine zposv(uplo, n, nrhs, a, lda, b, ldb, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo
      integer(hqr_int), intent(in) :: n, nrhs, lda, ldb
      complex(c_double_complex), intent(inout) :: a(lda, *), b(ldb, *)
      integer(hqr_int), intent(out) :: info
    end subroutine zposv

    ! ---- xGEQRF: QR factorization (compact V + tau) -----------------------
    subroutine sgeqrf(m, n, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_float
      integer(hqr_int), intent(in) :: m, n, lda, lwork
      real(c_float), intent(inout) :: a(lda, *)
      real(c_float), intent(out) :: tau(*), work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sgeqrf
    subroutine dgeqrf(m, n, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_double
      integer(hqr_int), intent(in) :: m, n, lda, lwork
      real(c_double), intent(inout) :: a(lda, *)
      real(c_double), intent(out) :: tau(*), work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dgeqrf
    subroutine cgeqrf(m, n, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_float_complex
      integer(hqr_int), intent(in) :: m, n, lda, lwork
      complex(c_float_complex), intent(inout) :: a(lda, *)
      complex(c_float_complex), intent(out) :: tau(*), work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cgeqrf
    subroutine zgeqrf(m, n, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_double_complex
      integer(hqr_int), intent(in) :: m, n, lda, lwork
      complex(c_double_complex), intent(inout) :: a(lda, *)
      complex(c_double_complex), intent(out) :: tau(*), work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zgeqrf

    ! ---- xORMQR / xUNMQR: multiply by Q from geqrf -----------------------
    subroutine sormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: side, trans
      integer(hqr_int), intent(in) :: m, n, k, lda, ldc, lwork
      real(c_float), intent(in) :: a(lda, *), tau(*)
      real(c_float), intent(inout) :: c(ldc, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sormqr
    subroutine dormqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: side, trans
      integer(hqr_int), intent(in) :: m, n, k, lda, ldc, lwork
      real(c_double), intent(in) :: a(lda, *), tau(*)
      real(c_double), intent(inout) :: c(ldc, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dormqr
    subroutine cunmqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: side, trans
      integer(hqr_int), intent(in) :: m, n, k, lda, ldc, lwork
      complex(c_float_complex), intent(in) :: a(lda, *), tau(*)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cunmqr
    subroutine zunmqr(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: side, trans
      integer(hqr_int), intent(in) :: m, n, k, lda, ldc, lwork
      complex(c_double_complex), intent(in) :: a(lda, *), tau(*)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zunmqr

    ! ---- xORGQR / xUNGQR: form Q from geqrf ------------------------------
    subroutine sorgqr(m, n, k, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_float
      integer(hqr_int), intent(in) :: m, n, k, lda, lwork
      real(c_float), intent(inout) :: a(lda, *)
      real(c_float), intent(in) :: tau(*)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sorgqr
    subroutine dorgqr(m, n, k, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_double
      integer(hqr_int), intent(in) :: m, n, k, lda, lwork
      real(c_double), intent(inout) :: a(lda, *)
      real(c_double), intent(in) :: tau(*)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dorgqr
    subroutine cungqr(m, n, k, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_float_complex
      integer(hqr_int), intent(in) :: m, n, k, lda, lwork
      complex(c_float_complex), intent(inout) :: a(lda, *)
      complex(c_float_complex), intent(in) :: tau(*)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cungqr
    subroutine zungqr(m, n, k, a, lda, tau, work, lwork, info)
      import :: hqr_int, c_double_complex
      integer(hqr_int), intent(in) :: m, n, k, lda, lwork
      complex(c_double_complex), intent(inout) :: a(lda, *)
      complex(c_double_complex), intent(in) :: tau(*)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zungqr

    ! ---- xGELS: least squares / minimum norm through QR or LQ ------------
    subroutine sgels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: trans
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      real(c_float), intent(inout) :: a(lda, *), b(ldb, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sgels
    subroutine dgels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: trans
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      real(c_double), intent(inout) :: a(lda, *), b(ldb, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dgels
    subroutine cgels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: trans
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      complex(c_float_complex), intent(inout) :: a(lda, *), b(ldb, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cgels
    subroutine zgels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: trans
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      complex(c_double_complex), intent(inout) :: a(lda, *), b(ldb, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zgels

    ! ---- xGELSD: minimum-norm least squares through the SVD (any rank) -----
    subroutine sgelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info)
      import :: hqr_int, c_float
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      real(c_float), intent(inout) :: a(lda, *), b(ldb, *)
      real(c_float), intent(out) :: s(*)
      real(c_float), intent(in) :: rcond
      integer(hqr_int), intent(out) :: rank
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: iwork(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sgelsd
    subroutine dgelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info)
      import :: hqr_int, c_double
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      real(c_double), intent(inout) :: a(lda, *), b(ldb, *)
      real(c_double), intent(out) :: s(*)
      real(c_double), intent(in) :: rcond
      integer(hqr_int), intent(out) :: rank
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: iwork(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dgelsd
    subroutine cgelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info)
      import :: hqr_int, c_float, c_float_complex
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      complex(c_float_complex), intent(inout) :: a(lda, *), b(ldb, *)
      real(c_float), intent(out) :: s(*)
      real(c_float), intent(in) :: rcond
      integer(hqr_int), intent(out) :: rank
      complex(c_float_complex), intent(out) :: work(*)
      real(c_float), intent(out) :: rwork(*)
      integer(hqr_int), intent(out) :: iwork(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cgelsd
    subroutine zgelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info)
      import :: hqr_int, c_double, c_double_complex
      integer(hqr_int), intent(in) :: m, n, nrhs, lda, ldb, lwork
      complex(c_double_complex), intent(inout) :: a(lda, *), b(ldb, *)
      real(c_double), intent(out) :: s(*)
      real(c_double), intent(in) :: rcond
      integer(hqr_int), intent(out) :: rank
      complex(c_double_complex), intent(out) :: work(*)
      real(c_double), intent(out) :: rwork(*)
      integer(hqr_int), intent(out) :: iwork(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zgelsd

    ! ===================================================================
    ! QR updating (hqr's own; ABI fixed, ABI.md). A = Q*R, Q M-by-M
    ! (unitary for c, z), R M-by-N upper trapezoidal; J is 1-based; LWORK = -1 is a query.
    ! ===================================================================
    subroutine sqrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_float), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sqrupd_addcols
    subroutine dqrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_double), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dqrupd_addcols
    subroutine sqrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      real(c_float), intent(inout) :: q(ldq, *), r(ldr, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sqrupd_delcols
    subroutine dqrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      real(c_double), intent(inout) :: q(ldq, *), r(ldr, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dqrupd_delcols
    subroutine sqrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_float), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sqrupd_addrows
    subroutine dqrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_double), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dqrupd_addrows
    subroutine sqrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_float
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      real(c_float), intent(inout) :: q(ldq, *), r(ldr, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sqrupd_delrows
    subroutine dqrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_double
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      real(c_double), intent(inout) :: q(ldq, *), r(ldr, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dqrupd_delrows
    subroutine cqrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float_complex
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_float_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cqrupd_addcols
    subroutine cqrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      complex(c_float_complex), intent(inout) :: q(ldq, *), r(ldr, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cqrupd_delcols
    subroutine cqrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_float_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cqrupd_addrows
    subroutine cqrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_float_complex
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      complex(c_float_complex), intent(inout) :: q(ldq, *), r(ldr, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cqrupd_delrows
    subroutine zqrupd_addcols(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double_complex
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_double_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zqrupd_addcols
    subroutine zqrupd_delcols(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      complex(c_double_complex), intent(inout) :: q(ldq, *), r(ldr, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zqrupd_delcols
    subroutine zqrupd_addrows(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_double_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zqrupd_addrows
    subroutine zqrupd_delrows(m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_double_complex
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      complex(c_double_complex), intent(inout) :: q(ldq, *), r(ldr, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zqrupd_delrows
    ! ===================================================================
    ! QR updating, economy form (ABI.md section 5.7): Q M-by-N with
    ! orthonormal columns, R N-by-N, M >= N.
    ! ===================================================================
    subroutine sqrupd_addcols_econ(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_float), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sqrupd_addcols_econ
    subroutine dqrupd_addcols_econ(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_double), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dqrupd_addcols_econ
    subroutine cqrupd_addcols_econ(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float_complex
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_float_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cqrupd_addcols_econ
    subroutine zqrupd_addcols_econ(m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double_complex
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_double_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zqrupd_addcols_econ
    subroutine sqrupd_delcols_econ(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      real(c_float), intent(inout) :: q(ldq, *), r(ldr, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sqrupd_delcols_econ
    subroutine dqrupd_delcols_econ(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      real(c_double), intent(inout) :: q(ldq, *), r(ldr, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dqrupd_delcols_econ
    subroutine cqrupd_delcols_econ(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      complex(c_float_complex), intent(inout) :: q(ldq, *), r(ldr, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cqrupd_delcols_econ
    subroutine zqrupd_delcols_econ(jobq, m, n, p, j, q, ldq, r, ldr, work, lwork, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, lwork
      complex(c_double_complex), intent(inout) :: q(ldq, *), r(ldr, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zqrupd_delcols_econ
    subroutine sqrupd_addrows_econ(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_float), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_float), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine sqrupd_addrows_econ
    subroutine dqrupd_addrows_econ(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      real(c_double), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      real(c_double), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine dqrupd_addrows_econ
    subroutine cqrupd_addrows_econ(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_float_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_float_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine cqrupd_addrows_econ
    subroutine zqrupd_addrows_econ(jobq, m, n, p, j, q, ldq, r, ldr, u, ldu, work, lwork, info)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: jobq
      integer(hqr_int), intent(in) :: m, n, p, j, ldq, ldr, ldu, lwork
      complex(c_double_complex), intent(inout) :: q(ldq, *), r(ldr, *), u(ldu, *)
      complex(c_double_complex), intent(out) :: work(*)
      integer(hqr_int), intent(out) :: info
    end subroutine zqrupd_addrows_econ
  end interface

  ! ===================================================================== !
  ! Level-3 BLAS (Fortran calling convention; ABI.md section 4.1)         !
  ! ===================================================================== !
  interface
    ! ---- xGEMM: C := alpha*op(A)*op(B) + beta*C --------------------------
    subroutine sgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: transa, transb
      integer(hqr_int), intent(in) :: m, n, k, lda, ldb, ldc
      real(c_float), intent(in) :: alpha, beta
      real(c_float), intent(in) :: a(lda, *), b(ldb, *)
      real(c_float), intent(inout) :: c(ldc, *)
    end subroutine sgemm
    subroutine dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: transa, transb
      integer(hqr_int), intent(in) :: m, n, k, lda, ldb, ldc
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in) :: a(lda, *), b(ldb, *)
      real(c_double), intent(inout) :: c(ldc, *)
    end subroutine dgemm
    subroutine cgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: transa, transb
      integer(hqr_int), intent(in) :: m, n, k, lda, ldb, ldc
      complex(c_float_complex), intent(in) :: alpha, beta
      complex(c_float_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
    end subroutine cgemm
    subroutine zgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: transa, transb
      integer(hqr_int), intent(in) :: m, n, k, lda, ldb, ldc
      complex(c_double_complex), intent(in) :: alpha, beta
      complex(c_double_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
    end subroutine zgemm
    ! ---- xSYMM, xHEMM: C := alpha*A*B + beta*C or alpha*B*A + beta*C ----
    subroutine ssymm(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: side, uplo
      integer(hqr_int), intent(in) :: m, n, lda, ldb, ldc
      real(c_float), intent(in) :: alpha, beta
      real(c_float), intent(in) :: a(lda, *), b(ldb, *)
      real(c_float), intent(inout) :: c(ldc, *)
    end subroutine ssymm
    subroutine dsymm(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: side, uplo
      integer(hqr_int), intent(in) :: m, n, lda, ldb, ldc
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in) :: a(lda, *), b(ldb, *)
      real(c_double), intent(inout) :: c(ldc, *)
    end subroutine dsymm
    subroutine csymm(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: side, uplo
      integer(hqr_int), intent(in) :: m, n, lda, ldb, ldc
      complex(c_float_complex), intent(in) :: alpha, beta
      complex(c_float_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
    end subroutine csymm
    subroutine zsymm(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: side, uplo
      integer(hqr_int), intent(in) :: m, n, lda, ldb, ldc
      complex(c_double_complex), intent(in) :: alpha, beta
      complex(c_double_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
    end subroutine zsymm
    subroutine chemm(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: side, uplo
      integer(hqr_int), intent(in) :: m, n, lda, ldb, ldc
      complex(c_float_complex), intent(in) :: alpha, beta
      complex(c_float_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
    end subroutine chemm
    subroutine zhemm(side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: side, uplo
      integer(hqr_int), intent(in) :: m, n, lda, ldb, ldc
      complex(c_double_complex), intent(in) :: alpha, beta
      complex(c_double_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
    end subroutine zhemm
    ! ---- xSYRK, xHERK: C := alpha*op(A)*op(A)**T (**H) + beta*C ---------
    subroutine ssyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldc
      real(c_float), intent(in) :: alpha, beta
      real(c_float), intent(in) :: a(lda, *)
      real(c_float), intent(inout) :: c(ldc, *)
    end subroutine ssyrk
    subroutine dsyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldc
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in) :: a(lda, *)
      real(c_double), intent(inout) :: c(ldc, *)
    end subroutine dsyrk
    subroutine csyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldc
      complex(c_float_complex), intent(in) :: alpha, beta
      complex(c_float_complex), intent(in) :: a(lda, *)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
    end subroutine csyrk
    subroutine zsyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldc
      complex(c_double_complex), intent(in) :: alpha, beta
      complex(c_double_complex), intent(in) :: a(lda, *)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
    end subroutine zsyrk
    subroutine cherk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
      import :: hqr_int, c_float, c_float_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldc
      real(c_float), intent(in) :: alpha, beta
      complex(c_float_complex), intent(in) :: a(lda, *)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
    end subroutine cherk
    subroutine zherk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc)
      import :: hqr_int, c_double, c_double_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldc
      real(c_double), intent(in) :: alpha, beta
      complex(c_double_complex), intent(in) :: a(lda, *)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
    end subroutine zherk
    ! ---- xSYR2K, xHER2K: rank-2k update (xHER2K: BETA real) -------------
    subroutine ssyr2k(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldb, ldc
      real(c_float), intent(in) :: alpha
      real(c_float), intent(in) :: beta
      real(c_float), intent(in) :: a(lda, *), b(ldb, *)
      real(c_float), intent(inout) :: c(ldc, *)
    end subroutine ssyr2k
    subroutine dsyr2k(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldb, ldc
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in) :: beta
      real(c_double), intent(in) :: a(lda, *), b(ldb, *)
      real(c_double), intent(inout) :: c(ldc, *)
    end subroutine dsyr2k
    subroutine csyr2k(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldb, ldc
      complex(c_float_complex), intent(in) :: alpha
      complex(c_float_complex), intent(in) :: beta
      complex(c_float_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
    end subroutine csyr2k
    subroutine zsyr2k(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldb, ldc
      complex(c_double_complex), intent(in) :: alpha
      complex(c_double_complex), intent(in) :: beta
      complex(c_double_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
    end subroutine zsyr2k
    subroutine cher2k(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_float, c_float_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldb, ldc
      complex(c_float_complex), intent(in) :: alpha
      real(c_float), intent(in) :: beta
      complex(c_float_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_float_complex), intent(inout) :: c(ldc, *)
    end subroutine cher2k
    subroutine zher2k(uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      import :: hqr_int, c_double, c_double_complex
      character(len=1), intent(in) :: uplo, trans
      integer(hqr_int), intent(in) :: n, k, lda, ldb, ldc
      complex(c_double_complex), intent(in) :: alpha
      real(c_double), intent(in) :: beta
      complex(c_double_complex), intent(in) :: a(lda, *), b(ldb, *)
      complex(c_double_complex), intent(inout) :: c(ldc, *)
    end subroutine zher2k
    ! ---- xTRMM: B := alpha*op(A)*B or alpha*B*op(A), A triangular -
    subroutine strmm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      real(c_float), intent(in) :: alpha
      real(c_float), intent(in) :: a(lda, *)
      real(c_float), intent(inout) :: b(ldb, *)
    end subroutine strmm
    subroutine dtrmm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in) :: a(lda, *)
      real(c_double), intent(inout) :: b(ldb, *)
    end subroutine dtrmm
    subroutine ctrmm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      complex(c_float_complex), intent(in) :: alpha
      complex(c_float_complex), intent(in) :: a(lda, *)
      complex(c_float_complex), intent(inout) :: b(ldb, *)
    end subroutine ctrmm
    subroutine ztrmm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      complex(c_double_complex), intent(in) :: alpha
      complex(c_double_complex), intent(in) :: a(lda, *)
      complex(c_double_complex), intent(inout) :: b(ldb, *)
    end subroutine ztrmm
    ! ---- xTRSM: B := alpha*op(A)**-1*B or alpha*B*op(A)**-1 ------
    subroutine strsm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_float
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      real(c_float), intent(in) :: alpha
      real(c_float), intent(in) :: a(lda, *)
      real(c_float), intent(inout) :: b(ldb, *)
    end subroutine strsm
    subroutine dtrsm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_double
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in) :: a(lda, *)
      real(c_double), intent(inout) :: b(ldb, *)
    end subroutine dtrsm
    subroutine ctrsm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_float_complex
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      complex(c_float_complex), intent(in) :: alpha
      complex(c_float_complex), intent(in) :: a(lda, *)
      complex(c_float_complex), intent(inout) :: b(ldb, *)
    end subroutine ctrsm
    subroutine ztrsm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
      import :: hqr_int, c_double_complex
      character(len=1), intent(in) :: side, uplo, transa, diag
      integer(hqr_int), intent(in) :: m, n, lda, ldb
      complex(c_double_complex), intent(in) :: alpha
      complex(c_double_complex), intent(in) :: a(lda, *)
      complex(c_double_complex), intent(inout) :: b(ldb, *)
    end subroutine ztrsm
  end interface

  ! ===================================================================== !
  ! Level-1 BLAS xCOPY (Fortran calling convention; ABI.md section 4.3)   !
  ! ===================================================================== !
  interface
    subroutine scopy(n, x, incx, y, incy)
      import :: hqr_int, c_float
      integer(hqr_int), intent(in) :: n, incx, incy
      real(c_float), intent(in) :: x(*)
      real(c_float), intent(inout) :: y(*)
    end subroutine scopy
    subroutine dcopy(n, x, incx, y, incy)
      import :: hqr_int, c_double
      integer(hqr_int), intent(in) :: n, incx, incy
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(inout) :: y(*)
    end subroutine dcopy
    subroutine ccopy(n, x, incx, y, incy)
      import :: hqr_int, c_float_complex
      integer(hqr_int), intent(in) :: n, incx, incy
      complex(c_float_complex), intent(in) :: x(*)
      complex(c_float_complex), intent(inout) :: y(*)
    end subroutine ccopy
    subroutine zcopy(n, x, incx, y, incy)
      import :: hqr_int, c_double_complex
      integer(hqr_int), intent(in) :: n, incx, incy
      complex(c_double_complex), intent(in) :: x(*)
      complex(c_double_complex), intent(inout) :: y(*)
    end subroutine zcopy
  end interface

  ! ===================================================================== !
  ! hqr's runtime API (C, include/hqr.h)                                  !
  ! ===================================================================== !
  interface
    ! const char *hqr_version(void): "MAJOR.MINOR.PATCH" (see hqr_version below)
    function hqr_version_c() bind(C, name='hqr_version') result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function hqr_version_c
    ! int hqr_device(void): ordinal of the serving GPU, -1 when every call runs on the CPU
    function hqr_device() bind(C, name='hqr_device') result(ordinal)
      import :: c_int
      integer(c_int) :: ordinal
    end function hqr_device
    ! const char *hqr_device_name(void): "none" when hqr_device() is -1
    function hqr_device_name_c() bind(C, name='hqr_device_name') result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function hqr_device_name_c
    ! int hqr_device_count(void): how many GPUs serve calls, 0 when none
    function hqr_device_count() bind(C, name='hqr_device_count') result(count)
      import :: c_int
      integer(c_int) :: count
    end function hqr_device_count
    ! void hqr_set_device(int ordinal): HQR_DEVICE; -1 for none
    subroutine hqr_set_device(ordinal) bind(C, name='hqr_set_device')
      import :: c_int
      integer(c_int), value :: ordinal
    end subroutine hqr_set_device
    ! int hqr_set_devices(const char *list): HQR_DEVICE as text ("all", "none", "0,2", "local-rank");
    ! 0, or -1 for a text that is none of these. Pass a C string: 'all'//c_null_char
    function hqr_set_devices(list) bind(C, name='hqr_set_devices') result(rc)
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: list
      integer(c_int) :: rc
    end function hqr_set_devices
    ! long hqr_path_calls(char path): calls that ran on the CPU ('c'), a GPU path ('g'),
    ! or a GPU path finished by the CPU ('r'), since the process started
    function hqr_path_calls(path) bind(C, name='hqr_path_calls') result(calls)
      import :: c_long, c_char
      character(kind=c_char), value :: path
      integer(c_long) :: calls
    end function hqr_path_calls
    ! long hqr_device_calls(int ordinal): calls in which that GPU did work
    function hqr_device_calls(ordinal) bind(C, name='hqr_device_calls') result(calls)
      import :: c_int, c_long
      integer(c_int), value :: ordinal
      integer(c_long) :: calls
    end function hqr_device_calls
    ! void hqr_set_gpu_min_n(long n): HQR_GPU_MIN_N; negative restores the calibrated crossover
    subroutine hqr_set_gpu_min_n(n) bind(C, name='hqr_set_gpu_min_n')
      import :: c_long
      integer(c_long), value :: n
    end subroutine hqr_set_gpu_min_n
    ! void hqr_set_verbose(int on): HQR_VERBOSE
    subroutine hqr_set_verbose(on) bind(C, name='hqr_set_verbose')
      import :: c_int
      integer(c_int), value :: on
    end subroutine hqr_set_verbose
    ! void hqr_set_nb(int nb): HQR_NB; 0 restores the default
    subroutine hqr_set_nb(nb) bind(C, name='hqr_set_nb')
      import :: c_int
      integer(c_int), value :: nb
    end subroutine hqr_set_nb
    ! void hqr_set_cpu_threads(int n): HQR_CPU_THREADS; 0 restores the default (every core)
    subroutine hqr_set_cpu_threads(n) bind(C, name='hqr_set_cpu_threads')
      import :: c_int
      integer(c_int), value :: n
    end subroutine hqr_set_cpu_threads
    ! int hqr_calibrate(void): measures and caches the crossovers on the serving GPU;
    ! 0, -1 with no GPU, -2 when the cache file could not be written
    function hqr_calibrate() bind(C, name='hqr_calibrate') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function hqr_calibrate
  end interface

  interface
    function c_strlen(s) bind(C, name='strlen') result(len)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: len
    end function c_strlen
  end interface
  private :: c_strlen

contains

  ! hqr's version as a Fortran string, e.g. "0.1.0".
  function hqr_version() result(s)
    character(len=:), allocatable :: s
    s = c_string(hqr_version_c())
  end function hqr_version

  ! Name of the GPU that serves calls, "none" when every call runs on the CPU.
  function hqr_device_name() result(s)
    character(len=:), allocatable :: s
    s = c_string(hqr_device_name_c())
  end function hqr_device_name

  ! Copy of a NUL-terminated C string. Written without an ALLOCATE statement
  ! (assignment allocates s): an ALLOCATE makes gfortran call its runtime's
  ! error routines, and the module's object is linked into libhqr, which then
  ! needs no libgfortran.so.5 (python/README.md: the wheel's libraries).
  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    s = c_chars(p, int(c_strlen(p)))
  end function c_string

  ! The n characters at p.
  function c_chars(p, n) result(s)
    type(c_ptr), intent(in) :: p
    integer, intent(in) :: n
    character(len=n) :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function c_chars

end module hqr
