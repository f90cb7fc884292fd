#pragma once
// Runtime enums → template arguments, for the engine's group runners (raft style: switch once,
// then everything below is templated).

#include <type_traits>
#include <utility>

#include "base/error.hpp"
#include "config/run_config.hpp"
#include "engine/plan/plan.hpp"
#include "kernels/model_list.cuh"

namespace pfmc::engine {

template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<float>) or f(TypeTag<double>).
template <class F>
decltype(auto) dispatch_precision(config::Precision precision, F&& f) {
  if (precision == config::Precision::float32)
    return f(TypeTag<float>{});
  return f(TypeTag<double>{});
}

/// Calls f(TypeTag<Model>) for the entry of kernels/model_list.cuh with this model type, asset
/// count (ignored by single-asset models), Greeks scenarios or not, precision Real, math
/// profile (`fast`: simulation.math's) and pathwise Greeks or not (pathwise_moved_inputs: the
/// moved inputs the pathwise model carries, GroupPlan::pathwise_moved_inputs; 0: not
/// pathwise): every combination reached here has kernels.
template <class Real, class F>
decltype(auto) dispatch_model(config::ModelType type, int assets, bool scenarios, bool fast,
                              int pathwise_moved_inputs, F&& f) {
  const bool pathwise = pathwise_moved_inputs > 0;
#define PFMC_DISPATCH_ENTRY(NAME, TYPE, ASSETS, SCENARIOS, REAL, MODEL, DISTANCES)                 \
  if constexpr (std::is_same_v<Real, REAL>) {                                                      \
    using Entry = kernels::model_entries::NAME;                                                    \
    if (type == config::ModelType::TYPE && (ASSETS == 1 || assets == ASSETS) &&                    \
        scenarios == SCENARIOS && fast == Entry::Model::Math::fast &&                              \
        pathwise_moved_inputs == models::kPathwiseMovedInputs<Entry::Model>) {                     \
      return f(TypeTag<Entry::Model>{});                                                           \
    }                                                                                              \
  }
  PFMC_KERNEL_MODELS(PFMC_DISPATCH_ENTRY)
#undef PFMC_DISPATCH_ENTRY
  if (scenarios && fast)
    throw LogicError("the Greeks' kernels have the accurate math profile only");
  if (pathwise)
    throw LogicError("pathwise Greeks' kernels have the accurate math profile only");
  if (scenarios)
    throw LogicError("Greeks kernels exist for single-asset models in double only");
  throw LogicError("no kernels for this model");
}

/// The same for a planned group.
template <class Real, class F>
decltype(auto) dispatch_model(const GroupPlan& group, F&& f) {
  return dispatch_model<Real>(group.model_type, group.assets, group.model_copies > 1,
                              group.fast_math, group.pathwise_moved_inputs, std::forward<F>(f));
}

} // namespace pfmc::engine
