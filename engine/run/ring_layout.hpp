#pragma once
// The shared-memory ring layout a padding setting stands for.

#include "config/run_config.hpp"
#include "kernels/ring_layout.hpp"

namespace pfmc::engine {

/// auto: the smallest padding that makes distance + padding = 2^k + 1 (k >= 1): an odd stride,
/// so a warp's 32 threads hit 32 different banks. none: stride = distance (bank conflicts when
/// it is even). fixed: distance + N. slot_major: v[slot * block + thread], conflict-free with no
/// padding. Backends without a ring ignore it.
kernels::RingLayout ring_layout(const config::Padding& padding, int prefetch_distance,
                                int block_size);

/// The padding (elements per thread) the layout adds; 0 for slot-major.
int ring_padding(const config::Padding& padding, int prefetch_distance);

} // namespace pfmc::engine
