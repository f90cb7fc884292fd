#include "engine/pricer.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "base/trace.hpp"
#include "engine/core/cuda_resources.hpp"
#include "engine/core/visible_devices.hpp"
#include "engine/plan/plan.hpp"
#include "engine/run/gpu_engine.hpp"
#include "engine/run/kernel_choice.hpp"
#include "engine/run/replicates.hpp"
#include "engine/run/run_setup.hpp"
#include "engine/scale/communicator.hpp"
#include "engine/scale/device_threads.hpp"
#include "engine/scale/split_run.hpp"
#include "engine/tune/backend_choice.hpp"
#include "engine/tune/tuning.hpp"
#include "kernels/catalog.hpp"
#include "kernels/compile/compiled_kernels.hpp"

namespace pfmc::engine {

namespace {

/// The ordinals the host's other processes know the devices by (engine/core/visible_devices).
std::vector<int> physical_ordinals(const std::vector<int>& devices) {
  std::vector<int> physical;
  for (int d : devices)
    physical.push_back(physical_ordinal(d));
  return physical;
}

/// The groups' kernels that the binary lacks, compiled (or read from the kernel cache) together on
/// the host's cores, before the groups load them one after another.
void compile_group_kernels(const SimulationPlan& plan,
                           const std::vector<ExecutionSettings>& group_settings, int arch) {
  // Distinct by address (the launcher tables' static names): a book of 8,192 groups of one
  // model names one or two kernels; copying and sorting its 8,192-16,384 names took part of each
  // warm run's choice of backends.
  // A group that needs what the group before it needed (same settings, same kernel shape) adds
  // nothing: a book's 8,192 alike groups look their kernels up once.
  // Each group's shape is read once (the one-step check touches three of its arrays).
  std::set<const std::string*> distinct;
  GroupKernelShape previous;
  const auto same_settings = [](const ExecutionSettings& a, const ExecutionSettings& b) {
    return a.precision == b.precision && a.prefetch_distance == b.prefetch_distance &&
           a.backend == b.backend;
  };
  for (std::size_t g = 0; g < plan.groups.size() && g < group_settings.size(); ++g) {
    const GroupKernelShape shape = group_kernel_shape(plan.groups[g]);
    const bool same =
        g > 0 && shape == previous && same_settings(group_settings[g], group_settings[g - 1]);
    previous = shape;
    if (same)
      continue;
    for (const std::string* name :
         group_kernel_names(plan.groups[g], group_settings[g], group_settings[g].backend,
                            group_settings[g].prefetch_distance))
      distinct.insert(name);
  }
  std::vector<std::string> names;
  for (const std::string* name : distinct)
    names.push_back(*name);
  if (names.empty())
    return;
  const auto batch = kernels::compile::compile_all(names, arch, 0, true);
  if (!batch.failures.empty())
    throw RuntimeError(batch.failures.front());
}

} // namespace

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

/// What ran where: the device, the backend the groups ran with (`auto` resolves per group; one
/// line when they agree), the run's settings, and its throughput.
void describe_run(const config::RunConfig& config, const SimulationPlan& plan,
                  const ExecutionSettings& settings, const RunDevice& device, int replicates,
                  RunInfo& run) {
  const bool on_gpu = device.on_gpu;
  run.replicates = replicates;
  run.antithetic = config.simulation.antithetic;
  run.control_variate = config.simulation.control_variate;
  run.brownian_bridge = settings.brownian_bridge;
  for (const GroupPlan& group : plan.groups)
    run.scenarios = std::max(run.scenarios, group.model_copies);
  run.on_gpu = on_gpu;
  run.device =
      on_gpu ? device.info.name : "CPU (" + std::to_string(settings.cpu_threads) + " threads)";
  run.backend = on_gpu ? settings.backend : "cpu";
  run.padding = "none";
  if (on_gpu && !run.group_backends.empty()) {
    const GroupBackend& first = run.group_backends.front();
    const bool same = std::all_of(
        run.group_backends.begin(), run.group_backends.end(), [&](const GroupBackend& b) {
          return b.backend == first.backend && b.prefetch_distance == first.prefetch_distance &&
                 b.padding == first.padding;
        });
    run.backend = same ? first.backend : "auto (per group)";
    const kernels::BackendInfo* backend = kernels::find_backend(first.backend);
    run.prefetch_distance =
        same && backend != nullptr && backend->uses_prefetch_distance ? first.prefetch_distance : 0;
    run.padding = same && backend != nullptr && backend->uses_padding ? first.padding : "none";
  }
  run.precision = config::to_string(settings.precision);
  run.rng = config::to_string(settings.rng);
  run.math = config::to_string(config.simulation.math);
  if (!config.simulation.greeks.empty())
    run.greeks_method = config::to_string(config.simulation.greeks_method);
  run.seed = settings.seed;
  run.paths = settings.paths;
  run.groups = static_cast<int>(plan.groups.size());
  run.block_size = settings.block_size;
  run.terminal_kernels = settings.terminal_kernels;
  run.terminal_blocks_per_cta = settings.terminal_blocks_per_cta;
  run.compile_at_runtime = settings.compile_at_runtime;
  run.unit_groups = settings.unit_groups;
  run.threads = on_gpu ? 0 : settings.cpu_threads;
}

/// A host mixing GPUs: the kinds of the run's devices (options.device_kind, else device_key),
/// and for each kind after the first its groups' settings in the placement, chosen on its first
/// device as the first kind's were on the run's first device (that device's memory cap, its
/// tuning), with a notice of what that kind runs. One kind: nothing.
void choose_kind_backends(const config::RunConfig& config, const SimulationPlan& plan,
                          const RunDevice& device, const PriceOptions& options,
                          RunTuningCache& tuning, Placement& placement, RunInfo& run) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < device.devices.size(); ++i) {
    const DeviceInfo info = device_properties(device.devices[i]); // no context needed
    keys.push_back(options.device_kind ? options.device_kind(info, i) : device_key(info));
  }
  const std::vector<int> kinds = number_device_kinds(keys);
  const int count = kinds.empty() ? 1 : *std::max_element(kinds.begin(), kinds.end()) + 1;
  if (count == 1)
    return;
  placement.device_kinds = kinds;
  placement.kind_settings.resize(static_cast<std::size_t>(count)); // kind 0: the run's own
  for (int k = 1; k < count; ++k) {
    std::string ordinals;
    int first = -1;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] != k)
        continue;
      first = first < 0 ? device.devices[i] : first;
      ordinals += (ordinals.empty() ? "" : ", ") + std::to_string(device.devices[i]);
    }
    const ScopedDevice on_kind(first);
    RunDevice kind_device;
    kind_device.info = query_device(first);
    kind_device.on_gpu = true;
    kind_device.devices = {first};
    RunInfo kind_run;
    placement.kind_settings[static_cast<std::size_t>(k)] =
        choose_group_backends(plan, make_settings(config, kind_device), kind_device.info, true,
                              options, tuning, kind_run);
    run.notices.push_back("GPU " + ordinals + " (" + kind_device.info.name +
                          ", another kind than GPU " + std::to_string(device.devices.front()) +
                          "): backends chosen on it apart: " +
                          backends_summary(placement.kind_settings[static_cast<std::size_t>(k)]));
    for (const std::string& notice : kind_run.notices)
      run.notices.push_back("GPU " + ordinals + ": " + notice);
  }
}

/// Throughput of the path kernels, and its share of the device's copy bandwidth.
void add_throughput(RunInfo& run) {
  if (run.kernel_ms > 0.0) {
    run.path_steps_per_second = run.path_steps / (run.kernel_ms * 1e-3);
    run.achieved_gbps = run.bytes_loaded / (run.kernel_ms * 1e-3) * 1e-9;
    if (run.copy_bandwidth_gbps > 0.0) {
      run.copy_bandwidth_fraction = run.achieved_gbps / run.copy_bandwidth_gbps;
    }
  }
}

} // namespace

void prepare_devices(const config::RunConfig& config) {
  if (config.engine.device == config::DeviceChoice::cpu ||
      config.engine.devices.kind == config::DeviceList::Kind::first)
    return; // one device: the caller's thread opens it
  RunDevice device;
  device.on_gpu = true;
  RunInfo ignored;
  try {
    resolve_devices(config, false, device, ignored);
  } catch (const std::exception&) {
    return; // the run itself says what is wrong
  }
  open_devices(device.devices);
}

RunResult price(const config::RunConfig& config, const ProgressFn& progress,
                const PriceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const base::TraceSpan span("price");
  // What this run compiles and loads, on any thread that works for it.
  kernels::compile::CompileCounter compiles;
  const kernels::compile::CompileScope counting(&compiles);
  RunResult result;
  RunInfo& run = result.run;

  base::TraceSpan device_span("choose device");
  RunDevice device = choose_device(config, run);
  resolve_devices(config, options.processes != nullptr, device, run);
  // A split run's devices are opened at once on their own threads while this one plans and
  // chooses backends (a device already open costs nothing).
  if (device.on_gpu && device.devices != std::vector<int>{0})
    open_devices(device.devices);
  // The run's first device is where its memory cap is read and its tuning measures: an MPI
  // rank on GPU 3 (by its local rank) read GPU 0's free memory and tuned on GPU 0. The
  // caller's current device comes back after the run.
  std::optional<ScopedDevice> on_first_device;
  if (device.on_gpu) {
    int current = 0;
    PFMC_CUDA_TRY(cudaGetDevice(&current));
    if (device.devices.front() != current) {
      on_first_device.emplace(device.devices.front());
      device.info = query_device(device.devices.front());
    }
  }
  const ExecutionSettings settings = make_settings(config, device);
  device_span.end();
  const auto plan_start = std::chrono::steady_clock::now();
  base::TraceSpan plan_span("plan");
  // Freed at the end of the run, under a span of its own (8,192 groups of vectors: ms).
  struct FreedPlan {
    std::unique_ptr<const SimulationPlan> plan;
    ~FreedPlan() {
      const base::TraceSpan free_span("plan: free");
      plan.reset();
    }
  } owned{std::make_unique<const SimulationPlan>(make_plan(config))};
  const SimulationPlan& plan = *owned.plan;
  plan_span.end();
  run.plan_ms = milliseconds_since(plan_start);
  base::TraceSpan check_span("check plan");
  check_plan(config, plan, settings, device.on_gpu);
  check_span.end();
  run.notices.insert(run.notices.end(), plan.notices.begin(), plan.notices.end());
  // An MPI rank's GPU work (tuning included) waits for the lower ranks of its host on its GPUs
  // (engine/scale/communicator.hpp); run_split ends the turn.
  if (options.processes != nullptr)
    options.processes->begin_turn(device.on_gpu ? device_mask(physical_ordinals(device.devices))
                                                : 0);

  const auto backends_start = std::chrono::steady_clock::now();
  base::TraceSpan backends_span("backends");
  base::TraceSpan tuning_span("backends: tuning cache");
  RunTuningCache tuning = open_tuning_cache(device.info, device.on_gpu, options, run);
  tuning_span.end();
  base::TraceSpan group_backends_span("backends: groups");
  std::vector<ExecutionSettings> group_settings =
      choose_group_backends(plan, settings, device.info, device.on_gpu, options, tuning, run);
  group_backends_span.end();
  Placement placement{device.devices, options.processes, {}, {}};
  if (device.on_gpu) {
    base::TraceSpan kinds_span("backends: kinds");
    choose_kind_backends(config, plan, device, options, tuning, placement, run);
    kinds_span.end();
    const base::TraceSpan kernels_span("backends: kernels");
    compile_group_kernels(plan, group_settings, device.info.compute_capability);
  }
  run.backends_ms = milliseconds_since(backends_start);
  backends_span.end();
  base::TraceSpan batches_span("check draw batches");
  check_draw_batches(config, plan, settings, group_settings, device.on_gpu);
  for (std::size_t k = 1; k < placement.kind_settings.size(); ++k) { // under each kind's cap
    const auto kind_groups = settings_of_kind(group_settings, placement, static_cast<int>(k));
    ExecutionSettings kind_settings = settings;
    if (!kind_groups.empty())
      kind_settings.memory_cap = kind_groups.front().memory_cap;
    check_draw_batches(config, plan, kind_settings, kind_groups, true);
  }
  batches_span.end();
  base::TraceSpan replicates_span("replicates");
  const ReplicatePlan replicates = plan_replicates(config, settings);
  // Each group's instruments' results as soon as the replicates' estimates of it are final: a
  // single GPU run's while the device runs the later groups.
  result.instruments.resize(config.instruments.size());
  const GroupEstimated estimated = [&](std::size_t g, const std::vector<ReplicateSample>& s) {
    fill_group_results(config, plan, g, replicates, s, result);
  };
  const std::vector<ReplicateSample> samples =
      run_replicates(plan, settings, std::move(group_settings), device.on_gpu, placement,
                     replicates, config.instruments.size(), progress, estimated, run);
  replicates_span.end();
  if (samples.empty()) { // an MPI rank other than 0: rank 0 reports
    result.instruments.clear();
    run.total_ms = milliseconds_since(start);
    return result;
  }
  const auto results_start = std::chrono::steady_clock::now();
  base::TraceSpan results_span("results");
  fill_results(config, replicates, samples, result);
  results_span.end();
  run.results_ms = milliseconds_since(results_start);
  base::TraceSpan save_span("save tuning cache");
  save_tuning_cache(tuning, run);
  save_span.end();

  base::TraceSpan describe_span("describe the run");
  describe_run(config, plan, settings, device, replicates.replicates, run);
  describe_span.end();
  const kernels::compile::CompileTotals compiled = compiles.totals();
  run.compile_ms = compiled.compile_ms;
  run.kernels_compiled = compiled.compiled;
  run.kernels_from_cache = compiled.from_cache;
  run.cache_load_ms = compiled.load_ms;
  run.total_ms = milliseconds_since(start);
  add_throughput(run);
  return result;
}

} // namespace pfmc::engine
