# hqr — a LAPACK-compatible drop-in library with a hybrid CPU/GPU path.
#
#   make            build build/libhqr.so and build/hqr.mod (32-bit INTEGER),
#                   build/libhqr64.so and build/ilp64/hqr.mod (64-bit INTEGER);
#                   stops at once, naming them, if Debian packages it needs
#                   are missing (`make deps` installs them)
#   make check      install missing Debian packages, build, run the quick
#                   suites with a progress line each: the CMocka tests, the
#                   integration tests test/*.sh, a short run of LAPACK's
#                   testers (5-9 minutes on 2 cores from a clean clone)
#   make check-full everything: make check, then make check-slow
#   make check-slow what check-full adds to check: every path of LAPACK's
#                   testers, the CMocka tests with 64-bit INTEGER, valgrind,
#                   check-asan (31 minutes on 2 cores)
#   make check-asan the CMocka tests with AddressSanitizer and UBSan
#   make demo       run an unmodified LAPACK program plainly and through hqr
#   make bench      the benchmark programs (CUDA; scripts/bench* run them)
#   make wheel      dist/hqr-<version>-py3-none-manylinux_2_<N>_x86_64.whl: the
#                   Python package hqr (python/) with libhqr.so and libhqr64.so
#                   linked without the system LAPACK
#   make install PREFIX=/usr/local  (with lib/pkgconfig/hqr.pc, hqr64.pc and
#                   lib/cmake/hqr/hqrConfig.cmake: find_package(hqr), hqr::hqr)
#
# HQR_CUDA=0 builds without CUDA; by default CUDA is used when nvcc is found.

PREFIX    ?= /usr/local
BUILD     ?= build
CXX       ?= g++
ifeq ($(origin FC),default)
  FC := gfortran
endif
NVCC      ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
HQR_CUDA  ?= $(if $(wildcard $(NVCC)),1,0)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
VERSION   := 0.1.0

# Debian packages needed to build and test; `make deps` installs what is missing.
# (python3-venv: test/pip_wheels.sh's environment for pip's numpy and SciPy.)
DEB_PACKAGES := g++ gfortran make pkg-config libopenblas-dev liblapack-dev libblas-dev \
                liblapacke-dev libcmocka-dev liblapack-test libblas-test python3-numpy octave patchelf \
                python3-scipy python3-venv \
                libopenblas64-dev liblapack64-dev libblas64-dev valgrind cmake \
                libscalapack-openmpi-dev libopenmpi-dev openmpi-bin
# Those the libraries alone need: plain `make` checks them first.
BUILD_PACKAGES := g++ gfortran libopenblas-dev liblapack-dev libblas-dev liblapacke-dev \
                  libopenblas64-dev liblapack64-dev libblas64-dev

WARN      := -Wall -Wextra -Wno-unused-parameter
CXXFLAGS  ?= -O2 -g
HQR_CXXFLAGS := -std=c++17 -fPIC -fvisibility=hidden -pthread $(WARN) -Iinclude -Isrc \
                -DHQR_VERSION='"$(VERSION)"' -DHQR_HAVE_CUDA=$(HQR_CUDA)
NVCCFLAGS ?= -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
HQR_NVCCFLAGS := -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden,-pthread -Iinclude -Isrc \
                 -DHQR_HAVE_CUDA=1

HOST_SRC := $(wildcard src/host/*.cpp)
CPU_SRC  := $(wildcard src/cpu/*.cpp)
CUDA_SRC := $(wildcard src/cuda/*.cu)
ifeq ($(HQR_CUDA),1)
  HOST_SRC := $(filter-out src/host/no_gpu.cpp,$(HOST_SRC))
  # cuBLAS and cuSOLVER are not linked: the GPU code calls them through
  # trampolines bound when the first context is created (cuda_stubs.o,
  # scripts/gen-cuda-stubs.sh; src/cuda/cuda_libs.cu), dlopen finding them
  # through this RUNPATH among others.
  CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart_static -lrt
else
  CUDA_SRC :=
  CUDA_LIBS :=
endif

# libhqr.so (32-bit INTEGER) and libhqr64.so (64-bit INTEGER) build from the
# same sources into separate object folders.
define objects
$(patsubst src/%.cpp,$(BUILD)/obj/$(1)/%.o,$(HOST_SRC) $(CPU_SRC)) \
$(patsubst src/%.cu,$(BUILD)/obj/$(1)/%.o,$(CUDA_SRC)) $(BUILD)/obj/$(1)/forward_stubs.o \
$(if $(CUDA_SRC),$(BUILD)/obj/$(1)/cuda_stubs.o)
endef
OBJ_LP64  := $(call objects,lp64)
OBJ_ILP64 := $(call objects,ilp64)
# -DHQR_ILP64 makes lapack_int (include/hqr.h), and so every INTEGER, 64-bit.
ABI_FLAGS_lp64  :=
ABI_FLAGS_ilp64 := -DHQR_ILP64

LIB      := $(BUILD)/libhqr.so
LIB64    := $(BUILD)/libhqr64.so
FMOD     := $(BUILD)/hqr.mod
FOBJ     := $(BUILD)/obj/fortran/hqr_mod.o
# The ILP64 module has the same name (module hqr), so it gets its own folder.
FMOD64   := $(BUILD)/ilp64/hqr.mod
FOBJ64   := $(BUILD)/obj/fortran64/hqr_mod.o
# Each library is linked against the system LAPACK/BLAS of its INTEGER size,
# so that RTLD_NEXT finds them (Debian: OpenBLAS, through alternatives).
LAPACK_LIBS   := -llapack -lblas
LAPACK64_LIBS := -llapack64 -lblas64

.PHONY: all deps build-deps check check-full check-slow check-asan demo install clean tests bench wheel
all: $(LIB) $(LIB64) $(FMOD) $(FMOD64) $(BUILD)/hqr.pc $(BUILD)/hqr64.pc $(BUILD)/hqrConfigVersion.cmake \
     $(BUILD)/hqr-calibrate

# Compile rules for one ABI's object folder ($(1) = lp64 or ilp64).
define abi_rules
$(BUILD)/obj/$(1)/%.o: src/%.cpp
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(CXXFLAGS) $$(HQR_CXXFLAGS) $$(ABI_FLAGS_$(1)) -MMD -MP -c $$< -o $$@

$(BUILD)/obj/$(1)/%.o: src/%.cu
	@mkdir -p $$(dir $$@)
	$$(NVCC) $$(NVCCFLAGS) $$(HQR_NVCCFLAGS) $$(ABI_FLAGS_$(1)) -MMD -MP -c $$< -o $$@

$(BUILD)/obj/$(1)/forward_stubs.o: $(BUILD)/gen/forward_stubs.S
	@mkdir -p $$(dir $$@)
	$$(CC) -c $$< -o $$@

# The cuBLAS/cuSOLVER trampolines for the functions this ABI's GPU objects call.
$(BUILD)/gen/cuda_stubs_$(1).S: scripts/gen-cuda-stubs.sh $(patsubst src/%.cu,$(BUILD)/obj/$(1)/%.o,$(CUDA_SRC))
	@mkdir -p $$(dir $$@)
	scripts/gen-cuda-stubs.sh $(CUDA_HOME)/lib64 $$(filter %.o,$$^) > $$@.tmp
	mv $$@.tmp $$@

$(BUILD)/obj/$(1)/cuda_stubs.o: $(BUILD)/gen/cuda_stubs_$(1).S
	@mkdir -p $$(dir $$@)
	$$(CC) -c $$< -o $$@
endef
$(eval $(call abi_rules,lp64))
$(eval $(call abi_rules,ilp64))

$(BUILD)/gen/forward_stubs.S: src/host/forward.list scripts/gen-forward-stubs.awk
	@mkdir -p $(dir $@)
	awk -f scripts/gen-forward-stubs.awk $< > $@

# The names pip's numpy and SciPy wheels call, scipy_<name> (LP64) and
# scipy_<name>64_ (ILP64), as linker-script aliases of every routine hqr
# implements: read from the objects (the forwarding stubs left out), so a new
# routine gets them with nothing to list. ABI.md, "pip's numpy and SciPy".
SCIPY_SUFFIX_lp64  :=
SCIPY_SUFFIX_ilp64 := 64_
$(BUILD)/gen/scipy_names_%.ld: scripts/gen-scipy-names.sh
	@mkdir -p $(dir $@)
	scripts/gen-scipy-names.sh "$(SCIPY_SUFFIX_$*)" $(filter %.o,$^) > $@.tmp
	grep -q '^scipy_dpotrf_$(SCIPY_SUFFIX_$*) = dpotrf_;$$' $@.tmp
	mv $@.tmp $@
$(BUILD)/gen/scipy_names_lp64.ld: $(filter-out %/forward_stubs.o %/cuda_stubs.o,$(OBJ_LP64))
$(BUILD)/gen/scipy_names_ilp64.ld: $(filter-out %/forward_stubs.o %/cuda_stubs.o,$(OBJ_ILP64))

# link_lib <soname> <objects> <system LAPACK/BLAS, or nothing>
# With the system LAPACK (make's libraries): linked --no-as-needed, so that
# RTLD_NEXT finds it and `-lhqr` users get it; -lgfortran only as needed
# (the Fortran module's object needs none of its runtime). Without (the
# wheel's libraries): no LAPACK, BLAS or libgfortran at all; --no-undefined
# stops the link should the module ever need gfortran's runtime.
link_lib = $(CXX) -shared -o $@ $(2) -Wl,-soname,$(1) -Wl,--no-undefined -Wl,--version-script=src/host/exports.map -pthread \
	    $(CUDA_LIBS) $(if $(3),$(call system_lapack,$(3))) -ldl
system_lapack = -Wl,--no-as-needed $(1) -Wl,--as-needed -lgfortran

# The Fortran module's object carries hqr_version()/hqr_device_name() for
# `use hqr` callers, so it goes into the library too.
$(LIB): $(OBJ_LP64) $(FOBJ) $(BUILD)/gen/scipy_names_lp64.ld src/host/exports.map
	$(call link_lib,libhqr.so,$(OBJ_LP64) $(FOBJ) $(BUILD)/gen/scipy_names_lp64.ld,$(LAPACK_LIBS))

$(LIB64): $(OBJ_ILP64) $(FOBJ64) $(BUILD)/gen/scipy_names_ilp64.ld src/host/exports.map
	$(call link_lib,libhqr64.so,$(OBJ_ILP64) $(FOBJ64) $(BUILD)/gen/scipy_names_ilp64.ld,$(LAPACK64_LIBS))

# The wheel's libraries (python/README.md): the same objects, linked without
# the system LAPACK/BLAS, whose names a manylinux wheel may not need; hqr
# finds the next LAPACK at run time (pip's OpenBLAS, RTLD_NEXT, or a dlopen).
WHEEL_LIB   := $(BUILD)/wheel/libhqr.so
WHEEL_LIB64 := $(BUILD)/wheel/libhqr64.so
$(WHEEL_LIB): $(OBJ_LP64) $(FOBJ) $(BUILD)/gen/scipy_names_lp64.ld src/host/exports.map
	@mkdir -p $(dir $@)
	$(call link_lib,libhqr.so,$(OBJ_LP64) $(FOBJ) $(BUILD)/gen/scipy_names_lp64.ld,)

$(WHEEL_LIB64): $(OBJ_ILP64) $(FOBJ64) $(BUILD)/gen/scipy_names_ilp64.ld src/host/exports.map
	@mkdir -p $(dir $@)
	$(call link_lib,libhqr64.so,$(OBJ_ILP64) $(FOBJ64) $(BUILD)/gen/scipy_names_ilp64.ld,)

$(FOBJ) $(FMOD) &: fortran/hqr.f90
	@mkdir -p $(BUILD)/obj/fortran
	$(FC) -O2 -fPIC -c $< -J$(BUILD) -o $(FOBJ)

# The ILP64 module is fortran/hqr.f90 with its one INTEGER-kind line,
# `hqr_int = c_int`, reading c_int64_t; the grep stops the build if that line
# ever changes shape and the substitution silently does nothing.
$(BUILD)/gen/hqr64.f90: fortran/hqr.f90
	@mkdir -p $(dir $@)
	sed 's/^\( *integer, parameter, public :: hqr_int = \)c_int$$/\1c_int64_t/' $< > $@.tmp
	grep -q '^ *integer, parameter, public :: hqr_int = c_int64_t$$' $@.tmp
	mv $@.tmp $@

$(FOBJ64) $(FMOD64) &: $(BUILD)/gen/hqr64.f90
	@mkdir -p $(BUILD)/obj/fortran64 $(BUILD)/ilp64
	$(FC) -O2 -fPIC -c $< -J$(BUILD)/ilp64 -o $(FOBJ64)

# hqr-calibrate: measures and caches the crossovers once per machine
# (hqr_calibrate(), ABI.md); installed beside the libraries' users in bin/.
$(BUILD)/hqr-calibrate: tools/hqr_calibrate.cpp include/hqr.h $(LIB)
	$(CXX) $(CXXFLAGS) -std=c++17 $(WARN) -Iinclude $< -o $@ -L$(BUILD) -lhqr -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib'

$(BUILD)/%.pc: scripts/%.pc.in
	@mkdir -p $(BUILD)
	sed -e 's|@VERSION@|$(VERSION)|' $< > $@

# find_package(hqr): cmake/hqrConfig.cmake finds the prefix from its own
# place; the version file carries VERSION.
VERSION_PARTS := $(subst ., ,$(VERSION))
$(BUILD)/hqrConfigVersion.cmake: cmake/hqrConfigVersion.cmake.in Makefile
	@mkdir -p $(BUILD)
	sed -e 's|@VERSION@|$(VERSION)|' -e 's|@VERSION_MAJOR@|$(word 1,$(VERSION_PARTS))|' \
	    -e 's|@VERSION_MINOR@|$(word 2,$(VERSION_PARTS))|' $< > $@

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- dependencies ------------------------------------------------------------
# Stops a build in its first second, with one line, where a package the
# libraries need is missing (on Debian; elsewhere nothing is checked).
build-deps:
	@command -v dpkg-query >/dev/null 2>&1 || exit 0; missing=""; for p in $(BUILD_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then echo "hqr: missing Debian packages:$$missing; run make deps (as root or with sudo)"; exit 1; fi
$(OBJ_LP64) $(OBJ_ILP64) $(FOBJ) $(FOBJ64): | build-deps

# Installs the Debian packages that are missing (as root, or through sudo).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "make deps: installing$$missing"; \
	    if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo=sudo; fi; \
	    $$sudo apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# ---- tests -------------------------------------------------------------------
TEST_SRC  := $(wildcard test/test_*.cpp)
TEST_BIN  := $(patsubst test/%.cpp,$(BUILD)/test/%,$(TEST_SRC))
MPICC     ?= mpicc
SCALAPACK_PROG := $(BUILD)/test/scalapack_prog
TEST_LIBS := -L$(BUILD) -lhqr -Wl,-rpath,$(abspath $(BUILD)) -lcmocka -ldl -lm -pthread

$(BUILD)/test/%: test/%.cpp test/testing.hpp $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -std=c++17 -pthread $(WARN) $(TEST_FLAGS_$*) -Iinclude -Isrc -Itest $< $(TEST_SOURCES_$*) -o $@ \
	    $(TEST_LIBS)

# The QR-update tests (full and economy form) share their checks
# (qrupd_testing.hpp).
QRUPD_TESTS := test_qrupd test_qrupd_econ test_qrupd_econ_host
$(addprefix $(BUILD)/test/,$(QRUPD_TESTS)) $(addprefix $(BUILD)/test64/,$(QRUPD_TESTS)): test/qrupd_testing.hpp
# test_qrupd_econ_host compiles the QR updates' CPU kernels in, to drive the
# economy addcols' host steps (whose device passes run only on a GPU) from
# the host's BLAS; libhqr keeps those symbols hidden.
QRUPD_HOST_SRC := src/cpu/qrupd.cpp src/cpu/qrupd_econ_passes.cpp src/cpu/potf2.cpp src/cpu/trti2.cpp \
    src/host/next_lapack.cpp src/host/config.cpp
TEST_SOURCES_test_qrupd_econ_host := $(QRUPD_HOST_SRC)
$(BUILD)/test/test_qrupd_econ_host $(BUILD)/test64/test_qrupd_econ_host: $(QRUPD_HOST_SRC) src/cpu/qrupd.hpp

# test_copy_pool compiles hqr's copy pool in: libhqr keeps its symbols hidden.
TEST_SOURCES_test_copy_pool := src/host/copy_pool.cpp
$(BUILD)/test/test_copy_pool $(BUILD)/test64/test_copy_pool: src/host/copy_pool.cpp src/host/copy_pool.hpp
# test_crossover compiles the crossover defaults and cache file in, likewise.
TEST_SOURCES_test_crossover := src/host/crossover.cpp
$(BUILD)/test/test_crossover $(BUILD)/test64/test_crossover: src/host/crossover.cpp src/host/crossover.hpp

# test_pinned allocates the caller's arrays in pinned memory through the CUDA
# runtime's shared library, which it loads only where hqr has a GPU.
TEST_FLAGS_test_pinned := -DHQR_TEST_CUDART='"$(CUDA_HOME)/lib64/libcudart.so"'

# test_cuda_libs compiles the lazy cuBLAS/cuSOLVER binding in (loader and
# trampolines; hidden in libhqr), where there is CUDA; elsewhere it skips.
TEST_FLAGS_test_cuda_libs := -DHQR_HAVE_CUDA=$(HQR_CUDA)
ifeq ($(HQR_CUDA),1)
TEST_SOURCES_test_cuda_libs := -x c++ src/cuda/cuda_libs.cu -x none $(BUILD)/obj/lp64/cuda_stubs.o src/host/config.cpp
$(BUILD)/test/test_cuda_libs $(BUILD)/test64/test_cuda_libs: src/cuda/cuda_libs.cu src/cuda/cuda_libs.hpp \
    $(BUILD)/obj/lp64/cuda_stubs.o src/host/config.cpp
endif

# test_runtime compiles hqr's settings in, to test HQR_DEVICE's parser itself.
TEST_SOURCES_test_runtime := src/host/config.cpp
$(BUILD)/test/test_runtime $(BUILD)/test64/test_runtime: src/host/config.cpp src/host/config.hpp

# The same CMocka programs with 64-bit INTEGER against libhqr64.so;
# test/ilp64_cmocka.sh runs them beside the 64-bit reference LAPACK.
# -Wno-format: a few failure messages print lapack_int with %d.
TEST_BIN64  := $(patsubst test/%.cpp,$(BUILD)/test64/%,$(TEST_SRC))
TEST_LIBS64 := -L$(BUILD) -lhqr64 -Wl,-rpath,$(abspath $(BUILD)) -lcmocka -ldl -lm -pthread

$(BUILD)/test64/%: test/%.cpp test/testing.hpp $(LIB64)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -std=c++17 -pthread $(WARN) -Wno-format -DHQR_ILP64 $(TEST_FLAGS_$*) -Iinclude -Isrc -Itest $< \
	    $(TEST_SOURCES_$*) -o $@ $(TEST_LIBS64)

tests: $(TEST_BIN) $(TEST_BIN64) $(SCALAPACK_PROG)

# A ScaLAPACK program (Open MPI), built against the system LAPACK/BLAS only:
# test/scalapack.sh runs it with and without hqr preloaded, and
# scripts/bench-scalapack times it.
$(SCALAPACK_PROG): test/scalapack_prog.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 $(WARN) $< -o $@ -lscalapack-openmpi -llapack -lblas -lm -ldl

# make check runs the quick suites, make check-slow the rest, make check-full
# both (.ci/run: check, then check-slow). On 2 cores without a GPU, from a
# clean clone (2026-11-28, 32ff4c7, nvcc present): check 5.9 minutes (the
# build about 3, the suites 2.8); check-slow 31 (valgrind 22, the 64-bit
# CMocka programs and the ASan build about 4.5, every path of LAPACK's
# testers 2.2, check-asan's run 1.7, the 64-bit CMocka suite 0.6); .ci/run 37.
SLOW_SCRIPTS  := test/valgrind.sh test/ilp64_cmocka.sh
QUICK_SCRIPTS := $(filter-out $(SLOW_SCRIPTS),$(wildcard test/*.sh))

# The benchmark programs are built too where there is CUDA (15 s on 2
# cores): CI has no GPU to run them, but a change that breaks one shows.
check: deps
	$(MAKE) all $(WHEEL_LIB) $(WHEEL_LIB64) $(TEST_BIN) $(SCALAPACK_PROG) $(if $(filter 1,$(HQR_CUDA)),bench)
	BUILD=$(BUILD) scripts/run-tests.sh $(TEST_BIN) $(QUICK_SCRIPTS)

check-slow: deps
	$(MAKE) all tests
	HQR_LAPACK_TESTING=full BUILD=$(BUILD) scripts/run-tests.sh test/lapack_testing.sh $(SLOW_SCRIPTS)
	$(MAKE) check-asan

# One after the other (under -j, prerequisites would run at once).
check-full: deps
	$(MAKE) check
	$(MAKE) check-slow

# ---- sanitizers --------------------------------------------------------------
# The library and the CMocka programs built again with AddressSanitizer and
# UBSan (every report fatal) into $(BUILD)/asan, without CUDA (the GPU side
# has compute-sanitizer on the GPU machine: scripts/gpu-check.sh), and run.
# The test/*.sh scripts are left out: they load libhqr into programs built
# without the sanitizers. Leak checking stays on: hqr frees what it allocates
# per call, and what it keeps for the process (the next LAPACK's handles) is
# still reachable at exit. (valgrind memcheck runs as test/valgrind.sh.)
ASAN_BUILD := $(BUILD)/asan
SANITIZE   := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
check-asan: deps
	$(MAKE) HQR_CUDA=0 BUILD=$(ASAN_BUILD) CXX="$(CXX) $(SANITIZE)" $(patsubst test/%.cpp,$(ASAN_BUILD)/test/%,$(TEST_SRC))
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    BUILD=$(ASAN_BUILD) scripts/run-tests.sh $(patsubst test/%.cpp,$(ASAN_BUILD)/test/%,$(TEST_SRC))

# ---- benchmarks ----------------------------------------------------------------
# Programs, not tests (scripts/bench*, run on a GPU machine); they need CUDA.
# bench_copy compiles hqr's copy pool in; bench_potrf_peer dlopens the LAPACK
# it times (the reference one under NVBLAS), bench_first_call libhqr or the
# system's LAPACK in a fresh process per measurement; the others link libhqr.
BENCH_CUDA := bench_potrf bench_inverse bench_qr bench_qrupd bench_blas3
BENCH_BIN  := $(addprefix $(BUILD)/,$(BENCH_CUDA) bench_potrf_peer bench_potrf_mg bench_copy bench_qrupd_cpu \
                bench_qrupd_econ bench_first_call bench_blas1)
BENCH_FLAGS := $(CXXFLAGS) $(WARN) -std=c++17 -pthread -Iinclude -Isrc -Ibench -I$(CUDA_HOME)/include
bench: $(BENCH_BIN)
$(addprefix $(BUILD)/,$(BENCH_CUDA)): $(BUILD)/%: bench/%.cpp bench/timing.hpp $(LIB)
	$(CXX) $(BENCH_FLAGS) $< -o $@ -L$(CUDA_HOME)/lib64 -L$(BUILD) -lhqr -lcusolver -lcublas -lcudart -ldl \
	    -Wl,-rpath,'$$ORIGIN'
$(BUILD)/bench_potrf_peer: bench/bench_potrf_peer.cpp bench/spd_matrix.hpp
	$(CXX) $(BENCH_FLAGS) $< -o $@ -ldl
# cuSOLVERMg on device-resident data, the multi-GPU peer for xPOTRF.
$(BUILD)/bench_potrf_mg: bench/bench_potrf_mg.cpp bench/spd_matrix.hpp bench/timing.hpp
	$(CXX) $(BENCH_FLAGS) -Wno-deprecated-declarations $< -o $@ -L$(CUDA_HOME)/lib64 -lcusolverMg -lcudart
$(BUILD)/bench_copy: bench/bench_copy.cpp src/host/copy_pool.cpp
	$(CXX) $(BENCH_FLAGS) $< src/host/copy_pool.cpp -o $@ -L$(CUDA_HOME)/lib64 -lcudart
# A process's first call (fresh processes; dlopens libhqr.so beside it or
# the system's liblapack.so.3).
$(BUILD)/bench_first_call: bench/bench_first_call.cpp $(LIB)
	$(CXX) $(BENCH_FLAGS) $< -o $@ -ldl
$(BUILD)/bench_qrupd_cpu: bench/bench_qrupd_cpu.cpp $(LIB)
	$(CXX) $(BENCH_FLAGS) $< -o $@ -L$(BUILD) -lhqr -Wl,-rpath,'$$ORIGIN'
# numpy's row copies through hqr's dcopy_ and OpenBLAS's (CPU only).
$(BUILD)/bench_blas1: bench/bench_blas1.cpp bench/timing.hpp $(LIB)
	$(CXX) $(BENCH_FLAGS) $< -o $@ -L$(BUILD) -lhqr -ldl -Wl,-rpath,'$$ORIGIN'
# The economy-form updates (CPU only: no CUDA needed); dlopens qrupdate.
$(BUILD)/bench_qrupd_econ: bench/bench_qrupd_econ.cpp bench/timing.hpp bench/qrupdate.hpp $(LIB)
	$(CXX) $(BENCH_FLAGS) $< -o $@ -L$(BUILD) -lhqr -ldl -Wl,-rpath,'$$ORIGIN'

# ---- Python wheel -------------------------------------------------------------
# The package python/hqr with this build's wheel libraries ($(BUILD)/wheel:
# no system LAPACK, BLAS or libgfortran needed; a CUDA build's load
# without cuBLAS/cuSOLVER too, which they bind only when the GPU starts).
DIST ?= dist
PYTHON ?= python3
wheel: $(WHEEL_LIB) $(WHEEL_LIB64)
	$(PYTHON) scripts/build-wheel.py --version $(VERSION) --lib $(WHEEL_LIB) --lib64 $(WHEEL_LIB64) --out $(DIST) \
	    $(if $(filter 1,$(HQR_CUDA)),--cuda)

# ---- demo --------------------------------------------------------------------
demo: deps
	$(MAKE) all
	BUILD=$(BUILD) scripts/demo.sh

# ---- install -----------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include/hqr $(DESTDIR)$(PREFIX)/include/hqr64 $(DESTDIR)$(PREFIX)/lib/cmake/hqr
	install -m 755 $(LIB) $(LIB64) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/hqr-calibrate $(DESTDIR)$(PREFIX)/bin/
	install -m 644 include/hqr.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(FMOD) $(DESTDIR)$(PREFIX)/include/hqr/
	install -m 644 $(FMOD64) $(DESTDIR)$(PREFIX)/include/hqr64/
	install -m 644 $(BUILD)/hqr.pc $(BUILD)/hqr64.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 cmake/hqrConfig.cmake $(BUILD)/hqrConfigVersion.cmake $(DESTDIR)$(PREFIX)/lib/cmake/hqr/

clean:
	rm -rf $(BUILD)
