// The GPU side of a build without CUDA (HQR_CUDA=0): no device ever serves.
#include "cuda/gpu.hpp"

namespace hqr {
int serving_device() { return -1; }
int serving_device_count() { return 0; }
const char *serving_device_name() { return "none"; }

namespace gpu {
bool available() { return false; }
StartState startup() { return {Startup::off, 0}; }
void start() {}
bool caller_pinned(const void *, std::size_t) { return false; }
template <class T> Result potrf(bool, lint, T *, lint, bool) { return {false, 0, "built without CUDA", 0}; }
template Result potrf(bool, lint, float *, lint, bool);
template Result potrf(bool, lint, double *, lint, bool);
template Result potrf(bool, lint, std::complex<float> *, lint, bool);
template Result potrf(bool, lint, std::complex<double> *, lint, bool);

template <class T> Result trtri(bool, bool, lint, T *, lint) { return {false, 0, "built without CUDA", 0}; }
template <class T> Result lauum(bool, lint, T *, lint) { return {false, 0, "built without CUDA", 0}; }
template <class T> Result potri(bool, lint, T *, lint) { return {false, 0, "built without CUDA", 0}; }
template <class T> Result geqrf(lint, lint, T *, lint, T *, const char **) {
  return {false, 0, "built without CUDA", 0};
}
template <class T>
Result gebrd(lint, const T *, lint, T *, lint, typename Prec<T>::real *, typename Prec<T>::real *, T *, T *) {
  return {false, 0, "built without CUDA", 0};
}
#define HQR_INSTANTIATE(T)                                                                                  \
  template Result gebrd(lint, const T *, lint, T *, lint, typename Prec<T>::real *, typename Prec<T>::real *, \
                        T *, T *);                                                                          \
  template Result trtri(bool, bool, lint, T *, lint); \
  template Result lauum(bool, lint, T *, lint);       \
  template Result potri(bool, lint, T *, lint);       \
  template Result geqrf(lint, lint, T *, lint, T *, const char **);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE

template <class T> Result qrupd_delcols(bool, lint, lint, lint, lint, T *, lint, T *, lint) {
  return {false, 0, "built without CUDA", 0};
}
template <class T> Result qrupd_addrows(lint, lint, lint, T *, lint, T *, lint) {
  return {false, 0, "built without CUDA", 0};
}
template <class T> Result qrupd_addcols(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint) {
  return {false, 0, "built without CUDA", 0};
}
template <class T> Result qrupd_addcols_econ(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint) {
  return {false, 0, "built without CUDA", 0};
}
template <class T> Result qrupd_delrows(lint, lint, lint, lint, T *, lint, T *, lint) {
  return {false, 0, "built without CUDA", 0};
}
template <class T> Result qrupd_addrows_q(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint) {
  return {false, 0, "built without CUDA", 0};
}
#define HQR_INSTANTIATE(T)                                                                    \
  template Result qrupd_addrows_q(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint); \
  template Result qrupd_addcols(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint);   \
  template Result qrupd_addcols_econ(lint, lint, lint, lint, T *, lint, T *, lint, T *, lint); \
  template Result qrupd_delrows(lint, lint, lint, lint, T *, lint, T *, lint);              \
  template Result qrupd_delcols(bool, lint, lint, lint, lint, T *, lint, T *, lint);        \
  template Result qrupd_addrows(lint, lint, lint, T *, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE
}  // namespace gpu
}  // namespace hqr

// ---- Applying and forming Q (qr_apply.cu in a CUDA build) -------------------
namespace hqr::gpu {
template <class T> GelsResult gels(bool, lint, lint, lint, T *, lint, T *, lint, T *, const char **) {
  return {{false, 0, "built without CUDA", 0}, false, 0, 0};
}
template <class T> GelsResult gels_lq(bool, lint, lint, lint, T *, lint, T *, lint, T *, const char **) {
  return {{false, 0, "built without CUDA", 0}, false, 0, 0};
}
template <class T> Result ormqr(bool, bool, lint, lint, lint, const T *, lint, const T *, T *, lint, const char **) {
  return {false, 0, "built without CUDA", 0};
}
template <class T> Result orgqr(lint, lint, lint n, T *, lint, const T *, const char **) {
  return {false, 0, "built without CUDA", n};
}
#define HQR_INSTANTIATE(T)                                                                     \
  template GelsResult gels(bool, lint, lint, lint, T *, lint, T *, lint, T *, const char **);  \
  template GelsResult gels_lq(bool, lint, lint, lint, T *, lint, T *, lint, T *, const char **); \
  template Result ormqr(bool, bool, lint, lint, lint, const T *, lint, const T *, T *, lint, const char **); \
  template Result orgqr(lint, lint, lint, T *, lint, const T *, const char **);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE
}  // namespace hqr::gpu

// ---- Level-3 BLAS (blas3_gpu.cu in a CUDA build) -----------------------------
namespace hqr::gpu {
namespace {
constexpr Result kNoCuda{false, 0, "built without CUDA", 0};
}
template <class T> Result gemm(char, char, lint, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint) {
  return kNoCuda;
}
template <class T> Result symm(bool, bool, bool, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint) {
  return kNoCuda;
}
template <class T> Result syrk(bool, char, bool, lint, lint, T, const T *, lint, T, T *, lint) { return kNoCuda; }
template <class T>
Result syr2k(bool, char, bool, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint) {
  return kNoCuda;
}
template <class T> Result trmm(bool, bool, char, bool, lint, lint, T, const T *, lint, T *, lint) { return kNoCuda; }
template <class T> Result trsm(bool, bool, char, bool, lint, lint, T, const T *, lint, T *, lint) { return kNoCuda; }
#define HQR_INSTANTIATE(T)                                                                                       \
  template Result gemm(char, char, lint, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint);         \
  template Result symm(bool, bool, bool, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint);         \
  template Result syrk(bool, char, bool, lint, lint, T, const T *, lint, T, T *, lint);                          \
  template Result syr2k(bool, char, bool, lint, lint, T, const T *, lint, const T *, lint, T, T *, lint);        \
  template Result trmm(bool, bool, char, bool, lint, lint, T, const T *, lint, T *, lint);                       \
  template Result trsm(bool, bool, char, bool, lint, lint, T, const T *, lint, T *, lint);
HQR_INSTANTIATE(float)
HQR_INSTANTIATE(double)
HQR_INSTANTIATE(std::complex<float>)
HQR_INSTANTIATE(std::complex<double>)
#undef HQR_INSTANTIATE
}  // namespace hqr::gpu
