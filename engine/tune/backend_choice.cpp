#include "engine/tune/backend_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/config_error.hpp"
#include "config/overrides.hpp"
#include "engine/run/gpu_engine.hpp"
#include "engine/run/kernel_choice.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::engine {

namespace {

/// What `auto` has decided so far in this run, per cache key: each shape is decided once (a
/// book of 8,192 groups has one or a few shapes).
struct AutoChoices {
  std::map<std::string, int> groups_of_key;
  std::map<std::string, GroupBackend> decided;
};

/// `auto` for the first group of a shape (`key`): the tuning cache, a tuning now when the
/// default's estimated time for this run's groups of the shape repays it, else the default.
GroupBackend choose_auto_backend(const GroupPlan& group, const std::string& key,
                                 const ExecutionSettings& settings, const PriceOptions& options,
                                 RunTuningCache& tuning, AutoChoices& choices) {
  TuningCache& cache = *tuning.cache;
  const BackendChoice fallback = default_backend_choice(settings.rng, settings.brownian_bridge);
  const auto cached = cache.find(key);
  const kernels::BackendInfo* cached_backend =
      cached ? kernels::find_backend(cached->backend) : nullptr;
  // An entry for other draws (a cache written before the key named them) is not this run's.
  if (cached_backend != nullptr && draws_fit_backend(*cached_backend, settings)) {
    return {group.model_name, cached->backend, cached->prefetch_distance,
            config::to_string(cached->padding), "tuning cache " + cache.path()};
  }
  if (!options.tune_when_missing) {
    return {group.model_name, fallback.backend, fallback.prefetch_distance,
            config::to_string(fallback.padding), "default (no tuning cache entry)"};
  }
  // Worth tuning? The default's generation + kernel time on the tuning sample, scaled to this
  // run's groups of this shape: measured once per shape and cached (a fresh process spent
  // 14-16 ms of its ~0.32 s on this probe; docs/decisions.md#backend-choice).
  const int shape_groups = choices.groups_of_key[key];
  std::optional<Probe> probe = cache.probe(key, fallback);
  const bool probed_now = !probe;
  if (probed_now) {
    probe = probe_group(group, settings, fallback);
    cache.store_probe(key, fallback, *probe);
    tuning.changed = true;
  }
  const double estimate_s = probe->total_ms * 1e-3 * static_cast<double>(settings.paths) /
                            static_cast<double>(probe->sample_paths) * shape_groups;
  char why[320];
  if (estimate_s < options.tune_worth_seconds) {
    std::snprintf(why, sizeof why,
                  "default: this run's %d group%s of this shape take about %.0f ms with it "
                  "(probed %s), less than tuning would cost (up to %.1f s; `pfmc tune` tunes "
                  "ahead)",
                  shape_groups, shape_groups > 1 ? "s" : "", estimate_s * 1e3,
                  probed_now ? "now" : "earlier, cached", kTuneBudgetSeconds);
    return {group.model_name, fallback.backend, fallback.prefetch_distance,
            config::to_string(fallback.padding), why};
  }
  TuneOptions quick;
  quick.budget_seconds = kTuneBudgetSeconds;
  const TuneResult tuned = tune_group(group, settings, quick);
  cache.store(tuned);
  tuning.changed = true;
  std::snprintf(why, sizeof why,
                "tuned now in %.2f s on %llu of %llu paths (%zu configurations; "
                "generation + kernel %.3f ms, none %.3f ms), cached in ",
                tuned.seconds, static_cast<unsigned long long>(tuned.sample_paths),
                static_cast<unsigned long long>(settings.paths), tuned.all.size(),
                tuned.best.total_ms(), tuned.baseline.total_ms());
  return {group.model_name, tuned.best.choice.backend, tuned.best.choice.prefetch_distance,
          config::to_string(tuned.best.choice.padding), why + cache.path()};
}

/// The kernels a group's (model, assets, Greeks, backend, asked distance) has: the distance
/// resolved once per such shape (a book of 8,192 groups has a few), not once per group.
using DistanceShape = std::tuple<config::ModelType, int, int, std::string, int>;

/// The distances the group has kernels of its backend at, in the catalogue's order.
std::vector<int> instantiated_distances(const GroupPlan& group, config::Precision precision,
                                        const std::string& backend) {
  std::vector<int> have;
  for (int d : kernels::prefetch_distances()) {
    if (has_group_launcher(group, precision, backend, d))
      have.push_back(d);
  }
  return have;
}

/// The group must have kernels of its backend at the chosen prefetch distance; a model that is
/// instantiated at fewer distances (kernels/model_list.cuh) takes the nearest one (a tie goes to
/// the longer look-ahead), one without the backend at all the common module's default, and the
/// run says so once per shape.
void resolve_group_distance(const GroupPlan& group, config::Precision precision,
                            config::RngType rng, bool brownian_bridge, GroupBackend& chosen,
                            std::map<DistanceShape, GroupBackend>& resolved, RunInfo& run) {
  const DistanceShape shape{group.model_type, group.assets, group.model_copies, chosen.backend,
                            chosen.prefetch_distance};
  const auto known = resolved.find(shape);
  if (known != resolved.end()) {
    chosen.backend = known->second.backend;
    chosen.prefetch_distance = known->second.prefetch_distance;
    chosen.padding = known->second.padding;
    return;
  }
  if (has_group_launcher(group, precision, chosen.backend, chosen.prefetch_distance)) {
    resolved.emplace(shape, chosen);
    return;
  }
  std::vector<int> have = instantiated_distances(group, precision, chosen.backend);
  if (have.empty()) {
    // No kernel of this backend at all (the baskets' Greeks have the common module's alone):
    // the common module's default for the run's draws, said once per shape.
    const BackendChoice fallback = default_backend_choice(rng, brownian_bridge);
    std::string notice = chosen.backend + " has no kernels for " +
                         config::to_string(group.model_type) +
                         (group.model_copies > 1 ? " with Greeks" : "") + " groups; " +
                         fallback.backend + " taken for them";
    if (std::find(run.notices.begin(), run.notices.end(), notice) == run.notices.end())
      run.notices.push_back(std::move(notice));
    chosen.backend = fallback.backend;
    chosen.prefetch_distance = fallback.prefetch_distance;
    chosen.padding = config::to_string(fallback.padding);
    resolved.emplace(shape, chosen);
    return;
  }
  const int wanted = chosen.prefetch_distance;
  int nearest = have.front();
  std::string list;
  for (int d : have) {
    if (std::abs(d - wanted) <= std::abs(nearest - wanted))
      nearest = d;
    list += (list.empty() ? "" : ", ") + std::to_string(d);
  }
  std::string notice =
      "prefetch distance " + std::to_string(wanted) + " asked, " + std::to_string(nearest) +
      " taken for " + chosen.backend + " on " + config::to_string(group.model_type) +
      (group.model_copies > 1 ? " with Greeks" : "") + " groups (kernels at " + list + " only)";
  // Baskets of 2, 3 and 4 assets are shapes of their own and one line.
  if (std::find(run.notices.begin(), run.notices.end(), notice) == run.notices.end())
    run.notices.push_back(std::move(notice));
  chosen.prefetch_distance = nearest;
  resolved.emplace(shape, chosen);
}

/// `auto`'s choices as notices: one line per distinct choice, not one per group (a run may have
/// thousands).
void add_auto_notices(RunInfo& run, int groups) {
  std::map<std::string, int> lines;
  const GroupBackend* previous = nullptr; // groups in a row with the same choice: one line
  std::map<std::string, int>::iterator current;
  for (const auto& b : run.group_backends) {
    if (previous != nullptr && b.backend == previous->backend &&
        b.prefetch_distance == previous->prefetch_distance && b.padding == previous->padding &&
        b.source == previous->source) {
      ++current->second;
      continue;
    }
    previous = &b;
    const kernels::BackendInfo* info = kernels::find_backend(b.backend);
    std::string label = b.backend;
    if (info != nullptr && info->uses_prefetch_distance)
      label += " (distance " + std::to_string(b.prefetch_distance) +
               (info->uses_padding ? ", padding " + b.padding : "") + ")";
    current = lines.try_emplace("backend auto: " + label + " from " + b.source, 0).first;
    ++current->second;
  }
  for (const auto& [line, count] : lines) {
    run.notices.push_back(line + (groups > 1 ? " for " + std::to_string(count) + " of " +
                                                   std::to_string(groups) + " groups"
                                             : ""));
  }
}

} // namespace

RunTuningCache open_tuning_cache(const DeviceInfo& device, bool on_gpu, const PriceOptions& options,
                                 RunInfo& run) {
  RunTuningCache tuning;
  if (on_gpu) {
    tuning.cache.emplace(tuning_cache_path(options.tuning_cache));
    if (!tuning.cache->recovered().empty())
      run.notices.push_back(tuning.cache->recovered());
    const bool had_bandwidth = tuning.cache->copy_bandwidth(device).has_value();
    run.copy_bandwidth_gbps = device_copy_bandwidth(device, &*tuning.cache);
    tuning.changed = !had_bandwidth;
  }
  return tuning;
}

void save_tuning_cache(const RunTuningCache& tuning, RunInfo& run) {
  if (!tuning.cache || !tuning.changed)
    return;
  try {
    tuning.cache->save();
  } catch (const std::exception& e) {
    run.notices.push_back(std::string("tuning cache not saved: ") + e.what());
  }
}

std::vector<int> number_device_kinds(const std::vector<std::string>& keys) {
  std::vector<int> kinds;
  int next = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto first =
        static_cast<std::size_t>(std::find(keys.begin(), keys.end(), keys[i]) - keys.begin());
    kinds.push_back(first == i ? next++ : kinds[first]);
  }
  return kinds;
}

std::vector<ExecutionSettings> choose_group_backends(const SimulationPlan& plan,
                                                     const ExecutionSettings& settings,
                                                     const DeviceInfo& device, bool on_gpu,
                                                     const PriceOptions& options,
                                                     RunTuningCache& tuning, RunInfo& run) {
  if (!on_gpu)
    return std::vector<ExecutionSettings>(plan.groups.size(), settings);
  // Each group's settings made once, in order (group g's are group_settings[g] once pushed).
  std::vector<ExecutionSettings> group_settings;
  group_settings.reserve(plan.groups.size());
  const bool automatic_backend = settings.backend == "auto";
  AutoChoices choices;
  std::map<DistanceShape, GroupBackend> resolved_distances;
  // Each group's key: its shape's, formatted once per distinct (model, factors, scenarios,
  // steps) — a book of 8,192 groups spent 13 ms choosing backends while each group formatted
  // its own — and neither copied nor looked up per group (not timed apart;
  // docs/decisions.md#backend-choice); null for early exercise.
  using Shape = std::tuple<config::ModelType, int, int, int>;
  std::map<Shape, std::pair<std::string, int>> formatted; // the key, and its groups
  std::vector<const std::string*> keys;
  if (automatic_backend) {
    keys.reserve(plan.groups.size());
    std::pair<std::string, int>* previous = nullptr;
    Shape previous_shape;
    for (const GroupPlan& group : plan.groups) {
      if (group.exercise.present()) { // not tuned: early exercise has one kernel
        keys.push_back(nullptr);
        continue;
      }
      const Shape shape{group.model_type, group.factors, group.scenarios, group.steps()};
      if (previous == nullptr || shape != previous_shape) {
        auto known = formatted.find(shape);
        if (known == formatted.end())
          known = formatted.emplace(shape, std::make_pair(tuning_key(device, group, settings), 0))
                      .first;
        previous = &known->second;
        previous_shape = shape;
      }
      ++previous->second;
      keys.push_back(&previous->first);
    }
    for (const auto& [shape, key] : formatted)
      choices.groups_of_key[key.first] += key.second;
  }
  bool early_exercise = false;
  // A group of the shape and key of the group before it takes that group's choice (its settings
  // and its line, under its own model's name): a book's 8,192 alike groups resolve one.
  const auto same_choice = [&](const GroupPlan& a, const GroupPlan& b, std::size_t g) {
    return !a.exercise.present() && !b.exercise.present() && a.model_type == b.model_type &&
           a.assets == b.assets && a.scenarios == b.scenarios && a.model_copies == b.model_copies &&
           a.fast_math == b.fast_math && a.pathwise_moved_inputs == b.pathwise_moved_inputs &&
           (!automatic_backend || keys[g - 1] == keys[g] || *keys[g - 1] == *keys[g]);
  };
  run.group_backends.reserve(run.group_backends.size() + plan.groups.size());
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const GroupPlan& group = plan.groups[g];
    if (g > 0 && same_choice(plan.groups[g - 1], group, g)) {
      group_settings.push_back(group_settings.back());
      run.group_backends.push_back(run.group_backends.back());
      run.group_backends.back().model = group.model_name;
      continue;
    }
    group_settings.push_back(settings);
    if (group.exercise.present()) {
      // Its own kernel (kernels/launcher_table.cuh), which computes its draws in the loop.
      early_exercise = true;
      group_settings[g].backend = "inline";
      run.group_backends.push_back(
          {group.model_name, "inline", 0, "none", "early exercise: its own kernel (inline draws)"});
      continue;
    }
    GroupBackend chosen{group.model_name, settings.backend, settings.prefetch_distance,
                        config::to_string(settings.padding), "engine.backend"};
    if (automatic_backend) {
      const std::string& key = *keys[g];
      const auto known = choices.decided.find(key);
      if (known == choices.decided.end()) {
        chosen = choose_auto_backend(group, key, settings, options, tuning, choices);
        choices.decided.emplace(key, chosen);
      } else {
        chosen = known->second;
        chosen.model = group.model_name;
      }
      const auto padding = config::parse_padding(chosen.padding);
      ExecutionSettings& s = group_settings[g];
      s.backend = chosen.backend;
      s.prefetch_distance = chosen.prefetch_distance;
      s.padding = padding ? *padding : config::Padding{};
    }
    resolve_group_distance(group, settings.precision, settings.rng, settings.brownian_bridge,
                           chosen, resolved_distances, run);
    group_settings[g].backend = chosen.backend;
    group_settings[g].prefetch_distance = chosen.prefetch_distance;
    if (const auto padding = config::parse_padding(chosen.padding))
      group_settings[g].padding = *padding;
    run.group_backends.push_back(chosen);
  }
  if (automatic_backend)
    add_auto_notices(run, static_cast<int>(plan.groups.size()));
  if (early_exercise && !automatic_backend && settings.backend != "inline") {
    run.notices.push_back("early-exercise instruments run their own kernel with inline draws; "
                          "backend " +
                          settings.backend + " prices the rest of the book");
  }
  return group_settings;
}

} // namespace pfmc::engine
