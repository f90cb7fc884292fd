#pragma once
// What every path kernel is made of: the kernel, its loaders (one per prefetch backend) and the
// models. The ahead-of-time build includes it (kernels/launcher_table.cuh) and it is the one
// source NVRTC compiles on first use (kernels/compile/runtime_compiler.cpp, after
// kernels/rtc/prelude.h): nothing here or below may need the host's C++ library (kernels/rtc/).

#include "kernels/loaders/async_ring.cuh"
#include "kernels/loaders/batched.cuh"
#include "kernels/loaders/ideal.cuh"
#include "kernels/loaders/inline.cuh"
#include "kernels/loaders/l2_prefetch.cuh"
#include "kernels/loaders/none.cuh"
#include "kernels/loaders/rolling.cuh"
#include "kernels/loaders/tma.cuh"
#include "kernels/loaders/unroll.cuh"
#include "kernels/path_kernel.cuh"
#include "models/black_scholes.cuh"
#include "models/heston.cuh"
#include "models/local_vol.cuh"
#include "models/multi_black_scholes.cuh"
#include "models/scenarios.cuh"
