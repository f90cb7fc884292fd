// A desk's risk run (engine/risk/risk_run.hpp): scenarios expanded, priced in passes beside the
// base market on its draws, P&Ls summed over the portfolio, historical VaR and ES.
#include "engine/risk/risk_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "config/config_error.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "engine/risk/market_shift.hpp"
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

/// Each instrument's value and P&L into `scenarios` from one pass (its k-th shift is scenario
/// priced[k]).
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

/// What a position's P&L is reported under: its model's underlying, a basket's model's name.
std::string risk_factor(const config::RunConfig& config, const config::Position& p) {
  const auto& instrument = config.instruments[static_cast<std::size_t>(p.instrument_index)];
  const auto& model = config.models[static_cast<std::size_t>(instrument.model_index)];
  return model.type == config::ModelType::multi_black_scholes ? model.name : model.underlying;
}

/// The P&L of the positions that `take` keeps, and its bound: Σ|q|·SE on each model's paths,
/// models in quadrature (their draws are independent).
template <class Take>
std::pair<double, double> positions_pnl(const config::RunConfig& config, const ScenarioResult& s,
                                        const Take& take) {
  std::map<int, double> bound_of_model;
  double pnl = 0.0;
  for (const config::Position& p : config.portfolio) {
    if (!take(p))
      continue;
    const auto i = static_cast<std::size_t>(p.instrument_index);
    pnl += p.quantity * s.pnl[i];
    bound_of_model[config.instruments[i].model_index] += std::abs(p.quantity) * s.pnl_std_error[i];
  }
  double variance = 0.0;
  for (const auto& [model, bound] : bound_of_model)
    variance += bound * bound;
  return {pnl, std::sqrt(variance)};
}

/// The portfolio's value and P&L under each scenario, whole and by risk factor, with the P&L's
/// error bounds.
void sum_portfolio(const config::RunConfig& config, const RunResult& base,
                   std::vector<std::string>& factors, std::vector<ScenarioResult>& scenarios) {
  if (!base.portfolio.present)
    return;
  for (const config::Position& p : config.portfolio) {
    const std::string f = risk_factor(config, p);
    if (std::find(factors.begin(), factors.end(), f) == factors.end())
      factors.push_back(f);
  }
  for (ScenarioResult& s : scenarios) {
    const auto [pnl, bound] =
        positions_pnl(config, s, [](const config::Position&) { return true; });
    s.has_portfolio = true;
    s.portfolio_pnl = pnl;
    s.portfolio_value = base.portfolio.value + pnl;
    s.portfolio_pnl_std_error_bound = bound;
    for (const std::string& f : factors) {
      const auto [part, part_bound] = positions_pnl(
          config, s, [&](const config::Position& p) { return risk_factor(config, p) == f; });
      s.factor_pnl.push_back(part);
      s.factor_pnl_std_error_bound.push_back(part_bound);
    }
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

/// Each spot ladder's Taylor line for the portfolio, from one Greeks run (delta and gamma by
/// bumps) of the book on the run's seed.
std::vector<TaylorLine> taylor_lines(const config::RunConfig& config, const PriceOptions& options,
                                     double& kernel_ms) {
  std::vector<TaylorLine> lines;
  if (config.portfolio.empty())
    return lines;
  for (const config::RiskLadder& ladder : config.risk.ladders) {
    if (ladder.kind == config::ShiftKind::spot)
      lines.push_back({ladder.name, 0.0, 0.0});
  }
  if (lines.empty())
    return lines;
  config::RunConfig greeks = pass_config(config, {});
  greeks.simulation.greeks = {config::Greek::delta, config::Greek::gamma};
  greeks.simulation.greeks_method = config::GreeksMethod::bump;
  const RunResult run = price(greeks, {}, options);
  kernel_ms += run.run.kernel_ms;
  std::size_t l = 0;
  for (const config::RiskLadder& ladder : config.risk.ladders) {
    if (ladder.kind != config::ShiftKind::spot)
      continue;
    TaylorLine& line = lines[l++];
    for (const config::Position& p : config.portfolio) {
      const auto& instrument = config.instruments[static_cast<std::size_t>(p.instrument_index)];
      const auto& model = config.models[static_cast<std::size_t>(instrument.model_index)];
      for (const GreekResult& g :
           run.instruments[static_cast<std::size_t>(p.instrument_index)].greeks) {
        const std::string& name = g.underlying.empty() ? model.underlying : g.underlying;
        int u = 0;
        while (config.market.underlyings[static_cast<std::size_t>(u)].name != name)
          ++u;
        if (!ladder.targets.empty() &&
            std::find(ladder.targets.begin(), ladder.targets.end(), u) == ladder.targets.end())
          continue;
        const double unit = ladder.mode == config::ShiftMode::absolute
                                ? 1.0
                                : config.market.underlyings[static_cast<std::size_t>(u)].spot;
        if (g.greek == config::Greek::delta)
          line.delta += p.quantity * g.value * unit;
        if (g.greek == config::Greek::gamma)
          line.gamma += p.quantity * g.value * unit * unit;
      }
    }
  }
  return lines;
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

namespace {

/// What one kind of simulation group of the book carries on a path: its model, whether its
/// instruments exercise early, and the most model copies (the Scenarios wrapper's, and as many
/// as its observation schedules leave slots for).
struct PathRoom {
  int model_index = 0;
  bool early = false;
  int most_copies = 0;
};

std::vector<PathRoom> path_rooms(const config::RunConfig& config) {
  std::vector<PathRoom> rooms;
  const SimulationPlan plan = make_plan(pass_config(config, {}));
  for (const GroupPlan& group : plan.groups) {
    const int schedules = std::max<int>(1, static_cast<int>(group.observations.size()));
    const int most =
        std::min(models::scenarios_for_assets(group.assets), models::kMaxObservations / schedules);
    const bool early = group.exercise.present();
    const auto same = std::find_if(rooms.begin(), rooms.end(), [&](const PathRoom& r) {
      return r.model_index == group.model_index && r.early == early;
    });
    if (same == rooms.end()) {
      rooms.push_back({group.model_index, early, most});
    } else {
      same->most_copies = std::min(same->most_copies, most);
    }
  }
  return rooms;
}

} // namespace

std::vector<std::vector<std::size_t>> plan_passes(const config::RunConfig& config,
                                                  const std::vector<LabelledShift>& scenarios,
                                                  std::vector<std::size_t> moving) {
  // Scenarios of one market but for their spots next to each other: on a model whose paths
  // scale with the spot they share a copy's paths.
  std::stable_sort(moving.begin(), moving.end(), [&](std::size_t a, std::size_t b) {
    return market_key(without_spot_moves(scenarios[a].shift)) <
           market_key(without_spot_moves(scenarios[b].shift));
  });
  const std::vector<PathRoom> rooms = path_rooms(config);
  std::vector<std::vector<std::size_t>> passes;
  std::vector<std::set<std::string>> copies(rooms.size()); // the pass's paths beside the base
  for (const std::size_t s : moving) {
    std::vector<std::string> keys;
    bool fits = !passes.empty() && passes.back().size() < kMostShiftsPerPass;
    for (std::size_t r = 0; r < rooms.size(); ++r) {
      keys.push_back(
          shift_paths(config, scenarios[s].shift, rooms[r].model_index, rooms[r].early).key);
      const bool added = !keys.back().empty() && copies[r].count(keys.back()) == 0;
      if (1 + static_cast<int>(copies[r].size()) + (added ? 1 : 0) > rooms[r].most_copies) {
        fits = false;
        if (!keys.back().empty() && rooms[r].most_copies < 2)
          throw config::ConfigError(
              config.file, config.models[static_cast<std::size_t>(rooms[r].model_index)].mark,
              "risk",
              "scenario '" + scenarios[s].shift.name + "' needs paths of its own on model '" +
                  config.models[static_cast<std::size_t>(rooms[r].model_index)].name +
                  "', whose instruments' observation schedules leave no room for a second "
                  "copy of its paths: split its instruments over more models");
      }
    }
    if (!fits) {
      passes.emplace_back();
      for (auto& c : copies)
        c.clear();
    }
    passes.back().push_back(s);
    for (std::size_t r = 0; r < rooms.size(); ++r) {
      if (!keys[r].empty())
        copies[r].insert(keys[r]);
    }
  }
  return passes;
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
  std::vector<std::vector<std::size_t>> passes = plan_passes(config, all, moving);
  if (passes.empty())
    passes.emplace_back(); // the base alone
  result.passes = static_cast<int>(passes.size());
  result.per_pass = static_cast<int>(kMostShiftsPerPass);
  if (config.simulation.control_variate)
    result.notices.push_back("risk: control variates left out (a scenario's value is the base "
                             "price plus its P&L, both without them)");
  for (int pass = 0; pass < result.passes; ++pass) {
    const std::vector<std::size_t>& priced = passes[static_cast<std::size_t>(pass)];
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
  sum_portfolio(config, result.base, result.factors, result.scenarios);
  try {
    result.taylor = taylor_lines(config, options, result.kernel_ms);
  } catch (const config::ConfigError& e) { // the ladders stand without their line
    result.notices.push_back(std::string("risk: no Taylor line for the spot ladders: ") +
                             e.message());
  }
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
