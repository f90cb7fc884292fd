#include "apps/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "apps/report.hpp"
#include "config/run_config.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::apps {

namespace {

/// The draws read per second by the kernel (0 for a backend that computes its draws).
double gbps_of(const engine::Measurement& m, double bytes) {
  const auto* info = kernels::find_backend(m.choice.backend);
  if (info != nullptr && !info->reads_draws)
    return 0.0;
  return bytes / (m.median_ms * 1e-3) * 1e-9;
}

/// The ideal's kernel time over the configuration's (0 without an ideal).
double ideal_fraction(const engine::TuneResult& r, const engine::Measurement& m) {
  return r.ideal && m.median_ms > 0 ? r.ideal->median_ms / m.median_ms : 0.0;
}

/// Kernel speedup over none against the prefetch distance, one row per backend (and padding, for
/// the shared-memory rings) in catalogue order: the prefetching post's two figures (padding none,
/// and padded) as a table. Empty when no backend with a distance was measured.
std::string distance_table(const GroupSweep& sweep) {
  const auto& r = sweep.result;
  const auto& catalog = kernels::backend_catalog();
  std::set<int> distances;
  // (catalogue position, padding) → label and speedup by distance
  std::map<std::pair<std::size_t, std::string>, std::pair<std::string, std::map<int, double>>> rows;
  for (const auto& m : r.all) {
    const kernels::BackendInfo* info = kernels::find_backend(m.choice.backend);
    if (info == nullptr || !info->uses_prefetch_distance)
      continue;
    const std::string padding = info->uses_padding ? config::to_string(m.choice.padding) : "";
    auto& row = rows[{static_cast<std::size_t>(info - catalog.data()), padding}];
    row.first = m.choice.backend + (padding.empty() ? "" : " (" + padding + ")");
    row.second[m.choice.prefetch_distance] = r.baseline.median_ms / m.median_ms;
    distances.insert(m.choice.prefetch_distance);
  }
  if (rows.empty())
    return {};
  std::ostringstream out;
  char cell[64];
  std::snprintf(cell, sizeof cell, "  %-32s", "backend");
  out << "  kernel speedup over none by prefetch distance:\n" << cell;
  for (int d : distances) {
    std::snprintf(cell, sizeof cell, " %6s", ("d" + std::to_string(d)).c_str());
    out << cell;
  }
  out << '\n';
  for (const auto& [key, row] : rows) {
    std::snprintf(cell, sizeof cell, "  %-32s", row.first.c_str());
    out << cell;
    for (int d : distances) {
      const auto at = row.second.find(d);
      if (at == row.second.end())
        std::snprintf(cell, sizeof cell, " %6s", "-");
      else
        std::snprintf(cell, sizeof cell, " %6.2f", at->second);
      out << cell;
    }
    out << '\n';
  }
  return out.str();
}

} // namespace

std::string choice_label(const engine::BackendChoice& choice) {
  const auto* info = kernels::find_backend(choice.backend);
  std::string label = choice.backend;
  if (info != nullptr && info->uses_prefetch_distance) {
    label += " d" + std::to_string(choice.prefetch_distance);
  }
  if (info != nullptr && info->uses_padding)
    label += " " + config::to_string(choice.padding);
  return label;
}

std::string sweep_table(const GroupSweep& sweep, double copy_gbps) {
  const auto& r = sweep.result;
  std::ostringstream out;
  out << "model '" << sweep.group->model_name << "': " << sweep.group->steps() << " steps, "
      << r.sample_paths << " of " << r.paths << " paths measured, "
      << format("%.3f", r.bytes_per_launch * 1e-9) << " GB of draws per launch; " << r.all.size()
      << " configurations in " << format("%.1f", r.seconds) << " s"
      << (r.stopped_by_budget ? " (time budget reached)" : "") << "\n";
  out << "  kernel: the path kernel alone; + generation: the draws it reads (none for inline); "
         "speedups over none's; % ideal: ideal's kernel time over the configuration's\n";
  char line[220];
  std::snprintf(line, sizeof line, "  %-32s %10s %19s %10s %10s %8s %8s %8s %7s %7s\n",
                "configuration", "kernel ms", "spread (min-max) ms", "+ gen. ms", "total ms",
                "kernel x", "total x", "GB/s", "% copy", "% ideal");
  out << line;
  for (const auto& m : r.all) {
    const double gbps = gbps_of(m, r.bytes_per_launch);
    std::snprintf(line, sizeof line,
                  "  %-32s %10.4f %9.4f-%-9.4f %10.4f %10.4f %8.3f %8.3f %8.1f %7.1f %7.1f\n",
                  choice_label(m.choice).c_str(), m.median_ms, m.min_ms, m.max_ms, m.generation_ms,
                  m.total_ms(), r.baseline.median_ms / m.median_ms,
                  r.baseline.total_ms() / m.total_ms(), gbps,
                  copy_gbps > 0 ? 100.0 * gbps / copy_gbps : 0.0, 100.0 * ideal_fraction(r, m));
    out << line;
  }
  const auto wide = std::count_if(r.all.begin(), r.all.end(),
                                  [](const engine::Measurement& m) { return m.wide; });
  if (wide > 0) {
    out << "  " << wide << " of " << r.all.size() << " configurations ran their kernels' wide "
        << "instantiation (" << kernels::kWideRegisters
        << " registers a thread: the launch runs in one wave)\n";
  }
  out << distance_table(sweep);
  if (r.ideal) {
    // The fastest kernel that prices (the table is ordered by total time, draws included).
    const engine::Measurement* fastest = nullptr;
    for (const auto& m : r.all) {
      const auto* info = kernels::find_backend(m.choice.backend);
      if ((info == nullptr || !info->bench_only) &&
          (fastest == nullptr || m.median_ms < fastest->median_ms))
        fastest = &m;
    }
    if (fastest != nullptr) {
      out << "  ideal (free draws): " << format("%.4f", r.ideal->median_ms)
          << " ms; the fastest kernel, " << choice_label(fastest->choice) << ", is "
          << format("%.1f", 100.0 * ideal_fraction(r, *fastest)) << "% of it; none "
          << format("%.1f", 100.0 * ideal_fraction(r, r.baseline)) << "%\n";
    }
  }
  return out.str();
}

std::string sweep_csv(const std::vector<GroupSweep>& sweeps, double copy_gbps) {
  std::ostringstream out;
  out << "model,steps,backend,prefetch_distance,padding,median_ms,min_ms,max_ms,speedup,gbps,"
         "copy_fraction,generation_ms,total_ms,total_speedup,ideal_fraction\n";
  for (const auto& s : sweeps) {
    for (const auto& m : s.result.all) {
      const double gbps = gbps_of(m, s.result.bytes_per_launch);
      out << s.group->model_name << ',' << s.group->steps() << ',' << m.choice.backend << ','
          << m.choice.prefetch_distance << ',' << config::to_string(m.choice.padding) << ','
          << format("%.6g", m.median_ms) << ',' << format("%.6g", m.min_ms) << ','
          << format("%.6g", m.max_ms) << ','
          << format("%.6g", s.result.baseline.median_ms / m.median_ms) << ','
          << format("%.6g", gbps) << ',' << format("%.6g", copy_gbps > 0 ? gbps / copy_gbps : 0.0)
          << ',' << format("%.6g", m.generation_ms) << ',' << format("%.6g", m.total_ms()) << ','
          << format("%.6g", s.result.baseline.total_ms() / m.total_ms()) << ','
          << format("%.6g", ideal_fraction(s.result, m)) << '\n';
    }
  }
  return out.str();
}

} // namespace pfmc::apps
