#pragma once
// Where a shared-memory ring keeps (thread, slot) — a plain struct shared by host and device.
// Padding is a runtime value of the layout, so it costs no kernel instantiations.

#include <type_traits>

namespace pfmc::kernels {

/// Element (thread t, slot k, factor f) of a ring lives at
/// f * factor_stride + t * thread_stride + k * slot_stride.
struct RingLayout {
  int thread_stride; ///< thread-major: distance + padding; slot-major: 1
  int slot_stride;   ///< thread-major: 1; slot-major: block size
  int factor_stride; ///< elements between the rings of consecutive factors
};
static_assert(std::is_trivially_copyable_v<RingLayout>);

} // namespace pfmc::kernels
