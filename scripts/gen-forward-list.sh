#!/bin/sh
# Regenerates src/host/forward.list: every function that reference LAPACK and
# BLAS (Debian's liblapack3 and libblas3, LAPACK 3.11) export, less the ones hqr
# implements itself. libhqr exports a forwarding stub for each, so a program
# linked with -lhqr alone finds every BLAS and LAPACK routine.
set -eu
lib=/usr/lib/x86_64-linux-gnu
own='^[sdcz](potrf|potri|trtri|lauum|potrs|posv|geqrf|gels)_$|^(sorm|dorm|cunm|zunm)qr_$|^(sorg|dorg|cung|zung)qr_$'
# Level-3 BLAS, Fortran and CBLAS (src/host/blas3.cpp, cblas3.cpp).
blas3='(gemm|symm|hemm|syrk|herk|syr2k|her2k|trmm|trsm)'
own="$own|^[sdcz]${blas3}_\$|^cblas_[sdcz]${blas3}\$"
{
  nm -D --defined-only "$lib/lapack/liblapack.so.3"
  nm -D --defined-only "$lib/blas/libblas.so.3"
} | awk '$2 == "T" { print $3 }' | grep -v '^__' | grep -Ev "$own" | sort -u
