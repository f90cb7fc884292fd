// Google Benchmark suite of the path kernel, timed with CUDA events (manual time): draws are
// generated once outside the timing, a warm-up launch precedes each benchmark, draws smaller
// than 4× L2 are rotated. Counters: path-steps/s, bytes of draws read per second, and the
// fraction of the device copy bandwidth measured at start-up. Without a GPU it prints why
// and exits 0, or, given --books, times the books' stages on the CPU backend.
//
//   pfmc_bench [--workloads=latency_bound,bandwidth_bound] [--block-sizes=128,512]
//              [--precisions=float,double] [--path-scales=0.25,1] [--maths=accurate,fast]
//              [--end-to-end]
//              [--book=FILE] [--books=FILE,...] [--market] [google-benchmark flags]
// --market: the market-data workloads alone (Heston calibration, a local-vol grid from quotes),
// on one CPU core, with or without a GPU.
//
// Axes: backend, prefetch distance, padding (always); block size, precision, paths (the flags
// above make variants of each workload); model (Black-Scholes, the only model of the reference
// workloads). --end-to-end adds the throughput benchmarks: the `portfolio` workload from config
// to results in a warm process, and, with --book=FILE, a book such as NVIDIA's MonteCarloMultiGPU
// sample's (8,192 single-underlying European calls, 262,144 paths each, one step, float:
// scripts/make-mc-sample-book.py writes it) from config to results and for generation + kernels.
// --books=FILE,... times each book's stages apart — books/NAME/load (read and validate the YAML
// and its CSV files), books/NAME/plan (planning and the plan's free; plan/threads:N with N
// planning threads, 1 to this host's in powers of 2), books/NAME/priced (the engine on the
// loaded config; without a GPU, the CPU backend: a book of few paths then measures the host's
// per-group work) — and books/NAME/end_to_end (all of them): `scripts/make-portfolio.py
// --instruments N --csv` writes books of 1k, 10k and 100k instruments.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/parallel_ranges.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/execution.hpp"
#include "engine/market/dupire.hpp"
#include "engine/market/heston_calibration.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "engine/tune/kernel_bench.hpp"
#include "kernels/catalog.hpp"

namespace {

using namespace pfmc;

struct Workload {
  std::string name;
  config::RunConfig config;
  engine::SimulationPlan plan;
  std::unique_ptr<engine::KernelBench> bench;
};

double g_copy_gbps = 0.0;

void run_launches(benchmark::State& state, Workload* w, const std::string& backend, int distance,
                  config::Padding padding, bool reduce) {
  w->bench->time_launch_ms(backend, distance, padding, reduce); // warm-up
  double seconds = 0.0;
  for (auto _ : state) {
    const double ms = w->bench->time_launch_ms(backend, distance, padding, reduce);
    state.SetIterationTime(ms * 1e-3);
    seconds += ms * 1e-3;
  }
  const double launches = static_cast<double>(state.iterations());
  const double bytes_per_second = w->bench->bytes_per_launch() * launches / seconds;
  state.counters["path_steps_per_s"] = w->bench->path_steps_per_launch() * launches / seconds;
  state.counters["GB_per_s"] = bytes_per_second * 1e-9;
  state.counters["copy_bw_fraction"] = bytes_per_second * 1e-9 / g_copy_gbps;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty())
      items.push_back(item);
  }
  return items;
}

/// Registers every backend × distance × padding of one workload, plus its read ceilings and
/// the kernel without its reduction.
void register_workload(Workload* w, const engine::DeviceInfo& device) {
  const std::string& name = w->name;
  for (const auto& backend : kernels::backend_catalog()) {
    const std::vector<int> distances =
        backend.uses_prefetch_distance ? kernels::prefetch_distances() : std::vector<int>{0};
    // Rings in shared memory: with padding (auto), without, and slot-major.
    std::vector<std::pair<std::string, config::Padding>> paddings{{"", config::Padding{}}};
    if (backend.uses_padding) {
      paddings = {{"/pad_auto", config::Padding{}},
                  {"/pad_none", config::Padding{config::Padding::Mode::none, 0}},
                  {"/slot_major", config::Padding{config::Padding::Mode::slot_major, 0}}};
    }
    const std::string why_not =
        kernels::why_backend_cannot_run(backend, device.compute_capability, device.name);
    if (!why_not.empty()) {
      std::printf("skipping %s: %s\n", backend.name, why_not.c_str());
      continue;
    }
    for (int distance : distances) {
      for (const auto& [suffix, padding] : paddings) {
        const std::string label =
            name + "/" + backend.name +
            (backend.uses_prefetch_distance ? "/d" + std::to_string(distance) : "") + suffix;
        const std::string backend_name = backend.name;
        const config::Padding pad = padding;
        benchmark::RegisterBenchmark(
            label.c_str(),
            [=](benchmark::State& s) { run_launches(s, w, backend_name, distance, pad, true); })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  // Read ceilings of this workload's draws: in the path kernel's layout, and streamed.
  const auto ceiling = [w](benchmark::State& s, bool layout) {
    double seconds = 0.0;
    layout ? w->bench->time_draws_read_ms() : w->bench->time_stream_read_ms(); // warm-up
    for (auto _ : s) {
      const double ms = layout ? w->bench->time_draws_read_ms() : w->bench->time_stream_read_ms();
      s.SetIterationTime(ms * 1e-3);
      seconds += ms * 1e-3;
    }
    const double gbps =
        w->bench->bytes_per_launch() * static_cast<double>(s.iterations()) / seconds * 1e-9;
    s.counters["GB_per_s"] = gbps;
    s.counters["copy_bw_fraction"] = gbps / g_copy_gbps;
    s.counters["path_steps_per_s"] = 0.0;
  };
  benchmark::RegisterBenchmark((name + "/ceiling/draws_read").c_str(),
                               [=](benchmark::State& s) { ceiling(s, true); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((name + "/ceiling/stream_read").c_str(),
                               [=](benchmark::State& s) { ceiling(s, false); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  // The same kernel without its payoffs and last-block reduction: what the reduction costs.
  benchmark::RegisterBenchmark(
      (name + "/none/no_reduction").c_str(),
      [=](benchmark::State& s) { run_launches(s, w, "none", 0, config::Padding{}, false); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

/// Prices `config` once per iteration (after one untimed warm-up run that also fills the tuning
/// cache): wall time from config to results; `load` re-reads the YAML file each time.
void run_end_to_end(benchmark::State& state, const config::RunConfig& config, bool load) {
  (void)engine::price(config);
  double seconds = 0.0;
  engine::RunResult last;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    if (load) {
      config::RunConfig loaded = config::load_run_config(config.file);
      loaded.engine.device = config.engine.device;
      last = engine::price(loaded);
    } else {
      last = engine::price(config);
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(s);
    seconds += s;
  }
  const double runs = static_cast<double>(state.iterations());
  const double instruments = static_cast<double>(last.instruments.size());
  state.counters["instruments_per_s"] = instruments * runs / seconds;
  // Generation and kernels as the device timed them (summed, not overlapped).
  state.counters["instruments_per_s_device"] =
      instruments / ((last.run.kernel_ms + last.run.rng_ms) * 1e-3);
  state.counters["kernel_ms"] = last.run.kernel_ms;
  state.counters["rng_ms"] = last.run.rng_ms;
  state.counters["kernel_load_ms"] = last.run.plan_stats.kernel_load_ms;
  state.counters["groups"] = last.run.groups;
  state.counters["kernel_launches"] = static_cast<double>(last.run.plan_stats.kernel_launches);
  state.counters["generation_calls"] = static_cast<double>(last.run.plan_stats.generation_calls);
  state.counters["host_syncs"] = static_cast<double>(last.run.plan_stats.host_syncs);
  // Where the last run's host time went (engine/pricer.cpp's stages): planning, choosing
  // backends, the run itself (staging, launches, waiting for the kernels), the results.
  state.counters["plan_ms"] = last.run.plan_ms;
  state.counters["backends_ms"] = last.run.backends_ms;
  state.counters["results_ms"] = last.run.results_ms;
  state.counters["run_ms"] =
      last.run.total_ms - last.run.plan_ms - last.run.backends_ms - last.run.results_ms;
}

/// One stage of a book per iteration, wall time; counter `instruments_per_s`.
template <class Stage>
void run_book_stage(benchmark::State& state, const config::RunConfig& config, Stage stage) {
  stage(); // warm-up (the tuning cache, the kernels' modules, the page cache)
  double seconds = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    stage();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(s);
    seconds += s;
  }
  state.counters["instruments"] = static_cast<double>(config.instruments.size());
  state.counters["instruments_per_s"] = static_cast<double>(config.instruments.size()) *
                                        static_cast<double>(state.iterations()) / seconds;
}

/// `on_cpu`: no GPU here; the book is priced by the CPU backend (a book of few paths measures
/// the host's per-group work: planning, outcomes, results).
void register_book(const std::string& file, bool on_cpu) {
  static std::vector<std::unique_ptr<config::RunConfig>> books; // alive while benchmarks run
  books.push_back(std::make_unique<config::RunConfig>(config::load_run_config(file)));
  config::RunConfig& book = *books.back();
  book.engine.device = on_cpu ? config::DeviceChoice::cpu : config::DeviceChoice::gpu;
  std::string name = file.substr(file.find_last_of('/') + 1);
  name = "books/" + name.substr(0, name.find('.')) + "/";
  const auto add = [&](const std::string& stage, auto fn) {
    benchmark::RegisterBenchmark((name + stage).c_str(),
                                 [&book, fn](benchmark::State& s) { run_book_stage(s, book, fn); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  };
  add("load", [&book] { benchmark::DoNotOptimize(config::load_run_config(book.file)); });
  add("plan", [&book] { benchmark::DoNotOptimize(engine::make_plan(book)); });
  // The planner's threads (its default above takes this host's, one per 512 instruments).
  for (unsigned threads = 1; threads <= base::hardware_threads(); threads *= 2) {
    add("plan/threads:" + std::to_string(threads),
        [&book, threads] { benchmark::DoNotOptimize(engine::make_plan(book, threads)); });
  }
  add("priced", [&book] { benchmark::DoNotOptimize(engine::price(book)); });
  add("end_to_end", [&book] {
    config::RunConfig loaded = config::load_run_config(book.file);
    loaded.engine.device = book.engine.device;
    benchmark::DoNotOptimize(engine::price(loaded));
  });
}

/// `books`: comma-separated YAML files.
void register_books(const std::string& books, bool on_cpu) {
  for (std::size_t at = 0; at < books.size();) {
    const std::size_t comma = std::min(books.find(',', at), books.size());
    register_book(books.substr(at, comma - at), on_cpu);
    at = comma + 1;
  }
}

} // namespace

/// `--market`: the market-data workloads of issue 62 on one CPU core (no GPU needed): Heston
/// calibrated to 100 quotes, and a local-vol grid (SSVI fit, then Dupire) from 20 expiries x 30
/// strikes. The quotes: an index-like SSVI surface (rho -0.7, eta 1, gamma 0.4, at-the-money
/// vols rising from 16.5% to 19.5%), strikes within 3 standard deviations of the forward.
std::vector<market::VolQuote> ssvi_quotes(const market::QuoteMarket& m, int expiries, int strikes) {
  std::vector<market::VolQuote> quotes;
  for (int i = 0; i < expiries; ++i) {
    const double T = 0.05 * std::pow(2.0 / 0.05, i / double(std::max(1, expiries - 1)));
    const double atm = 0.165 + 0.03 * i / std::max(1, expiries - 1);
    const double theta = atm * atm * T, phi = 1.0 / std::pow(theta, 0.4), rho = -0.7;
    const double forward = market::forward_of(m, T);
    for (int j = 0; j < strikes; ++j) {
      const double k = (-3.0 + 6.0 * j / (strikes - 1)) * atm * std::sqrt(T);
      const double w =
          theta / 2 *
          (1 + rho * phi * k + std::sqrt((phi * k + rho) * (phi * k + rho) + 1 - rho * rho));
      quotes.push_back({T, forward * std::exp(k), std::sqrt(w / T)});
    }
  }
  return quotes;
}

void register_market() {
  static market::QuoteMarket m;
  m.spot = 100.0;
  m.dividend_yield = 0.015;
  m.zero_rates.values = {0.03};
  static const std::vector<market::VolQuote> hundred = ssvi_quotes(m, 10, 10);
  benchmark::RegisterBenchmark("market/heston_calibration/100_quotes", [](benchmark::State& s) {
    for (auto _ : s) {
      const auto fit = market::calibrate_heston(hundred, m);
      benchmark::DoNotOptimize(fit.rmse_vol_points);
      s.counters["rmse_vol_points"] = fit.rmse_vol_points;
    }
  })->Unit(benchmark::kMillisecond);
  static config::ImpliedVols grid_quotes;
  grid_quotes.underlying = "SPX";
  for (const auto& q : ssvi_quotes(m, 20, 30))
    grid_quotes.quotes.push_back({q.expiry, q.strike, q.vol, {}});
  benchmark::RegisterBenchmark("market/local_vol_grid/20x30_quotes", [](benchmark::State& s) {
    config::Underlying spx{"SPX", m.spot, m.dividend_yield, {}};
    for (auto _ : s) {
      const auto built = market::implied_local_vol(grid_quotes, spx, m.zero_rates);
      benchmark::DoNotOptimize(built.grid.vols.data());
      s.counters["rmse_vol_points"] = built.fit.rmse_vol_points;
    }
  })->Unit(benchmark::kMillisecond);
}

int main(int argc, char** argv) {
  std::string workloads = "latency_bound,bandwidth_bound";
  std::string block_sizes; // empty: each workload's own
  std::string precisions;  // empty: each workload's own
  std::string path_scales; // empty: 1
  std::string maths;       // empty: each workload's own math profile (simulation.math)
  bool end_to_end = false;
  bool market_data = false;
  std::string book;
  std::string books;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--workloads=", 12) == 0) {
      workloads = argv[i] + 12;
    } else if (std::strncmp(argv[i], "--block-sizes=", 14) == 0) {
      block_sizes = argv[i] + 14;
    } else if (std::strncmp(argv[i], "--precisions=", 13) == 0) {
      precisions = argv[i] + 13;
    } else if (std::strncmp(argv[i], "--path-scales=", 14) == 0) {
      path_scales = argv[i] + 14;
    } else if (std::strncmp(argv[i], "--maths=", 8) == 0) {
      maths = argv[i] + 8;
    } else if (std::strcmp(argv[i], "--end-to-end") == 0) {
      end_to_end = true;
    } else if (std::strncmp(argv[i], "--book=", 7) == 0) {
      book = argv[i] + 7;
    } else if (std::strncmp(argv[i], "--books=", 8) == 0) {
      books = argv[i] + 8;
    } else if (std::strcmp(argv[i], "--market") == 0) {
      market_data = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());

  if (market_data) { // CPU work alone: runs with or without a GPU
    register_market();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  const engine::DeviceInfo device = engine::query_device();
  if (!device.available) {
    if (books.empty()) {
      std::printf("pfmc_bench: no GPU (%s): nothing to measure\n",
                  device.unavailable_reason.c_str());
      return 0;
    }
    std::printf("pfmc_bench: no GPU (%s): the books on the CPU backend\n",
                device.unavailable_reason.c_str());
  }
  if (!device.available) {
    register_books(books, true);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  g_copy_gbps = engine::measure_copy_bandwidth_gbps();
  std::printf("device: %s, %d SMs, L2 %zu MB; measured copy bandwidth %.0f GB/s (read + write)\n",
              device.name.c_str(), device.multiprocessors, device.l2_bytes >> 20, g_copy_gbps);

  std::vector<std::unique_ptr<Workload>> loaded;
  for (const auto& workload : split(workloads)) {
    const auto config = config::load_run_config(std::string(PFMC_SOURCE_DIR) + "/config/examples/" +
                                                workload + ".yaml");
    std::vector<int> sizes{config.engine.block_size};
    if (!block_sizes.empty()) {
      sizes.clear();
      for (const auto& b : split(block_sizes))
        sizes.push_back(std::stoi(b));
    }
    std::vector<std::string> precision_list{config::to_string(config.simulation.precision)};
    if (!precisions.empty())
      precision_list = split(precisions);
    std::vector<double> scales{1.0};
    if (!path_scales.empty()) {
      scales.clear();
      for (const auto& f : split(path_scales))
        scales.push_back(std::stod(f));
    }
    for (int block_size : sizes) {
      for (const auto& precision_name : precision_list) {
        const std::vector<std::string> math_list =
            maths.empty() ? std::vector<std::string>{config::to_string(config.simulation.math)}
                          : split(maths);
        for (std::size_t km = 0; km < scales.size() * math_list.size(); ++km) {
          const std::size_t k = km / math_list.size();
          const std::string& math_name = math_list[km % math_list.size()];
          const double scale = scales[k];
          const auto math = config::parse_math_profile(math_name);
          if (!math) {
            std::fprintf(stderr, "pfmc_bench: unknown math profile '%s'\n", math_name.c_str());
            return 2;
          }
          const auto precision = config::parse_precision(precision_name);
          if (!precision) {
            std::fprintf(stderr, "pfmc_bench: unknown precision '%s'\n", precision_name.c_str());
            return 2;
          }
          auto w = std::make_unique<Workload>();
          w->name = workload;
          if (block_size != config.engine.block_size)
            w->name += "@block" + std::to_string(block_size);
          if (*precision != config.simulation.precision)
            w->name += "@" + precision_name;
          if (scale != 1.0)
            w->name += "@paths" + split(path_scales)[k];
          if (*math != config.simulation.math)
            w->name += "@" + math_name;
          w->config = config;
          w->config.simulation.precision = *precision;
          w->config.simulation.math = *math;
          w->config.simulation.paths = static_cast<std::uint64_t>(
              std::max(1.0, std::round(scale * static_cast<double>(config.simulation.paths))));
          w->plan = engine::make_plan(w->config);
          engine::ExecutionSettings settings;
          settings.precision = w->config.simulation.precision;
          settings.rng = w->config.simulation.rng;
          settings.fast_math = w->config.simulation.math == config::MathProfile::fast;
          settings.seed = w->config.simulation.seed;
          settings.paths = w->config.simulation.paths;
          settings.block_size = block_size;
          settings.memory_cap = static_cast<std::uint64_t>(engine::kDefaultMemoryFraction *
                                                           static_cast<double>(device.free_memory));
          w->bench = std::make_unique<engine::KernelBench>(w->plan.groups.front(), settings);
          std::printf("%s: %llu paths x %d steps, block %d, %s, %.2f GB of draws per launch, %d "
                      "rotated cop%s\n",
                      w->name.c_str(), static_cast<unsigned long long>(settings.paths),
                      w->plan.groups.front().steps(), block_size, precision_name.c_str(),
                      w->bench->bytes_per_launch() * 1e-9, w->bench->rotated_copies(),
                      w->bench->rotated_copies() == 1 ? "y" : "ies");
          register_workload(w.get(), device);
          loaded.push_back(std::move(w));
        }
      }
    }
  }
  static config::RunConfig portfolio, book_config;
  if (end_to_end) {
    portfolio =
        config::load_run_config(std::string(PFMC_SOURCE_DIR) + "/config/examples/portfolio.yaml");
    portfolio.engine.device = config::DeviceChoice::gpu;
    benchmark::RegisterBenchmark("end_to_end/portfolio",
                                 [](benchmark::State& s) { run_end_to_end(s, portfolio, true); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    if (!book.empty()) {
      book_config = config::load_run_config(book);
      book_config.engine.device = config::DeviceChoice::gpu;
      benchmark::RegisterBenchmark(
          "end_to_end/book", [](benchmark::State& s) { run_end_to_end(s, book_config, true); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      // The same run without reading its YAML: what the pricing itself takes.
      benchmark::RegisterBenchmark(
          "end_to_end/book_priced",
          [](benchmark::State& s) { run_end_to_end(s, book_config, false); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  register_books(books, false);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
