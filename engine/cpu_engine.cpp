#include "engine/cpu_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "engine/draw_plan.hpp"
#include "engine/draw_transform.hpp"
#include "engine/model_dispatch.hpp"
#include "engine/normal_source.hpp"
#include "kernels/draw_layout.hpp"
#include "kernels/reduction_shape.hpp"
#include "models/path.cuh"

namespace pfmc::engine {

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// One block of paths, exactly as the kernel does it: per-thread values (antithetic pairs
/// averaged across adjacent lanes, squares after), the warp shuffle tree, warps in order → the
/// block's partials.
template <class Model, class Real>
void simulate_block(const typename Model::Params& params, const models::PathSchedule& schedule,
                    const GroupPlan& group, const Real* normals, std::size_t block_first,
                    std::size_t chunk_paths, int block_size, std::vector<double>& lane_values,
                    double* partials) {
  const int n = group.base_instruments();
  const int S = group.scenarios;
  const int K = group.values_per_instrument();
  const int G = static_cast<int>(group.greeks.size());
  const bool cv = group.control_variate;
  const int values = group.reduced_values();
  const int steps = group.steps();
  constexpr int F = Model::factors;
  // The position of y, c and each g in an instrument's K values (their squares follow).
  const int c_at = 2;
  const int g_at = cv ? 5 : 2;
  lane_values.assign(static_cast<std::size_t>(block_size) * values, 0.0);
  for (int t = 0; t < block_size; ++t) {
    const std::size_t path = block_first + static_cast<std::size_t>(t);
    if (path >= chunk_paths)
      break; // inactive lanes contribute zeros
    double* out = lane_values.data() + static_cast<std::size_t>(t) * values;
    Real observed[models::kMaxObservations];
    models::Path<Model, Real> simulated(params, schedule, observed);
    for (int step = 0; step < steps; ++step) {
      Real z[F];
      for (int f = 0; f < F; ++f) {
        z[f] = normals[kernels::draw_offset(path, static_cast<std::size_t>(step) * F + f,
                                            static_cast<std::size_t>(steps) * F)];
      }
      simulated.advance(step, z);
    }
    simulated.finish();
    const auto observed_at = [&](int o) { return observed[o]; };
    double portfolio = 0.0;
    for (int j = 0; j < n; ++j) {
      double v[models::kMaxScenarios];
      for (int sc = 0; sc < S; ++sc) {
        v[sc] = models::discounted_payoff(group.instruments[static_cast<std::size_t>(j * S + sc)],
                                          observed_at);
      }
      const auto& base = group.instruments[static_cast<std::size_t>(j * S)];
      portfolio += v[0] * base.quantity;
      double* o = out + static_cast<std::size_t>(j) * K;
      o[0] = v[0];
      if (cv)
        o[c_at] = models::discounted_control(base, observed_at);
      for (int k = 0; k < G; ++k) {
        double e = 0.0;
        if (k == group.delta_greek() && base.pathwise_delta != 0.0) {
          e = models::pathwise_delta(base, observed_at);
        } else {
          for (int sc = 0; sc < S; ++sc)
            e += group.greek_weights[static_cast<std::size_t>(k * S + sc)] * v[sc];
        }
        o[g_at + 2 * k] = e;
      }
    }
    out[static_cast<std::size_t>(n) * K] = portfolio;
  }
  // The first value of each (value, square) pair: pair means, then the squares and products.
  std::vector<int> firsts;
  for (int j = 0; j < n; ++j) {
    firsts.push_back(j * K);
    if (cv)
      firsts.push_back(j * K + c_at);
    for (int k = 0; k < G; ++k)
      firsts.push_back(j * K + g_at + 2 * k);
  }
  firsts.push_back(n * K);
  for (int t = 0; t < block_size; ++t) {
    double* out = lane_values.data() + static_cast<std::size_t>(t) * values;
    if (group.antithetic) {
      const double* partner = out + values;
      for (int v : firsts)
        out[v] = t % 2 ? 0.0 : (out[v] + partner[v]) * 0.5;
    }
  }
  for (int t = 0; t < block_size; ++t) {
    double* out = lane_values.data() + static_cast<std::size_t>(t) * values;
    for (int j = 0; j < n; ++j) {
      double* o = out + static_cast<std::size_t>(j) * K;
      o[1] = o[0] * o[0];
      if (cv) {
        o[c_at + 1] = o[c_at] * o[c_at];
        o[c_at + 2] = o[0] * o[c_at];
      }
      for (int k = 0; k < G; ++k)
        o[g_at + 2 * k + 1] = o[g_at + 2 * k] * o[g_at + 2 * k];
    }
    out[static_cast<std::size_t>(n) * K + 1] =
        out[static_cast<std::size_t>(n) * K] * out[static_cast<std::size_t>(n) * K];
  }
  const int warps = block_size / kernels::kWarpSize;
  double lanes[kernels::kWarpSize];
  for (int v = 0; v < values; ++v) {
    double s = 0.0;
    for (int w = 0; w < warps; ++w) {
      for (int l = 0; l < kernels::kWarpSize; ++l) {
        lanes[l] = lane_values[static_cast<std::size_t>(w * kernels::kWarpSize + l) * values + v];
      }
      s += kernels::warp_tree_sum(lanes);
    }
    partials[v] = s;
  }
}

/// One launch's worth of one group (a chunk, or the group inside a draw batch): the paths'
/// blocks on the worker threads, then tiles and totals in the kernel's order, carried on
/// outcome.totals.
template <class Model, class Real>
void simulate_chunk(const GroupPlan& group, const Real* normals, std::size_t count,
                    const ExecutionSettings& settings, GroupOutcome& outcome) {
  const std::vector<Real> step_data = interleaved_step_series<Real>(group);
  const auto params = Model::make_params(step_data.data(), group.model_constants.data());
  const models::PathSchedule schedule{group.observation_runs.data(), group.spill_ranges.data(),
                                      group.spill_events.data(), group.observations.data(),
                                      static_cast<int>(group.observations.size())};
  const int values = group.reduced_values();
  const int block_size = settings.block_size;
  const std::size_t blocks = (count + block_size - 1) / block_size;
  std::vector<double> partials(blocks * static_cast<std::size_t>(values));
  std::atomic<std::size_t> next_block{0};
  auto worker = [&] {
    std::vector<double> lane_values;
    for (std::size_t b = next_block++; b < blocks; b = next_block++) {
      simulate_block<Model, Real>(params, schedule, group, normals,
                                  b * static_cast<std::size_t>(block_size), count, block_size,
                                  lane_values, partials.data() + b * values);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, settings.cpu_threads); ++t)
    pool.emplace_back(worker);
  worker();
  for (auto& t : pool)
    t.join();

  // Tiles in block order, then the totals carried across chunks (the kernel's last blocks).
  if (outcome.totals.empty())
    outcome.totals.assign(static_cast<std::size_t>(values), 0.0);
  const std::size_t tiles = kernels::tiles_for_blocks(blocks);
  for (int v = 0; v < values; ++v) {
    double total = outcome.totals[static_cast<std::size_t>(v)];
    for (std::size_t tile = 0; tile < tiles; ++tile) {
      const std::size_t b0 = tile * kernels::kTileBlocks;
      const std::size_t b1 = std::min(b0 + kernels::kTileBlocks, blocks);
      double s = 0.0;
      for (std::size_t b = b0; b < b1; ++b)
        s += partials[b * values + v];
      total += s;
    }
    outcome.totals[static_cast<std::size_t>(v)] = total;
  }
  outcome.path_steps += static_cast<std::uint64_t>(count) * group.steps();
  outcome.bytes_loaded += static_cast<double>(count) * group.rows() * sizeof(Real);
  outcome.chunks += 1;
}

template <class Real>
std::vector<GroupOutcome> run_plan(const SimulationPlan& plan, const ExecutionSettings& settings,
                                   const ProgressFn& progress, PlanStats& stats) {
  const bool quasi =
      settings.rng == config::RngType::sobol || settings.rng == config::RngType::scrambled_sobol;
  std::optional<NormalSource> pseudo;
  if (!quasi)
    pseudo.emplace(settings.rng, settings.seed, NormalSource::Memory::host);
  DrawTransforms transforms(plan, settings.antithetic, settings.brownian_bridge);
  std::vector<GroupOutcome> outcomes(plan.groups.size());
  for (auto& o : outcomes)
    o.paths = settings.paths;
  const auto units =
      plan_draw_units(plan, settings.rng, settings.paths, sizeof(Real), settings.draw_batch_bytes);
  std::vector<Real> normals;
  for (std::size_t u = 0; u < units.size(); ++u) {
    const DrawUnit& unit = units[u];
    const GroupPlan& first = plan.groups[static_cast<std::size_t>(unit.groups.front())];
    dispatch_model<Real>(first, [&](auto model_tag) {
      using Model = typename decltype(model_tag)::type;
      if (unit.batched) {
        normals.resize(unit.values);
        auto start = Clock::now();
        pseudo->generate(normals.data(), unit.values);
        ++stats.generation_calls;
        transforms.apply_host(normals.data(), unit.values, unit.groups, unit.offsets,
                              kernels::draw_tiles_for(settings.paths));
        ++stats.kernel_launches;
        const double generation = milliseconds_since(start);
        for (std::size_t m = 0; m < unit.groups.size(); ++m) {
          const auto g = static_cast<std::size_t>(unit.groups[m]);
          const GroupPlan& group = plan.groups[g];
          start = Clock::now();
          simulate_chunk<Model, Real>(group, normals.data() + unit.offsets[m], settings.paths,
                                      settings, outcomes[g]);
          outcomes[g].kernel_ms += milliseconds_since(start);
          outcomes[g].rng_ms += generation *
                                static_cast<double>(group_draw_values(group, settings.paths)) /
                                static_cast<double>(unit.values);
        }
        return;
      }
      const auto g = static_cast<std::size_t>(unit.groups.front());
      const GroupPlan& group = first;
      const int values = group.reduced_values();
      const ChunkPlan chunking = plan_chunks(settings.paths, group.rows(), sizeof(Real), values,
                                             settings.block_size, settings.memory_cap);
      PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
      std::optional<NormalSource> own;
      NormalSource* source = pseudo ? &*pseudo : nullptr;
      if (quasi) {
        own.emplace(settings.rng, settings.seed, NormalSource::Memory::host, group.rows(),
                    settings.replicate);
        source = &*own;
      }
      for (std::uint64_t chunk = 0; chunk < chunking.chunks; ++chunk) {
        const std::uint64_t first_path = chunk * chunking.chunk_paths;
        const std::size_t count =
            static_cast<std::size_t>(std::min(chunking.chunk_paths, settings.paths - first_path));
        const std::uint64_t tiles = kernels::draw_tiles_for(count);
        normals.resize(tiles * static_cast<std::size_t>(group.rows()) * kernels::kDrawTilePaths);
        auto start = Clock::now();
        source->next_tiles(normals.data(), tiles, group.rows());
        stats.generation_calls += tiles;
        transforms.apply_host(normals.data(), normals.size(), {static_cast<int>(g)}, {0}, tiles);
        ++stats.kernel_launches;
        outcomes[g].rng_ms += milliseconds_since(start);
        start = Clock::now();
        simulate_chunk<Model, Real>(group, normals.data(), count, settings, outcomes[g]);
        outcomes[g].kernel_ms += milliseconds_since(start);
      }
    });
    ++stats.draw_units;
    if (progress) {
      progress(Progress{unit.groups.back(), static_cast<int>(plan.groups.size()), u + 1,
                        units.size(), first.model_name});
    }
  }
  return outcomes;
}

} // namespace

std::vector<GroupOutcome> run_plan_on_cpu(const SimulationPlan& plan,
                                          const ExecutionSettings& settings,
                                          const ProgressFn& progress, PlanStats* stats) {
  PlanStats local;
  auto outcomes = dispatch_precision(settings.precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    return run_plan<Real>(plan, settings, progress, local);
  });
  if (stats != nullptr)
    *stats = local;
  return outcomes;
}

} // namespace pfmc::engine
