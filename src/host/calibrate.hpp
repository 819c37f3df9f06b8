// The probes that measure each routine's crossover (dispatch.hpp), for
// hqr_calibrate() and HQR_CALIBRATE=1. trtri, lauum and potri use
// probe_inverse (inverse.hpp), the QR family qr_probe (qr_dispatch.hpp).
#pragma once

#include "dispatch.hpp"

namespace hqr {

// One xPOTRF of a fresh random Hermitian positive definite matrix of order
// n on `path`, timed (potrf.cpp; s, d, c, z).
template <class T> double potrf_probe(Path path, long n);

}  // namespace hqr
