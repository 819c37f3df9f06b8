# find_package(hqr) for an installed hqr (`make install PREFIX=...` puts this
# file in <prefix>/lib/cmake/hqr/). Imported targets:
#
#   hqr::hqr    libhqr.so, 32-bit INTEGER (replaces liblapack.so.3): hqr.h in
#               <prefix>/include, Fortran module hqr.mod in <prefix>/include/hqr
#   hqr::hqr64  libhqr64.so, 64-bit INTEGER (replaces liblapack64.so.3):
#               HQR_ILP64 defined for its users, hqr.mod in <prefix>/include/hqr64
#
#   find_package(hqr REQUIRED)
#   target_link_libraries(app PRIVATE hqr::hqr)
#
# A program links one of the two, never both (ABI.md section 1). Relocatable:
# the prefix is this file's folder three levels up, wherever the tree was
# installed or moved to.
get_filename_component(_hqr_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

foreach(_hqr_lib IN ITEMS hqr hqr64)
  if(NOT EXISTS "${_hqr_prefix}/lib/lib${_hqr_lib}.so")
    set(hqr_FOUND FALSE)
    set(hqr_NOT_FOUND_MESSAGE "hqr: ${_hqr_prefix}/lib/lib${_hqr_lib}.so is missing (found ${CMAKE_CURRENT_LIST_FILE})")
    unset(_hqr_lib)
    unset(_hqr_prefix)
    return()
  endif()
endforeach()

if(NOT TARGET hqr::hqr)
  add_library(hqr::hqr SHARED IMPORTED)
  set_target_properties(hqr::hqr PROPERTIES
    IMPORTED_LOCATION "${_hqr_prefix}/lib/libhqr.so"
    IMPORTED_SONAME "libhqr.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_hqr_prefix}/include;${_hqr_prefix}/include/hqr")
endif()

if(NOT TARGET hqr::hqr64)
  add_library(hqr::hqr64 SHARED IMPORTED)
  set_target_properties(hqr::hqr64 PROPERTIES
    IMPORTED_LOCATION "${_hqr_prefix}/lib/libhqr64.so"
    IMPORTED_SONAME "libhqr64.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_hqr_prefix}/include;${_hqr_prefix}/include/hqr64"
    INTERFACE_COMPILE_DEFINITIONS "HQR_ILP64")
endif()

unset(_hqr_lib)
unset(_hqr_prefix)
