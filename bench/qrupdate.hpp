// The qrupdate library (Debian's libqrupdate1), the QR-update benchmarks'
// column-by-column peer: dlopened once from $QRUPDATE_LIB, else
// libqrupdate.so.1; its Fortran entry points looked up by name (null where
// the library or the name is missing).
#pragma once

#include <dlfcn.h>

#include <cstdlib>

inline void *qrupdate_library() {
  static void *const h = [] {
    const char *path = std::getenv("QRUPDATE_LIB");
    return dlopen(path ? path : "libqrupdate.so.1", RTLD_NOW | RTLD_LOCAL);
  }();
  return h;
}
template <class F> F *qrupdate_symbol(const char *name) {
  void *h = qrupdate_library();
  return h ? reinterpret_cast<F *>(dlsym(h, name)) : nullptr;
}
