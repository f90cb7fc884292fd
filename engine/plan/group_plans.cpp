// The plan's groups made and freed range by range on the planning threads (engine/plan/plan.hpp).

#include <algorithm>
#include <memory>
#include <new>
#include <utility>

#include "base/parallel_ranges.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::engine {

GroupPlans::GroupPlans(std::size_t count) : GroupPlans(count, 1) {
  make_range(0, std::pmr::new_delete_resource());
}

GroupPlans::GroupPlans(std::size_t count, std::size_t ranges)
    : groups_(count > 0 ? std::allocator<GroupPlan>().allocate(count) : nullptr), size_(count),
      made_(base::range_count(count, static_cast<unsigned>(std::max<std::size_t>(1, ranges))), 0) {}

GroupPlans& GroupPlans::operator=(GroupPlans&& other) noexcept {
  if (this != &other) {
    destroy();
    groups_ = std::exchange(other.groups_, nullptr);
    size_ = std::exchange(other.size_, 0);
    made_ = std::move(other.made_);
    other.made_.clear();
  }
  return *this;
}

void GroupPlans::make_range(std::size_t r, std::pmr::memory_resource* memory) noexcept {
  const std::size_t end = base::range_begin(size_, made_.size(), r + 1);
  for (std::size_t g = base::range_begin(size_, made_.size(), r); g < end; ++g)
    new (groups_ + g) GroupPlan(memory);
  made_[r] = 1;
}

void GroupPlans::destroy_range(std::size_t r) noexcept {
  if (made_[r] == 0)
    return;
  const std::size_t end = base::range_begin(size_, made_.size(), r + 1);
  for (std::size_t g = base::range_begin(size_, made_.size(), r); g < end; ++g)
    groups_[g].~GroupPlan();
  made_[r] = 0;
}

void GroupPlans::destroy() noexcept {
  if (groups_ == nullptr)
    return;
  const unsigned threads = base::threads_for(size_, base::kLightItemsPerThread);
  if (threads > 1 && made_.size() > 1) {
    try {
      (void)base::parallel_items(made_.size(), threads,
                                 [this](std::size_t r) { destroy_range(r); });
    } catch (...) {
      // Nothing throws in a group's destructor: the ranges left are freed below.
    }
  }
  for (std::size_t r = 0; r < made_.size(); ++r)
    destroy_range(r);
  std::allocator<GroupPlan>().deallocate(groups_, size_);
  groups_ = nullptr;
  size_ = 0;
  made_.clear();
}

} // namespace pfmc::engine
