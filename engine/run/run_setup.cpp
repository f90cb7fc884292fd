#include "engine/run/run_setup.hpp"

#include "engine/core/visible_devices.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "base/error.hpp"
#include "base/parallel_ranges.hpp"
#include "config/config_error.hpp"
#include "engine/draws/draw_plan.hpp"
#include "engine/draws/normal_source.hpp"
#include "engine/run/exercise.hpp"
#include "kernels/catalog.hpp"
#include "kernels/reduction_shape.cuh"
#include "models/pathwise.cuh"
#include "models/pathwise_heston.cuh"
#include "models/pathwise_local_vol.cuh"

namespace pfmc::engine {

namespace {
/// The most registers a pathwise Greeks' kernel takes a thread: its models' register floors
/// (models::PathwiseBlackScholes::register_floor, the other pathwise models' alike).
constexpr int kMaxPathwiseRegisters =
    std::max({models::PathwiseBlackScholes<double, 1>::register_floor,
              models::PathwiseBlackScholes<double, 1, models::kSpotAndVolInputs>::register_floor,
              models::PathwiseHeston<double>::register_floor,
              models::PathwiseLocalVol<double>::register_floor});
/// The largest block (a power of two, as engine.block_size) whose threads' registers fit an
/// SM's 65536 at kMaxPathwiseRegisters.
constexpr int kMaxPathwiseBlockSize = [] {
  int size = 1;
  while (2 * size * kMaxPathwiseRegisters <= 65536)
    size *= 2;
  return size;
}();
} // namespace

namespace {

int real_bytes_of(config::Precision precision) {
  return precision == config::Precision::float32 ? 4 : 8;
}

/// An engine.backend named in the config (not `auto`) must be known, run on this device, draw
/// the run's generator, and read whole paths' draws when they pass through a Brownian bridge.
void check_named_backend(const config::RunConfig& config, const ExecutionSettings& settings,
                         const DeviceInfo& device) {
  const kernels::BackendInfo* backend = kernels::find_backend(settings.backend);
  if (backend == nullptr || backend->bench_only) { // config::check_backend refuses both first
    throw config::ConfigError(config.file, config.engine.backend_mark, "engine.backend",
                              "unknown backend '" + settings.backend +
                                  "' (known: " + kernels::backend_name_list() + ")");
  }
  const std::string refusal =
      kernels::why_backend_cannot_run(*backend, device.compute_capability, device.name);
  if (!refusal.empty()) {
    throw config::ConfigError(config.file, config.engine.backend_mark, "engine.backend", refusal);
  }
  // A backend that computes its draws in the step loop computes Philox's, one step at a time.
  const std::string draw_refusal =
      kernels::why_backend_cannot_draw(*backend, config::to_string(settings.rng));
  if (!draw_refusal.empty()) {
    throw config::ConfigError(config.file, config.engine.backend_mark, "engine.backend",
                              draw_refusal);
  }
  if (!backend->reads_draws && settings.brownian_bridge) {
    throw config::ConfigError(
        config.file, config.engine.backend_mark, "engine.backend",
        "backend '" + settings.backend +
            "' computes each step's draws in the loop; a Brownian bridge needs each path's "
            "draws together: set simulation.brownian_bridge: false, or choose another backend");
  }
}

/// One tile of the group's paths (two draw buffers of one on the GPU, which generates the next
/// chunk while the kernels read one; the CPU computes Philox draws block by block and keeps
/// none) must fit under the memory cap.
void check_group_fits(const config::RunConfig& config, const GroupPlan& group,
                      const ExecutionSettings& settings, bool on_gpu) {
  const int values = group.reduced_values();
  const int real_bytes = real_bytes_of(settings.precision);
  const bool buffers = on_gpu || settings.rng != config::RngType::philox;
  // Early exercise holds its regression paths' records beside the priced paths' chunks.
  const std::uint64_t regression = regression_bytes(group, real_bytes);
  if (regression > 0 && regression >= settings.memory_cap) {
    throw config::ConfigError(
        config.file, {}, "simulation.regression_paths",
        "the early-exercise regression on model '" + group.model_name + "' records " +
            std::to_string(group.exercise.dates()) + " dates of " +
            std::to_string(group.exercise.regression_paths) +
            " paths: " + std::to_string(regression) + " bytes, over the memory cap of " +
            std::to_string(settings.memory_cap) + " (engine.max_device_memory" +
            (on_gpu ? "" : ", at most " + std::to_string(kCpuMemoryCap) + " on the CPU") +
            "): lower simulation.regression_paths, or give fewer exercise dates");
  }
  const std::uint64_t rest = settings.memory_cap - regression;
  const std::uint64_t chunk_cap = on_gpu ? rest / 2 : rest;
  const int rows = buffers ? group.rows() : 0;
  const ChunkPlan chunking = plan_chunks(settings.paths, rows, real_bytes, values, chunk_cap);
  if (chunking.chunk_paths == 0) {
    throw config::ConfigError(
        config.file, {}, "engine.max_device_memory",
        std::to_string(settings.memory_cap) + " bytes is too small: " +
            (on_gpu ? "two draw buffers of one tile of " : "one tile of ") +
            std::to_string(kernels::kTilePaths) + " paths of model '" + group.model_name +
            "' needs " +
            std::to_string(
                plan_chunks(kernels::kTilePaths, rows, real_bytes, values, ~0ull).bytes_per_chunk));
  }
}

} // namespace

RunDevice choose_device(const config::RunConfig& config, RunInfo& run) {
  const auto device_start = std::chrono::steady_clock::now();
  RunDevice device;
  if (config.engine.device != config::DeviceChoice::cpu)
    device.info = query_device();
  run.device_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - device_start)
          .count();
  switch (config.engine.device) {
  case config::DeviceChoice::gpu:
    if (!device.info.available) {
      throw RuntimeError("no GPU to run on (" + device.info.unavailable_reason +
                         "); use --device cpu or engine.device: auto");
    }
    device.on_gpu = true;
    break;
  case config::DeviceChoice::automatic:
    device.on_gpu = device.info.available;
    if (!device.on_gpu) {
      run.notices.push_back("no GPU (" + device.info.unavailable_reason +
                            "): running on the CPU reference backend");
    }
    break;
  case config::DeviceChoice::cpu:
    break;
  }
  return device;
}

void resolve_devices(const config::RunConfig& config, bool split_processes, RunDevice& device,
                     RunInfo& run) {
  const config::DeviceList& asked = config.engine.devices;
  using Kind = config::DeviceList::Kind;
  if (!device.on_gpu) {
    if (asked.kind != Kind::first)
      run.notices.push_back("engine.devices (" + config::to_string(asked) +
                            ") is for GPU runs: this run is on the CPU");
  } else {
    const int present = device_count();
    device.devices.clear();
    switch (asked.kind) {
    case Kind::first:
      // An MPI job's ranks on one host take one GPU each by their local rank (several ranks per
      // GPU where there are fewer GPUs: they share it). The command line may have narrowed CUDA
      // to that GPU alone (engine/core/visible_devices.hpp): then it is device 0 here.
      if (split_processes && physical_ordinal(0) != 0 && present != 1)
        forget_narrowing(); // CUDA had started before the narrowing: it did not take
      device.devices = {
          split_processes && present > 0 && physical_ordinal(0) == 0 ? local_rank() % present : 0};
      break;
    case Kind::all:
      for (int d = 0; d < present; ++d)
        device.devices.push_back(d);
      break;
    case Kind::count:
      if (asked.count > present) {
        throw config::ConfigError(config.file, {}, "engine.devices",
                                  std::to_string(asked.count) +
                                      " devices asked for; this host has " +
                                      std::to_string(present));
      }
      for (int d = 0; d < asked.count; ++d)
        device.devices.push_back(d);
      break;
    case Kind::list:
      for (int d : asked.ordinals) {
        if (d >= present) {
          throw config::ConfigError(config.file, {}, "engine.devices",
                                    "no device " + std::to_string(d) + ": this host has " +
                                        std::to_string(present) + " (ordinals 0.." +
                                        std::to_string(present - 1) + ")");
        }
      }
      device.devices = asked.ordinals;
      break;
    }
  }
  const bool split = split_processes || (device.on_gpu && device.devices != std::vector<int>{0});
  if (split && config.simulation.rng != config::RngType::philox) {
    throw config::ConfigError(
        config.file, {}, "simulation.rng",
        std::string("a run split over ") + (split_processes ? "MPI ranks" : "several devices") +
            " needs rng: philox (a counter-based draw depends only on its path, so any split "
            "gives the same numbers; " +
            config::to_string(config.simulation.rng) + " is one sequence)");
  }
}

namespace {
/// Under this, the default cap (70% of the free memory) means another process holds the GPU: a
/// run would fail at its first buffer or be refused as a config error it is not.
constexpr std::uint64_t kMinDefaultDeviceMemory = std::uint64_t(32) << 20;

/// A cap above what the card has cannot be honoured: refused before anything is allocated (a cap
/// under the card's total but above its free memory is allowed: pfmc's buffers may still fit).
void check_memory_setting(const config::RunConfig& config, const RunDevice& device) {
  const std::uint64_t cap = config.engine.max_device_memory;
  const double default_cap = kDefaultMemoryFraction * static_cast<double>(device.info.free_memory);
  if (cap == 0 && default_cap < static_cast<double>(kMinDefaultDeviceMemory)) {
    throw RuntimeError(
        "GPU " + std::to_string(device.devices.front()) + " (" + device.info.name + ") has " +
        describe_bytes(device.info.free_memory) + " free of " +
        describe_bytes(device.info.total_memory) +
        ": another process holds the rest; pfmc takes 70% of the free memory and needs at least " +
        describe_bytes(kMinDefaultDeviceMemory) +
        ": free the GPU, set engine.max_device_memory, or run with --device cpu");
  }
  if (cap > 0 && device.info.total_memory > 0 && cap > device.info.total_memory) {
    throw RuntimeError("engine.max_device_memory: " + describe_bytes(cap) + " is more than GPU " +
                       std::to_string(device.devices.front()) + " (" + device.info.name +
                       ") has: " + describe_bytes(device.info.total_memory) +
                       "; give at most that, or leave it unset for 70% of the free memory");
  }
}
} // namespace

ExecutionSettings make_settings(const config::RunConfig& config, const RunDevice& device) {
  ExecutionSettings settings;
  settings.precision = config.simulation.precision;
  settings.rng = config.simulation.rng;
  settings.fast_math = config.simulation.math == config::MathProfile::fast;
  settings.seed = config.simulation.seed;
  settings.paths = config.simulation.paths;
  settings.backend = config.engine.backend;
  settings.prefetch_distance = config.engine.prefetch_distance;
  settings.padding = config.engine.padding;
  settings.block_size = config.engine.block_size;
  const unsigned hardware_threads = std::max(1u, std::thread::hardware_concurrency());
  settings.cpu_threads = config.engine.cpu_threads > 0 ? config.engine.cpu_threads
                                                       : static_cast<int>(hardware_threads);
  if (device.on_gpu) {
    check_memory_setting(config, device);
    settings.memory_cap =
        config.engine.max_device_memory > 0
            ? config.engine.max_device_memory
            : static_cast<std::uint64_t>(kDefaultMemoryFraction *
                                         static_cast<double>(device.info.free_memory));
  } else {
    settings.memory_cap =
        config.engine.max_device_memory > 0
            ? std::min<std::uint64_t>(config.engine.max_device_memory, kCpuMemoryCap)
            : kCpuMemoryCap;
  }
  settings.draw_batch_bytes = config.engine.draw_batch_size;
  settings.terminal_kernels = config.engine.terminal_kernels;
  settings.terminal_blocks_per_cta = config.engine.terminal_blocks_per_cta;
  settings.compile_at_runtime = config.engine.compile_at_runtime;
  settings.unit_groups = config.engine.unit_groups;
  settings.antithetic = config.simulation.antithetic;
  settings.brownian_bridge = config.simulation.uses_brownian_bridge();
  if (device.on_gpu && settings.backend != "auto")
    check_named_backend(config, settings, device.info);
  return settings;
}

void check_plan(const config::RunConfig& config, const SimulationPlan& plan,
                const ExecutionSettings& settings, bool on_gpu) {
  const bool quasi =
      settings.rng == config::RngType::sobol || settings.rng == config::RngType::scrambled_sobol;
  // On a few threads, with the error of one loop over the groups (the 8,192-group book: 0.4 ms
  // on one, docs/decisions.md#planning-threads).
  const auto check = [&](std::size_t g, std::size_t) {
    const GroupPlan& group = plan.groups[g];
    if (group.model_copies > 1 && settings.precision == config::Precision::float32) {
      throw config::ConfigError(
          config.file, {}, "simulation.greeks",
          "bumped Greeks (model '" + group.model_name +
              "') need simulation.precision: double (their scenarios are instantiated in double "
              "only); pathwise Greeks run in float too (greeks_method: pathwise, or auto where "
              "the payoff allows)");
    }
    if (on_gpu && group.pathwise() && settings.block_size > kMaxPathwiseBlockSize) {
      throw config::ConfigError(
          config.file, {}, "engine.block_size",
          "pathwise Greeks (model '" + group.model_name + "') run blocks of at most " +
              std::to_string(kMaxPathwiseBlockSize) + " threads (their kernels take up to " +
              std::to_string(kMaxPathwiseRegisters) +
              " registers a thread); lower it, or use simulation.greeks_method: bump");
    }
    if (quasi && group.rows() > kMaxSobolDimensions) {
      throw config::ConfigError(config.file, {}, "simulation.rng",
                                std::string(config::to_string(settings.rng)) +
                                    " supports at most " + std::to_string(kMaxSobolDimensions) +
                                    " dimensions (steps x factors); model '" + group.model_name +
                                    "' needs " + std::to_string(group.rows()));
    }
    if (group.exercise.present() && settings.rng != config::RngType::philox) {
      throw config::ConfigError(
          config.file, {}, "simulation.rng",
          "early exercise (model '" + group.model_name +
              "') needs rng: philox: its regression and priced paths are independent draws of "
              "the counter-based generator (" +
              config::to_string(settings.rng) + " is not supported with it)");
    }
    check_group_fits(config, group, settings, on_gpu);
  };
  const std::size_t groups = plan.groups.size();
  const base::FirstFailure failed =
      base::parallel_ranges(groups, base::threads_for(groups, base::kLightItemsPerThread), check);
  if (failed.error)
    std::rethrow_exception(failed.error);
}

void check_draw_batches(const config::RunConfig& config, const SimulationPlan& plan,
                        const ExecutionSettings& settings,
                        const std::vector<ExecutionSettings>& group_settings, bool on_gpu) {
  const int real_bytes = real_bytes_of(settings.precision);
  std::vector<bool> computes(plan.groups.size(),
                             !on_gpu && settings.rng == config::RngType::philox);
  for (std::size_t g = 0; on_gpu && g < plan.groups.size(); ++g) {
    if (g > 0 && group_settings[g].backend == group_settings[g - 1].backend) {
      computes[g] = computes[g - 1]; // (a book's groups share a backend: one lookup)
      continue;
    }
    const kernels::BackendInfo* info = kernels::find_backend(group_settings[g].backend);
    computes[g] = info != nullptr && !info->reads_draws;
  }
  // Groups that compute their draws hold no batch (an `inline` book plans no units here).
  if (std::all_of(computes.begin(), computes.end(), [](bool c) { return c; }))
    return;
  for (const DrawUnit& unit :
       plan_draw_units(plan, settings.rng, settings.paths, real_bytes, settings.draw_batch_bytes,
                       computes, settings.unit_groups)) {
    const std::uint64_t need =
        unit.values * static_cast<std::uint64_t>(real_bytes) * (on_gpu ? 2 : 1);
    if (unit.batched && need > settings.memory_cap) {
      throw config::ConfigError(
          config.file, {}, "engine.max_device_memory",
          std::to_string(settings.memory_cap) + " bytes cannot hold " +
              (on_gpu ? "two draw batches" : "a draw batch") + " of " +
              std::to_string(unit.values * static_cast<std::uint64_t>(real_bytes)) +
              " bytes: raise it, or lower engine.draw_batch_size (0: no batches)");
    }
  }
}

} // namespace pfmc::engine
