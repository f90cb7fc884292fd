#include "engine/run/ring_layout.hpp"

namespace pfmc::engine {

int ring_padding(const config::Padding& padding, int prefetch_distance) {
  const int slots = prefetch_distance > 0 ? prefetch_distance : 1;
  switch (padding.mode) {
  case config::Padding::Mode::slot_major:
  case config::Padding::Mode::none:
    return 0;
  case config::Padding::Mode::fixed:
    return padding.amount;
  case config::Padding::Mode::automatic:
    break;
  }
  int power = 2;
  while (power + 1 < slots)
    power *= 2;
  return power + 1 - slots;
}

kernels::RingLayout ring_layout(const config::Padding& padding, int prefetch_distance,
                                int block_size) {
  const int slots = prefetch_distance > 0 ? prefetch_distance : 1;
  if (padding.mode == config::Padding::Mode::slot_major) {
    return {1, block_size, slots * block_size};
  }
  const int stride = slots + ring_padding(padding, prefetch_distance);
  return {stride, 1, stride * block_size};
}

} // namespace pfmc::engine
