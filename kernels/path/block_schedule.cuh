#pragma once
// Which group a block of paths works for, and its parameters staged for the whole thread block.

#include <cstdint>

#include "kernels/block_reduce.cuh"

namespace pfmc::kernels {

/// The launch's group that block `b` works for: the last of `groups` (ordered by first_block,
/// the first at block 0) whose first block is at or below b. Searched by the first warp 32-ary:
/// each lane tests one candidate per level and a ballot keeps the last that qualifies, so a
/// launch of 8,192 groups costs three dependent loads where a binary search by one thread took
/// thirteen. Every lane of the warp calls it and gets the same index.
template <class Group>
__device__ __forceinline__ int find_group(const Group* groups, int count, int b) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  int first = 0; // the group is one of [first, first + span); groups[first] qualifies
  int span = count;
  while (span > 1) {
    const int stride = (span + kWarpSize - 1) / kWarpSize;
    const int candidate = first + lane * stride;
    const bool qualifies = lane * stride < span && groups[candidate].first_block <= b;
    const int last = kWarpSize - 1 - __clz(static_cast<int>(__ballot_sync(0xffffffffu, qualifies)));
    first += last * stride;
    span = min(stride, span - last * stride);
  }
  return first;
}

/// Copies a group's parameters into the block's shared copy, the first warp's lanes a word
/// each. Every lane of the warp calls it.
template <class Group>
__device__ __forceinline__ void stage_group(const Group& from, Group& to) {
  static_assert(sizeof(Group) % sizeof(std::uint64_t) == 0 && alignof(Group) >= 8);
  constexpr int kWords = sizeof(Group) / sizeof(std::uint64_t);
  const auto* source = reinterpret_cast<const std::uint64_t*>(&from);
  auto* target = reinterpret_cast<std::uint64_t*>(&to);
  for (int i = static_cast<int>(threadIdx.x) % kWarpSize; i < kWords; i += kWarpSize)
    target[i] = source[i];
}

} // namespace pfmc::kernels
