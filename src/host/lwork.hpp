// LAPACK's WORK/LWORK conventions for hqr's own routines (the QR updates):
// the LWORK check and the value a query or a successful call leaves in
// WORK(1).
#pragma once

#include <cmath>
#include <limits>

#include "common.hpp"

namespace hqr {

// Sets *info = -pos when LWORK is neither -1 (a query) nor at least lwmin
// (and no earlier argument was illegal).
inline void check_lwork(const lint *lwork, long lwmin, lint pos, lint *info) {
  if (*info == 0 && *lwork != -1 && *lwork < lwmin) *info = -pos;
}

// WORK(1) = lwork as a real (the real part for c, z), rounded up so that
// reading it back never gives less than lwork (LAPACK's xROUNDUP_LWORK).
template <class T> T lwork_value(long lwork) {
  using R = typename Prec<T>::real;
  R w = R(lwork);
  if (long(w) < lwork) w = std::nextafter(w, std::numeric_limits<R>::infinity());
  return T(w);
}

}  // namespace hqr
