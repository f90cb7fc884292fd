#pragma once
// Which path kernels a planned group takes: whether a backend and distance has one for the
// group's model entry (kernels/model_list.cuh, through engine/run/model_dispatch.hpp and the
// launcher tables), and the name expressions of those the binary does not build in, which the
// run compiles before it starts (engine/pricer.cpp), the tuner (engine/tune/) and the
// inventory alike.

#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/execution.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::engine {

/// True when `backend` at `prefetch_distance` has a Black-Scholes instantiation in both
/// precisions (the registry agrees with the catalogue).
bool has_launcher(const std::string& backend, int prefetch_distance);

/// True when the kernel of this group (its model, assets, Greeks scenarios) has `backend` at
/// `prefetch_distance` in this precision.
bool has_group_launcher(const GroupPlan& group, config::Precision precision,
                        const std::string& backend, int prefetch_distance, bool tuned_only = false);

/// What of a group picks the kernels group_kernel_names gives it under given settings: its model
/// entry (kernels/model_list.cuh) and which kernels of it (one-step terminal or not, early
/// exercise or not). Two groups of equal shapes get the same names.
struct GroupKernelShape {
  config::ModelType model_type{};
  int assets = 0;
  bool scenarios = false;
  bool fast_math = false;
  int pathwise_moved_inputs = 0; ///< GroupPlan::pathwise_moved_inputs; 0: not pathwise
  bool exercise = false;
  bool terminal = false;
  bool operator==(const GroupKernelShape& o) const {
    return model_type == o.model_type && assets == o.assets && scenarios == o.scenarios &&
           fast_math == o.fast_math && pathwise_moved_inputs == o.pathwise_moved_inputs &&
           exercise == o.exercise && terminal == o.terminal;
  }
};
GroupKernelShape group_kernel_shape(const GroupPlan& group);

/// The name expressions of the kernels a group launches with `backend` at `prefetch_distance`
/// under `settings` (its precision, terminal kernels, compile_at_runtime) that the binary does
/// not build in (all of them with compile_at_runtime): its kernel, its wide one where it has
/// one, its terminal one where the group is one-step terminal;
/// empty when there is no such launcher. The strings are the launcher table's own (static): a
/// book's thousands of groups name a few kernels, so callers collect distinct addresses first.
std::vector<const std::string*> group_kernel_names(const GroupPlan& group,
                                                   const ExecutionSettings& settings,
                                                   const std::string& backend,
                                                   int prefetch_distance);

} // namespace pfmc::engine
