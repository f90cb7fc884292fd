#include "engine/run/kernel_inventory.hpp"

#include <set>
#include <type_traits>

#include "engine/plan/plan.hpp"
#include "engine/run/model_dispatch.hpp"
#include "engine/run/terminal_groups.cuh"
#include "kernels/catalog.hpp"
#include "kernels/compile/compiled_kernels.hpp"
#include "kernels/launcher_table.cuh"

namespace pfmc::engine {

namespace {

template <class Model, class Real>
void add_entry_kernels(const char* entry_name, std::vector<KernelInfo>& out) {
  for (const auto& e : kernels::launcher_table<Model, Real>()) {
    KernelInfo info{entry_name,      e.backend, e.prefetch_distance,
                    e.ahead_of_time, e.tuned,   false,
                    false,           false,     e.name()};
    out.push_back(info);
    if (e.name_wide != nullptr) {
      info.wide = true;
      info.name = e.name_wide();
      info.ahead_of_time = e.ahead_of_time && e.launch_wide != e.launch_wide_runtime;
      out.push_back(info);
    }
    if (e.name_terminal != nullptr) {
      info.wide = false;
      info.terminal = true;
      info.name = e.name_terminal();
      info.ahead_of_time = false;
      out.push_back(info);
    }
  }
  for (const auto& e : kernels::exercise_launcher_table<Model, Real>()) {
    out.push_back(
        KernelInfo{entry_name, e.backend, 0, e.ahead_of_time, true, false, false, true, e.name()});
  }
}

} // namespace

std::vector<KernelInfo> kernel_inventory() {
  std::vector<KernelInfo> all;
#define PFMC_INVENTORY_ENTRY(NAME, TYPE, ASSETS, SCENARIOS, REAL, MODEL, DISTANCES)                \
  add_entry_kernels<kernels::model_entries::NAME::Model, REAL>(#NAME, all);
  PFMC_KERNEL_MODELS(PFMC_INVENTORY_ENTRY)
#undef PFMC_INVENTORY_ENTRY
  return all;
}

std::vector<KernelInfo> config_kernels(const config::RunConfig& config) {
  const SimulationPlan plan = make_plan(config);
  const auto& engine = config.engine;
  const bool tuned_all = engine.backend == "auto";
  std::set<std::string> seen;
  std::vector<KernelInfo> wanted;
  const std::vector<KernelInfo> all = kernel_inventory();
  for (const GroupPlan& group : plan.groups) {
    const std::string entry = dispatch_precision(config.simulation.precision, [&](auto real_tag) {
      using Real = typename decltype(real_tag)::type;
      return dispatch_model<Real>(group, [&](auto model_tag) {
        using Model = typename decltype(model_tag)::type;
        // The entry whose Model and Real these are (the model list's name).
        std::string name;
#define PFMC_INVENTORY_NAME(NAME, TYPE, ASSETS, SCENARIOS, REAL, MODEL, DISTANCES)                 \
  if (std::is_same_v<kernels::model_entries::NAME::Model, Model> && std::is_same_v<REAL, Real>)    \
    name = #NAME;
        PFMC_KERNEL_MODELS(PFMC_INVENTORY_NAME)
#undef PFMC_INVENTORY_NAME
        return name;
      });
    });
    const bool terminal = engine.terminal_kernels && one_step_terminal(group);
    for (const KernelInfo& k : all) {
      if (k.entry != entry || (k.terminal && !terminal))
        continue;
      const bool exercise = group.exercise.present();
      const bool chosen =
          k.exercise ? exercise
                     : (tuned_all ? k.tuned
                                  : (k.backend == engine.backend &&
                                     (k.distance == 0 || k.distance == engine.prefetch_distance)));
      if (chosen && seen.insert(k.name).second) {
        wanted.push_back(k);
        // The run compiles every kernel, those built in too.
        wanted.back().ahead_of_time = k.ahead_of_time && !engine.compile_at_runtime;
      }
    }
  }
  return wanted;
}

WarmResult warm_kernels(const std::vector<KernelInfo>& kernels, int arch, int jobs, bool progress) {
  std::vector<std::string> names;
  for (const KernelInfo& k : kernels) {
    if (!k.ahead_of_time)
      names.push_back(k.name);
  }
  const kernels::compile::CompileBatch batch =
      kernels::compile::compile_all(names, arch, jobs, progress);
  WarmResult result;
  result.kernels = names.size();
  result.compiled = batch.compiled;
  result.seconds = batch.seconds;
  result.failures = batch.failures;
  return result;
}

} // namespace pfmc::engine
