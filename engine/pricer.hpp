#pragma once
// Top of the engine: a validated RunConfig in, prices with standard errors and run metrics
// out. Chooses the device, checks the backend against it, plans, runs every group on the GPU
// or the CPU backend, and turns the reduced sums into statistics. Its stages, in order:
// engine/run/run_setup.hpp (device, settings, checks), engine/tune/backend_choice.hpp (each
// group's backend), engine/run/replicates.hpp (the runs, the results) and
// engine/run/statistics.hpp (estimates from the reduced sums).

#include "config/run_config.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/pricing_types.hpp"
#include "engine/run/statistics.hpp"

namespace pfmc::engine {

/// Starts opening the GPUs that a run of `config` splits over (engine.devices: their contexts,
/// memory pools and workspaces, all at once on their threads) and returns at once: a caller that
/// has more to do before price() (the CLI joins its device-0 start) overlaps it with that.
/// Nothing for a CPU run or one device; a config price() would refuse is left to price().
void prepare_devices(const config::RunConfig& config);

/// Prices every instrument of the config. Throws config::ConfigError for a config the engine
/// cannot run as written (limits, a backend this device cannot run), RuntimeError/CudaError
/// for failures.
RunResult price(const config::RunConfig& config, const ProgressFn& progress = {},
                const PriceOptions& options = {});

} // namespace pfmc::engine
