#include "engine/run/kernel_choice.hpp"

#include <type_traits>

#include "engine/run/backend_registry.cuh"
#include "engine/run/model_dispatch.hpp"
#include "engine/run/terminal_groups.cuh"
#include "kernels/launcher_table.cuh"

namespace pfmc::engine {

bool has_group_launcher(const GroupPlan& group, config::Precision precision,
                        const std::string& backend, int prefetch_distance, bool tuned_only) {
  return dispatch_precision(precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    if (std::is_same_v<Real, float> && group.model_copies > 1)
      return false;
    return dispatch_model<Real>(group, [&](auto model_tag) {
      using Model = typename decltype(model_tag)::type;
      return find_launcher<Model, Real>(backend, prefetch_distance, tuned_only) != nullptr;
    });
  });
}

GroupKernelShape group_kernel_shape(const GroupPlan& group) {
  GroupKernelShape shape;
  shape.model_type = group.model_type;
  shape.assets = group.assets;
  shape.scenarios = group.model_copies > 1;
  shape.fast_math = group.fast_math;
  shape.pathwise_moved_inputs = group.pathwise_moved_inputs;
  shape.exercise = group.exercise.present();
  shape.terminal = one_step_terminal(group);
  return shape;
}

std::vector<const std::string*> group_kernel_names(const GroupPlan& group,
                                                   const ExecutionSettings& settings,
                                                   const std::string& backend,
                                                   int prefetch_distance) {
  return dispatch_precision(settings.precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    std::vector<const std::string*> names;
    if (std::is_same_v<Real, float> && group.model_copies > 1)
      return names;
    dispatch_model<Real>(group, [&](auto model_tag) {
      using Model = typename decltype(model_tag)::type;
      const auto* entry = find_launcher<Model, Real>(backend, prefetch_distance);
      if (entry == nullptr)
        return;
      const bool everything = settings.compile_at_runtime;
      // A one-step terminal group's unit takes the terminal kernel (where the entry has one and
      // every group of the unit is terminal; a unit that mixes compiles the other on first use).
      if (entry->name_terminal != nullptr && settings.terminal_kernels &&
          one_step_terminal(group)) {
        names.push_back(&entry->name_terminal());
      } else if (!entry->ahead_of_time || everything) {
        names.push_back(&entry->name());
      }
      if (entry->name_wide != nullptr &&
          (entry->launch_wide == entry->launch_wide_runtime || everything))
        names.push_back(&entry->name_wide());
      if (group.exercise.present()) {
        const auto& exercise = kernels::exercise_launcher_table<Model, Real>().front();
        if (!exercise.ahead_of_time || everything)
          names.push_back(&exercise.name());
      }
    });
    return names;
  });
}

bool has_launcher(const std::string& backend, int prefetch_distance) {
  bool all = true;
  for (auto precision : {config::Precision::float32, config::Precision::float64}) {
    dispatch_precision(precision, [&](auto real_tag) {
      using Real = typename decltype(real_tag)::type;
      for (auto type : {config::ModelType::black_scholes}) {
        dispatch_model<Real>(type, 1, false, false, 0, [&](auto model_tag) {
          using Model = typename decltype(model_tag)::type;
          all = all && find_launcher<Model, Real>(backend, prefetch_distance) != nullptr;
        });
      }
    });
  }
  return all;
}

} // namespace pfmc::engine
