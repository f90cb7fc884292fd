// `pfmc risk CONFIG`: the book under the config's `risk:` scenarios (engine/risk/risk_run.hpp),
// each scenario's value, P&L and the P&L's standard error, then historical VaR and ES; as a
// table, CSV or JSON (the JSON is what Python's pfmc.risk reads).

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "apps/cli.hpp"
#include "apps/sweep_plot.hpp"
#include "base/atomic_file.hpp"
#include "base/error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "engine/risk/risk_run.hpp"

namespace pfmc::apps {

namespace {

std::string fixed(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

nlohmann::json scenario_json(const config::RunConfig& config,
                             const engine::risk::RiskResult& result,
                             const engine::risk::ScenarioResult& s, bool per_instrument) {
  nlohmann::json j = {{"name", s.name}, {"set", s.set}, {"coordinates", s.coordinates}};
  if (s.has_portfolio) {
    j["value"] = s.portfolio_value;
    j["pnl"] = s.portfolio_pnl;
    j["pnl_std_error_bound"] = s.portfolio_pnl_std_error_bound;
    j["factors"] = nlohmann::json::array();
    for (std::size_t f = 0; f < result.factors.size(); ++f)
      j["factors"].push_back({{"factor", result.factors[f]},
                              {"pnl", s.factor_pnl[f]},
                              {"pnl_std_error_bound", s.factor_pnl_std_error_bound[f]}});
  }
  if (per_instrument || !s.has_portfolio) {
    j["instruments"] = nlohmann::json::array();
    for (std::size_t i = 0; i < config.instruments.size(); ++i)
      j["instruments"].push_back({{"id", config.instruments[i].id},
                                  {"value", s.value[i]},
                                  {"pnl", s.pnl[i]},
                                  {"pnl_std_error", s.pnl_std_error[i]}});
  }
  return j;
}

std::string table(const nlohmann::json& r) {
  std::ostringstream out;
  out << "risk: " << r["scenarios"].size() << " scenarios of " << r["config"].get<std::string>()
      << " on the base run's draws (" << r["passes"].get<int>() << " passes of up to "
      << r["per_pass"].get<int>() << " beside the base)\n";
  if (r.contains("base_value"))
    out << "base: portfolio value " << fixed(r["base_value"].get<double>(), 6) << " +- "
        << fixed(r["base_std_error"].get<double>(), 6) << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-34s %-11s %16s %16s %14s\n", "scenario", "set", "value",
                "P&L", "P&L s.e. <=");
  out << line;
  for (const auto& s : r["scenarios"]) {
    if (!s.contains("value"))
      continue;
    std::snprintf(line, sizeof line, "%-34s %-11s %16.6f %16.6f %14.6f\n",
                  s["name"].get<std::string>().c_str(), s["set"].get<std::string>().c_str(),
                  s["value"].get<double>(), s["pnl"].get<double>(),
                  s["pnl_std_error_bound"].get<double>());
    out << line;
  }
  for (const auto& s : r["scenarios"]) {
    if (!s.contains("instruments"))
      continue;
    for (const auto& i : s["instruments"]) {
      std::snprintf(line, sizeof line, "%-34s %-11s %16.6f %16.6f %14.6f\n",
                    (s["name"].get<std::string>() + " " + i["id"].get<std::string>()).c_str(),
                    s["set"].get<std::string>().c_str(), i["value"].get<double>(),
                    i["pnl"].get<double>(), i["pnl_std_error"].get<double>());
      out << line;
    }
  }
  for (const auto& t : r["tail"])
    out << "historical " << r["horizon"].get<int>() << "-day VaR "
        << fixed(100 * t["level"].get<double>(), 1) << "%: " << fixed(t["var"].get<double>(), 6)
        << ", ES: " << fixed(t["expected_shortfall"].get<double>(), 6) << " (the "
        << t["tail_scenarios"].get<int>() << " worst of " << r["historical_scenarios"].get<int>()
        << ")\n";
  out << "time: " << fixed(r["wall_ms"].get<double>(), 1) << " ms (kernels "
      << fixed(r["kernel_ms"].get<double>(), 1) << " ms)\n";
  return out.str();
}

std::string csv(const nlohmann::json& r) {
  std::ostringstream out;
  out.precision(12);
  out << "scenario,set,instrument,value,pnl,pnl_std_error\n";
  for (const auto& s : r["scenarios"]) {
    if (s.contains("value")) {
      out << s["name"].get<std::string>() << "," << s["set"].get<std::string>() << ",portfolio,"
          << s["value"].get<double>() << "," << s["pnl"].get<double>() << ","
          << s["pnl_std_error_bound"].get<double>() << "\n";
      for (const auto& f : s["factors"]) // its positions by underlying: P&L alone, no value
        out << s["name"].get<std::string>() << "," << s["set"].get<std::string>()
            << ",factor:" << f["factor"].get<std::string>() << ",," << f["pnl"].get<double>() << ","
            << f["pnl_std_error_bound"].get<double>() << "\n";
    }
    if (!s.contains("instruments"))
      continue;
    for (const auto& i : s["instruments"])
      out << s["name"].get<std::string>() << "," << s["set"].get<std::string>() << ","
          << i["id"].get<std::string>() << "," << i["value"].get<double>() << ","
          << i["pnl"].get<double>() << "," << i["pnl_std_error"].get<double>() << "\n";
  }
  return out.str();
}

} // namespace

CLI::App* add_risk_command(CLI::App& app, RiskOptions& options, const char* config_help,
                           const char* version) {
  RunOptions& o = options.run;
  auto* risk = app.add_subcommand(
      "risk", "price CONFIG's `risk:` scenarios (ladders, a grid, named and historical moves) on "
              "the base run's draws: each scenario's value, P&L and its standard error; "
              "historical VaR and expected shortfall");
  risk->set_version_flag("--version", version);
  risk->add_option("config", o.config_file, config_help)->required();
  add_override_options(risk, o);
  risk->add_option("--format", o.format, "table | csv | json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  risk->add_option("--output,-o", o.output, "write the report to this file (default: stdout)");
  risk->add_flag("--per-instrument", options.per_instrument,
                 "each instrument's value and P&L too (risk.per_instrument)");
  risk->add_flag("--quiet,-q", o.quiet, "no progress line on stderr");
  risk->add_option("--plot", options.plot,
                   "write a PNG: each ladder's P&L against its move with the Greeks' Taylor "
                   "line, the grid as a heat map, the historical P&Ls with VaR and ES (drawn "
                   "by bench/plot_risk.py with matplotlib)");
  return risk;
}

nlohmann::json risk_report(const config::RunConfig& config, const engine::risk::RiskResult& result,
                           bool per_instrument) {
  per_instrument = per_instrument || config.risk.per_instrument;
  nlohmann::json r = {{"config", config.file},          {"passes", result.passes},
                      {"per_pass", result.per_pass},    {"device", result.base.run.device},
                      {"paths", result.base.run.paths}, {"seed", result.base.run.seed},
                      {"kernel_ms", result.kernel_ms},  {"wall_ms", result.wall_ms},
                      {"notices", result.notices}};
  if (result.base.portfolio.present) {
    r["base_value"] = result.base.portfolio.value;
    r["base_std_error"] = result.base.portfolio.std_error;
  }
  r["scenarios"] = nlohmann::json::array();
  int historical = 0;
  for (const auto& s : result.scenarios) {
    r["scenarios"].push_back(scenario_json(config, result, s, per_instrument));
    historical += s.set == "historical" ? 1 : 0;
  }
  r["historical_scenarios"] = historical;
  r["taylor"] = nlohmann::json::array();
  for (const auto& t : result.taylor)
    r["taylor"].push_back({{"ladder", t.ladder}, {"delta", t.delta}, {"gamma", t.gamma}});
  r["horizon"] = result.horizon;
  r["tail"] = nlohmann::json::array();
  for (const auto& t : result.tail)
    r["tail"].push_back({{"level", t.level},
                         {"var", t.var},
                         {"expected_shortfall", t.expected_shortfall},
                         {"tail_scenarios", t.tail_scenarios}});
  return r;
}

int command_risk(CLI::App* app, const RiskOptions& options) {
  const RunOptions& o = options.run;
  const std::string& plot = options.plot;
  // Without a Python that draws, say so before the run, not after it.
  const std::optional<std::string> python = plot.empty() ? std::nullopt : find_plot_python();
  if (!plot.empty() && !python)
    throw RuntimeError(std::string("--plot needs matplotlib: ") + kPlotInstallHint + " (tried " +
                       kPlotPythons + ")");
  config::RunConfig config = config::load_run_config(o.config_file);
  config::apply_overrides(config, overrides_from(app, o));
  const bool progress = !o.quiet && ::isatty(STDERR_FILENO) != 0;
  const engine::risk::RiskResult result =
      engine::risk::run_risk(config, [progress](int done, int passes) {
        if (progress)
          std::cerr << "\rrisk: pass " << done << " of " << passes << (done == passes ? "\n" : "")
                    << std::flush;
      });
  const nlohmann::json r = risk_report(config, result, options.per_instrument);
  const std::string text = o.format == "json"  ? r.dump(2) + "\n"
                           : o.format == "csv" ? csv(r)
                                               : table(r);
  const bool to_standard_output = o.output.empty() || o.output == "-";
  base::write_file_atomically(to_standard_output ? "-" : o.output, text);
  for (const auto& notice : result.notices)
    std::cerr << "note: " << notice << '\n';
  if (python)
    draw_plot(*python, "plot_risk.py", plot, o.format == "json" ? o.output : "", r.dump(), ".json");
  return 0;
}

} // namespace pfmc::apps
