#pragma once
// NVRTC only (kernels/rtc/README.md).
#include <cuda/std/cstdint>
