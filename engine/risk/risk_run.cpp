// A desk's risk run (engine/risk/risk_run.hpp): scenarios expanded, priced in passes beside the
// base market on its draws, P&Ls summed over the portfolio, historical VaR and ES.
#include "engine/risk/risk_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <utility>

#include "config/config_error.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "models/payoff.cuh"
#include "models/scenarios.cuh"

namespace pfmc::engine::risk {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

config::Move ladder_move(const config::RiskLadder& ladder, std::size_t point) {
  return {ladder.kind, ladder.mode, ladder.targets, ladder.points[point]};
}

std::string point_name(const config::RiskLadder& ladder, std::size_t point) {
  return ladder.name + "=" + number(ladder.written[point]);
}

void add_ladders(const config::RiskConfig& risk, std::vector<LabelledShift>& out) {
  for (const config::RiskLadder& ladder : risk.ladders) {
    for (std::size_t p = 0; p < ladder.points.size(); ++p)
      out.push_back({{point_name(ladder, p), {ladder_move(ladder, p)}, ""},
                     ladder.name,
                     {ladder.written[p]}});
  }
  if (risk.grid_first < 0)
    return;
  const auto& a = risk.ladders[static_cast<std::size_t>(risk.grid_first)];
  const auto& b = risk.ladders[static_cast<std::size_t>(risk.grid_second)];
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    for (std::size_t j = 0; j < b.points.size(); ++j)
      out.push_back(
          {{point_name(a, i) + "," + point_name(b, j), {ladder_move(a, i), ladder_move(b, j)}, ""},
           "grid",
           {a.written[i], b.written[j]}});
  }
}

/// The historical windows: `horizon` days' moves summed (each day has the same moves in the same
/// order; log returns, vol changes and rate changes all add).
void add_historical(const config::HistoricalRisk& h, std::vector<LabelledShift>& out) {
  const std::size_t n = h.days.size();
  const auto horizon = static_cast<std::size_t>(h.horizon);
  for (std::size_t last = horizon - 1; last < n; ++last) {
    config::MarketShift window = h.days[last];
    for (std::size_t d = last + 1 - horizon; d < last; ++d) {
      for (std::size_t m = 0; m < window.moves.size(); ++m)
        window.moves[m].amount += h.days[d].moves[m].amount;
    }
    window.name = h.dates[last];
    out.push_back({std::move(window), "historical", {}});
  }
}

bool moves_nothing(const config::MarketShift& shift) {
  return std::all_of(shift.moves.begin(), shift.moves.end(),
                     [](const config::Move& m) { return m.amount == 0.0; });
}

/// What a shift does, as text: two scenarios of one key move the market alike (a grid's row at
/// a zero of the other ladder is that ladder's point) and are priced once.
std::string market_key(const config::MarketShift& shift) {
  std::string key;
  char amount[40];
  for (const config::Move& m : shift.moves) {
    if (m.amount == 0.0)
      continue;
    std::snprintf(amount, sizeof amount, "%a", m.amount);
    key += std::to_string(static_cast<int>(m.kind)) + "/" +
           std::to_string(static_cast<int>(m.mode)) + "/";
    for (const int t : m.targets)
      key += std::to_string(t) + ",";
    key += std::string("/") + amount + ";";
  }
  return key;
}

/// Each instrument's P&L into `scenarios` from one pass (its shifts are scenarios
/// [first, first + shifts)).
void read_pass(const RunResult& pass, const std::vector<std::size_t>& priced,
               std::vector<ScenarioResult>& scenarios) {
  for (std::size_t i = 0; i < pass.instruments.size(); ++i) {
    const InstrumentResult& r = pass.instruments[i];
    for (const GreekResult& g : r.greeks) {
      if (g.greek != config::Greek::scenario_pnl)
        continue;
      ScenarioResult& s = scenarios[priced[static_cast<std::size_t>(g.scenario)]];
      s.pnl[i] = g.value;
      s.pnl_std_error[i] = g.has_std_error ? g.std_error : 0.0;
      s.value[i] = r.price + g.value;
    }
  }
}

/// The portfolio's value and P&L under each scenario, and the P&L's error bound.
void sum_portfolio(const config::RunConfig& config, const RunResult& base,
                   std::vector<ScenarioResult>& scenarios) {
  if (!base.portfolio.present)
    return;
  for (ScenarioResult& s : scenarios) {
    std::map<int, double> bound_of_model; // Σ|q|·SE on each model's paths
    double pnl = 0.0;
    for (const config::Position& p : config.portfolio) {
      const auto i = static_cast<std::size_t>(p.instrument_index);
      pnl += p.quantity * s.pnl[i];
      bound_of_model[config.instruments[i].model_index] +=
          std::abs(p.quantity) * s.pnl_std_error[i];
    }
    double variance = 0.0;
    for (const auto& [model, bound] : bound_of_model)
      variance += bound * bound;
    s.has_portfolio = true;
    s.portfolio_pnl = pnl;
    s.portfolio_value = base.portfolio.value + pnl;
    s.portfolio_pnl_std_error_bound = std::sqrt(variance);
  }
}

/// A pass's config: the base market with `shifts` priced beside it, without the Greeks and the
/// control variates (a scenario's value is the base's plus its P&L, both raw).
config::RunConfig pass_config(const config::RunConfig& config,
                              std::vector<config::MarketShift> shifts) {
  config::RunConfig pass = config;
  pass.simulation.greeks.clear();
  pass.simulation.control_variate = false;
  pass.priced_shifts = std::move(shifts);
  return pass;
}

} // namespace

std::vector<LabelledShift> expand_scenarios(const config::RunConfig& config) {
  std::vector<LabelledShift> out;
  add_ladders(config.risk, out);
  for (const config::MarketShift& shift : config.risk.scenarios)
    out.push_back({shift, "scenarios", {}});
  if (config.risk.has_historical)
    add_historical(config.risk.historical, out);
  return out;
}

int shifts_per_pass(const config::RunConfig& config) {
  int most = models::kMaxGreeks;
  for (const config::InstrumentConfig& instrument : config.instruments) {
    const auto& model = config.models[static_cast<std::size_t>(instrument.model_index)];
    most = std::min(most, models::scenarios_for_assets(model.assets()) - 1);
  }
  // Each scenario observes its own paths: a group of n observation schedules carries
  // kMaxObservations / n scenarios.
  const SimulationPlan plan = make_plan(pass_config(config, {}));
  for (const GroupPlan& group : plan.groups) {
    const int schedules = std::max<int>(1, static_cast<int>(group.observations.size()));
    const int fit = models::kMaxObservations / schedules - 1;
    if (fit < 1)
      throw config::ConfigError(
          config.file, config.models[static_cast<std::size_t>(group.model_index)].mark, "risk",
          "model '" + group.model_name + "''s instruments need " + std::to_string(schedules) +
              " observation schedules: a scenario beside the base needs as many again, and at "
              "most " +
              std::to_string(models::kMaxObservations) +
              " fit one path: split its instruments over more models");
    most = std::min(most, fit);
  }
  return most;
}

std::vector<TailMeasure> tail_measures(const std::vector<double>& pnl,
                                       const std::vector<double>& levels) {
  std::vector<double> losses;
  for (const double v : pnl)
    losses.push_back(-v);
  std::sort(losses.begin(), losses.end(), std::greater<>());
  std::vector<TailMeasure> out;
  for (const double level : levels) {
    const double tail = static_cast<double>(losses.size()) * (1.0 - level);
    const auto k = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(tail - 1e-9)));
    double sum = 0.0;
    for (std::size_t j = 0; j < k; ++j)
      sum += losses[j];
    out.push_back({level, losses[k - 1], sum / static_cast<double>(k), static_cast<int>(k)});
  }
  return out;
}

RiskResult run_risk(const config::RunConfig& config, const PassProgress& progress,
                    const PriceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (!config.risk.present)
    throw config::ConfigError(config.file, {}, "risk",
                              "the config has no `risk:` block: add ladders, scenarios or "
                              "historical moves to price");
  RiskResult result;
  const std::vector<LabelledShift> all = expand_scenarios(config);
  for (const LabelledShift& s : all) {
    ScenarioResult r;
    r.name = s.shift.name;
    r.set = s.set;
    r.coordinates = s.coordinates;
    r.value.assign(config.instruments.size(), 0.0);
    r.pnl.assign(config.instruments.size(), 0.0);
    r.pnl_std_error.assign(config.instruments.size(), 0.0);
    result.scenarios.push_back(std::move(r));
  }
  // The scenarios that move something, each market once, a pass at a time (one that moves
  // nothing is the base; one that moves as an earlier one is its copy).
  std::vector<std::size_t> moving;
  std::vector<std::size_t> same_as(all.size());
  std::map<std::string, std::size_t> first_of;
  for (std::size_t s = 0; s < all.size(); ++s) {
    same_as[s] = first_of.emplace(market_key(all[s].shift), s).first->second;
    if (same_as[s] == s && !moves_nothing(all[s].shift))
      moving.push_back(s);
  }
  result.per_pass = shifts_per_pass(config);
  const auto per_pass = static_cast<std::size_t>(result.per_pass);
  result.passes = std::max<int>(1, static_cast<int>((moving.size() + per_pass - 1) / per_pass));
  if (config.simulation.control_variate)
    result.notices.push_back("risk: control variates left out (a scenario's value is the base "
                             "price plus its P&L, both without them)");
  for (int pass = 0; pass < result.passes; ++pass) {
    const std::size_t begin = static_cast<std::size_t>(pass) * per_pass;
    const std::size_t end = std::min(moving.size(), begin + per_pass);
    std::vector<std::size_t> priced(moving.begin() + static_cast<std::ptrdiff_t>(begin),
                                    moving.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<config::MarketShift> shifts;
    for (const std::size_t s : priced)
      shifts.push_back(all[s].shift);
    RunResult run = price(pass_config(config, std::move(shifts)), {}, options);
    read_pass(run, priced, result.scenarios);
    result.kernel_ms += run.run.kernel_ms;
    result.total_ms += run.run.total_ms;
    if (pass == 0)
      result.base = std::move(run);
    if (progress)
      progress(pass + 1, result.passes);
  }
  for (std::size_t s = 0; s < all.size(); ++s) {
    ScenarioResult& r = result.scenarios[s];
    if (moves_nothing(all[s].shift)) { // the base's own: its prices
      for (std::size_t i = 0; i < config.instruments.size(); ++i)
        r.value[i] = result.base.instruments[i].price;
    } else if (same_as[s] != s) {
      const ScenarioResult& priced = result.scenarios[same_as[s]];
      r.value = priced.value;
      r.pnl = priced.pnl;
      r.pnl_std_error = priced.pnl_std_error;
    }
  }
  sum_portfolio(config, result.base, result.scenarios);
  if (config.risk.has_historical && result.base.portfolio.present) {
    std::vector<double> pnl;
    for (const ScenarioResult& s : result.scenarios) {
      if (s.set == "historical")
        pnl.push_back(s.portfolio_pnl);
    }
    result.horizon = config.risk.historical.horizon;
    result.tail = tail_measures(pnl, config.risk.historical.levels);
  }
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace pfmc::engine::risk
