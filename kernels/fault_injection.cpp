#include "kernels/fault_injection.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pfmc {

namespace {

struct FaultPlan {
  long allocation = 0; ///< the call to fail, from 1; 0 = none
  long launch = 0;
};

// "alloc:N,launch:M" (either, both, any order).
FaultPlan read_plan() {
  FaultPlan plan;
  const char* text = std::getenv("PFMC_INJECT_FAULT");
  if (text == nullptr || *text == '\0')
    return plan;
  std::string spec(text);
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, end - start);
    const std::size_t colon = item.find(':');
    const std::string kind = item.substr(0, colon);
    char* parsed_end = nullptr;
    const long count =
        colon == std::string::npos ? 0 : std::strtol(item.c_str() + colon + 1, &parsed_end, 10);
    const bool number = parsed_end != nullptr && *parsed_end == '\0' && count > 0;
    if (number && kind == "alloc") {
      plan.allocation = count;
    } else if (number && kind == "launch") {
      plan.launch = count;
    } else {
      std::fprintf(stderr,
                   "pfmc: PFMC_INJECT_FAULT: ignored '%s' (expected alloc:N or launch:N, N >= 1)\n",
                   item.c_str());
    }
    start = end + 1;
  }
  return plan;
}

} // namespace

bool inject_fault(Fault kind) {
  static const FaultPlan plan = read_plan();
  static std::atomic<long> allocations{0};
  static std::atomic<long> launches{0};
  const long target = kind == Fault::allocation ? plan.allocation : plan.launch;
  if (target == 0)
    return false;
  auto& counter = kind == Fault::allocation ? allocations : launches;
  return counter.fetch_add(1, std::memory_order_relaxed) + 1 == target;
}

} // namespace pfmc
