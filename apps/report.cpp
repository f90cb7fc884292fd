#include "apps/report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include "kernels/catalog.hpp"

namespace pfmc::apps {

namespace {

nlohmann::json number_or_null(bool present, double x) {
  return present ? nlohmann::json(x) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json instruments_json(const engine::RunResult& r) {
  nlohmann::json instruments = nlohmann::json::array();
  for (const auto& in : r.instruments) {
    nlohmann::json item = {{"id", in.id},
                           {"type", in.type},
                           {"price", in.price},
                           {"std_error", number_or_null(in.has_std_error, in.std_error)},
                           {"ci95", in.has_std_error
                                        ? nlohmann::json::array({in.ci95_low, in.ci95_high})
                                        : nlohmann::json(nullptr)},
                           {"paths", in.paths}};
    if (in.has_control)
      item["control_variate"] = {{"beta", in.control_beta}};
    if (!in.exercise.empty()) {
      item["exercise"] = {{"style", in.exercise},
                          {"dates", in.exercise_dates},
                          {"regression_paths", in.regression_paths},
                          {"method", "longstaff_schwartz"}};
    }
    if (!in.greeks.empty()) {
      // A basket's delta, gamma and vega are maps by underlying: {"delta": {"A": .., "B": ..}}.
      nlohmann::json greeks = nlohmann::json::object();
      nlohmann::json errors = nlohmann::json::object();
      nlohmann::json methods = nlohmann::json::object();
      for (const auto& g : in.greeks) {
        const char* name = config::to_string(g.greek);
        const nlohmann::json error = number_or_null(g.has_std_error, g.std_error);
        if (g.underlying.empty()) {
          greeks[name] = g.value;
          errors[name] = error;
        } else {
          greeks[name][g.underlying] = g.value;
          errors[name][g.underlying] = error;
        }
        methods[name] = g.pathwise ? "pathwise" : "bump";
      }
      item["greeks"] = greeks;
      item["greeks_std_error"] = errors;
      item["greeks_method"] = methods;
    }
    instruments.push_back(item);
  }
  return instruments;
}

nlohmann::json result_json(const engine::RunResult& r, bool with_instruments) {
  nlohmann::json j;
  j["instruments"] = with_instruments ? instruments_json(r) : nlohmann::json::array();
  if (r.portfolio.present) {
    j["portfolio"] = {
        {"value", r.portfolio.value},
        {"std_error", number_or_null(r.portfolio.has_std_error, r.portfolio.std_error)}};
  } else {
    j["portfolio"] = nullptr;
  }
  const auto& run = r.run;
  j["run"] = {{"device", run.device},
              {"backend", run.backend},
              {"prefetch_distance", run.prefetch_distance},
              {"padding", run.padding},
              {"precision", run.precision},
              {"rng", run.rng},
              {"math", run.math},
              {"greeks_method", run.greeks_method.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(run.greeks_method)},
              {"seed", run.seed},
              {"antithetic", run.antithetic},
              {"control_variate", run.control_variate},
              {"brownian_bridge", run.brownian_bridge},
              {"replicates", run.replicates},
              {"scenarios", run.scenarios},
              {"paths", run.paths},
              {"steps", run.steps},
              {"groups", run.groups},
              {"chunks", run.chunks},
              {"block_size", run.block_size},
              {"terminal_kernels", run.terminal_kernels},
              {"terminal_blocks_per_cta", run.terminal_blocks_per_cta},
              {"compile_at_runtime", run.compile_at_runtime},
              {"unit_groups", run.unit_groups},
              {"kernel_ms", run.kernel_ms},
              {"compile_ms", run.compile_ms},
              {"kernels_compiled", run.kernels_compiled},
              {"kernels_from_cache", run.kernels_from_cache},
              {"cache_load_ms", run.cache_load_ms},
              {"rng_ms", run.rng_ms},
              {"regression_ms", run.regression_ms},
              {"kernel_load_ms", run.plan_stats.kernel_load_ms},
              {"device_ms", run.device_ms},
              {"config_ms", run.config_ms},
              {"plan_ms", run.plan_ms},
              {"backends_ms", run.backends_ms},
              {"results_ms", run.results_ms},
              {"total_ms", run.total_ms},
              {"path_steps_per_second", run.path_steps_per_second},
              {"bytes_loaded", run.bytes_loaded},
              {"achieved_gbps", run.achieved_gbps},
              {"copy_bandwidth_gbps", run.copy_bandwidth_gbps},
              {"copy_bandwidth_fraction", run.copy_bandwidth_fraction},
              {"notices", run.notices}};
  if (!run.on_gpu)
    j["run"]["threads"] = run.threads;
  j["run"]["draw_units"] = run.plan_stats.draw_units;
  j["run"]["kernel_launches"] = run.plan_stats.kernel_launches;
  j["run"]["generation_calls"] = run.plan_stats.generation_calls;
  j["run"]["host_syncs"] = run.plan_stats.host_syncs;
  if (!run.workers.empty()) { // a split run: every worker, in split order
    j["run"]["processes"] = run.processes;
    j["run"]["gather_ms"] = run.gather_ms;
    j["run"]["gather_bytes"] = run.gather_bytes;
    j["run"]["split_wall_ms"] = run.split_wall_ms;
    for (const auto& w : run.workers) {
      j["run"]["workers"].push_back(
          {{"rank", w.rank},
           {"device", w.device >= 0 ? nlohmann::json(w.device) : nlohmann::json("cpu")},
           {"name", w.name},
           {"backend", w.backend},
           {"paths", w.paths},
           {"share", run.path_steps > 0.0 ? w.path_steps / run.path_steps : 0.0},
           {"kernel_ms", w.kernel_ms},
           {"rng_ms", w.rng_ms},
           {"wall_ms", w.wall_ms},
           {"turn_wait_ms", w.turn_wait_ms}});
    }
  }
  for (const auto& g : run.group_backends) {
    j["run"]["group_backends"].push_back({{"model", g.model},
                                          {"backend", g.backend},
                                          {"prefetch_distance", g.prefetch_distance},
                                          {"padding", g.padding},
                                          {"source", g.source}});
  }
  return j;
}

nlohmann::json backends_json(const engine::DeviceInfo& device) {
  nlohmann::json j;
  j["device"] = device.available ? nlohmann::json(device.name) : nlohmann::json(nullptr);
  j["prefetch_distances"] = kernels::prefetch_distances();
  for (const auto& b : kernels::backend_catalog()) {
    const bool runs_here =
        device.available &&
        kernels::why_backend_cannot_run(b, device.compute_capability, device.name).empty();
    j["backends"].push_back({{"name", b.name},
                             {"description", b.description},
                             {"requires", b.min_compute_capability > 0
                                              ? "sm_" + std::to_string(b.min_compute_capability)
                                              : std::string("any CUDA GPU")},
                             {"uses_prefetch_distance", b.uses_prefetch_distance},
                             {"uses_padding", b.uses_padding},
                             {"bench_only", b.bench_only},
                             {"runs_here", runs_here}});
  }
  return j;
}

std::string greek_column(const engine::GreekResult& g) {
  const std::string name = config::to_string(g.greek);
  return g.underlying.empty() ? name : name + "[" + g.underlying + "]";
}

std::vector<std::string> run_greeks(const engine::RunResult& r) {
  std::vector<std::string> out;
  for (const auto& in : r.instruments) {
    for (const auto& g : in.greeks) {
      const std::string column = greek_column(g);
      if (std::find(out.begin(), out.end(), column) == out.end())
        out.push_back(column);
    }
  }
  return out;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string quoted = "\"";
  for (char c : s)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

/// The instrument's Greek in `column`, or null.
const engine::GreekResult* greek_in(const engine::InstrumentResult& in, const std::string& column) {
  for (const auto& g : in.greeks) {
    if (greek_column(g) == column)
      return &g;
  }
  return nullptr;
}

std::string render_csv(const engine::RunResult& r) {
  std::ostringstream out;
  const auto greeks = run_greeks(r);
  out << "id,type,price,std_error,ci95_low,ci95_high,paths";
  for (const auto& g : greeks)
    out << ',' << csv_field(g) << ',' << csv_field(g + "_std_error");
  out << '\n';
  const auto num = [](double x) { return format("%.10g", x); };
  for (const auto& in : r.instruments) {
    out << csv_field(in.id) << ',' << in.type << ',' << num(in.price) << ','
        << (in.has_std_error ? num(in.std_error) : "") << ','
        << (in.has_std_error ? num(in.ci95_low) : "") << ','
        << (in.has_std_error ? num(in.ci95_high) : "") << ',' << in.paths;
    for (const auto& column : greeks) {
      const engine::GreekResult* g = greek_in(in, column);
      out << ',' << (g ? num(g->value) : "") << ','
          << (g && g->has_std_error ? num(g->std_error) : "");
    }
    out << '\n';
  }
  if (r.portfolio.present) {
    out << ",portfolio," << num(r.portfolio.value) << ','
        << (r.portfolio.has_std_error ? num(r.portfolio.std_error) : "") << ",,," << r.run.paths
        << std::string(2 * greeks.size(), ',') << '\n';
  }
  return out.str();
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}
std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

/// A split run's workers (several devices or MPI ranks), a line each, under the run line.
void write_workers(std::ostringstream& out, const engine::RunInfo& run) {
  if (run.workers.empty())
    return;
  out << "     split over " << run.workers.size() << " worker"
      << (run.workers.size() == 1 ? "" : "s");
  if (run.processes > 1)
    out << " in " << run.processes << " MPI ranks (gather and merge "
        << format("%.3f", run.gather_ms) << " ms)";
  out << ", " << format("%.1f", run.split_wall_ms) << " ms side by side:\n";
  for (const auto& w : run.workers) {
    out << "       rank " << w.rank << " "
        << (w.device >= 0 ? "GPU " + std::to_string(w.device) + " " + w.name : w.name)
        << (w.device >= 0 && !w.backend.empty() ? " (" + w.backend + ")" : "") << ": "
        << format("%.1f", run.path_steps > 0.0 ? 100.0 * w.path_steps / run.path_steps : 0.0)
        << "% of the path-steps, kernel " << format("%.3f", w.kernel_ms) << " ms, wall "
        << format("%.1f", w.wall_ms) << " ms";
    if (w.turn_wait_ms > 0.0)
      out << " after " << format("%.1f", w.turn_wait_ms) << " ms waiting for its turn on the GPU";
    out << '\n';
  }
}

std::string render_table(const engine::RunResult& r, const std::string& config_file) {
  std::ostringstream out;
  std::size_t id_width = 2;
  std::size_t type_width = 8;
  // An early-exercise instrument's type says how: "european (american)".
  const auto type_of = [](const engine::InstrumentResult& in) {
    return in.exercise.empty() ? in.type : in.type + " (" + in.exercise + ")";
  };
  for (const auto& in : r.instruments) {
    id_width = std::max(id_width, in.id.size());
    type_width = std::max(type_width, type_of(in).size());
  }
  id_width += 2;
  type_width += 2;
  out << "pfmc: " << config_file << "\n\n";
  out << pad("id", id_width) << pad("type", type_width) << pad_left("price", 14)
      << pad_left("std error", 12) << "   95% interval\n";
  for (const auto& in : r.instruments) {
    out << pad(in.id, id_width) << pad(type_of(in), type_width)
        << pad_left(format("%.6f", in.price), 14)
        << pad_left(in.has_std_error ? format("%.6f", in.std_error) : "n/a", 12) << "   ";
    if (in.has_std_error) {
      out << "[" << format("%.6f", in.ci95_low) << ", " << format("%.6f", in.ci95_high) << "]";
    } else {
      out << "n/a";
    }
    out << '\n';
  }
  const auto greeks = run_greeks(r);
  if (!greeks.empty()) {
    out << "\n" << pad("greeks", id_width);
    for (const auto& g : greeks)
      out << pad_left(g, std::max<std::size_t>(12, g.size() + 1)) << pad_left("± se", 10);
    out << '\n';
    for (const auto& in : r.instruments) {
      out << pad(in.id, id_width);
      for (const auto& column : greeks) {
        const std::size_t width = std::max<std::size_t>(12, column.size() + 1);
        const engine::GreekResult* g = greek_in(in, column);
        if (g == nullptr) {
          out << pad_left("", width) << pad_left("", 10);
          continue;
        }
        out << pad_left(format("%.5f", g->value), width)
            << pad_left(g->has_std_error ? format("%.5f", g->std_error) : "n/a", 10);
      }
      out << '\n';
    }
    out << "(delta, gamma per unit spot — a basket's delta[A] per unit of A's spot; vega per unit "
           "vol; rho per unit rate; theta per year of calendar time)\n";
  }
  if (r.portfolio.present) {
    out << "\nportfolio value " << format("%.6f", r.portfolio.value);
    if (r.portfolio.has_std_error) {
      out << "  std error " << format("%.6f", r.portfolio.std_error) << "  95% ["
          << format("%.6f", r.portfolio.value - 1.96 * r.portfolio.std_error) << ", "
          << format("%.6f", r.portfolio.value + 1.96 * r.portfolio.std_error) << "]";
    }
    out << '\n';
  }
  const auto& run = r.run;
  out << "\nrun: " << run.device << " | backend " << run.backend;
  if (run.prefetch_distance > 0)
    out << " (distance " << run.prefetch_distance << ")";
  out << " | " << run.precision << " | math " << run.math << " | " << run.rng << " seed "
      << run.seed;
  if (run.antithetic)
    out << ", antithetic";
  if (run.control_variate)
    out << ", control variates";
  if (run.brownian_bridge)
    out << ", Brownian bridge";
  if (!run.greeks_method.empty())
    out << ", Greeks " << run.greeks_method;
  if (run.replicates > 1)
    out << ", " << run.replicates << " replicates";
  out << " | " << group_thousands(run.paths) << " paths, " << run.groups << " group"
      << (run.groups == 1 ? "" : "s") << ", up to " << run.steps << " steps\n";
  out << "     kernel " << format("%.3f", run.kernel_ms) << " ms, draws "
      << format("%.3f", run.rng_ms) << " ms";
  if (run.regression_ms > 0.0)
    out << ", early-exercise regression " << format("%.3f", run.regression_ms) << " ms";
  if (run.on_gpu) {
    if (run.kernels_compiled > 0 || run.kernels_from_cache > 0) {
      out << ", kernels compiled on first use " << run.kernels_compiled << " ("
          << format("%.1f", run.compile_ms) << " ms), from the cache " << run.kernels_from_cache
          << " (" << format("%.1f", run.cache_load_ms) << " ms)";
    }
    out << " (kernel loading " << format("%.1f", run.plan_stats.kernel_load_ms) << " ms, device "
        << format("%.1f", run.device_ms) << " ms)";
  }
  out << ", total " << format("%.1f", run.total_ms) << " ms | "
      << format("%.3g", run.path_steps_per_second) << " path-steps/s";
  if (run.bytes_loaded > 0.0)
    out << " | " << format("%.1f", run.achieved_gbps) << " GB/s of draws";
  if (run.bytes_loaded > 0.0 && run.copy_bandwidth_gbps > 0.0) {
    out << " (" << format("%.1f", 100.0 * run.copy_bandwidth_fraction) << "% of the "
        << format("%.0f", run.copy_bandwidth_gbps) << " GB/s copy bandwidth)";
  }
  out << '\n';
  write_workers(out, run);
  for (const auto& notice : run.notices)
    out << "note: " << notice << '\n';
  return out.str();
}

} // namespace

std::string format(const char* fmt, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, x);
  return buffer;
}

std::string group_thousands(unsigned long long n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

std::string render(const engine::RunResult& result, Format format, const std::string& config_file) {
  switch (format) {
  case Format::json:
    return result_json(result).dump(2) + "\n";
  case Format::csv:
    return render_csv(result);
  case Format::table:
  default:
    return render_table(result, config_file);
  }
}

} // namespace pfmc::apps
