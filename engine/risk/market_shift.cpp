// A risk scenario's moves applied to today's market (engine/risk/market_shift.hpp).
#include "engine/risk/market_shift.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "config/config_error.hpp"

namespace pfmc::engine::risk {

namespace {

/// x moved by `move` (relative, absolute or log).
double moved(double x, const config::Move& move) {
  switch (move.mode) {
  case config::ShiftMode::relative:
    return x * (1.0 + move.amount);
  case config::ShiftMode::absolute:
    return x + move.amount;
  case config::ShiftMode::log:
    return x * std::exp(move.amount);
  }
  return x;
}

bool targets(const config::Move& move, std::size_t index) {
  if (move.targets.empty())
    return true;
  for (const int t : move.targets) {
    if (t == static_cast<int>(index))
      return true;
  }
  return false;
}

[[noreturn]] void refuse(const config::RunConfig& config, const config::MarketShift& shift,
                         const std::string& what) {
  throw config::ConfigError(config.file, {}, "risk",
                            "scenario '" + shift.name + "'" +
                                (shift.where.empty() ? "" : " (" + shift.where + ")") + ": " +
                                what + ": a spot or a vol must stay > 0");
}

/// A vol of model `name` moved; refused where it would not stay positive.
double moved_vol(double vol, const config::Move& move, const config::RunConfig& config,
                 const config::MarketShift& shift, const std::string& name) {
  const double v = moved(vol, move);
  if (!(v > 0.0))
    refuse(config, shift,
           "moves a vol of model '" + name + "' from " + std::to_string(vol) + " to " +
               std::to_string(v));
  return v;
}

void move_vols(config::RunConfig& c, const config::Move& move, const config::MarketShift& shift) {
  for (std::size_t i = 0; i < c.models.size(); ++i) {
    if (targets(move, i))
      move_model_vols(c.models[i], -1,
                      [&](double v) { return moved_vol(v, move, c, shift, c.models[i].name); });
  }
}

void move_spots(config::RunConfig& c, const config::Move& move, const config::MarketShift& shift) {
  for (std::size_t i = 0; i < c.market.underlyings.size(); ++i) {
    if (!targets(move, i))
      continue;
    config::Underlying& u = c.market.underlyings[i];
    const double s = moved(u.spot, move);
    if (!(s > 0.0))
      refuse(c, shift,
             "moves the spot of " + u.name + " from " + std::to_string(u.spot) + " to " +
                 std::to_string(s));
    u.spot = s;
  }
}

} // namespace

void move_model_vols(config::ModelConfig& m, int asset, const std::function<double(double)>& move) {
  switch (m.type) {
  case config::ModelType::black_scholes:
    for (double& v : m.volatility.values)
      v = move(v);
    break;
  case config::ModelType::heston: {
    const double vol0 = move(std::sqrt(m.heston.v0));
    const double vol_inf = move(std::sqrt(m.heston.theta));
    m.heston.v0 = vol0 * vol0;
    m.heston.theta = vol_inf * vol_inf;
    break;
  }
  case config::ModelType::local_vol:
    for (auto& row : m.surface.vols) {
      for (double& v : row)
        v = move(v);
    }
    break;
  case config::ModelType::multi_black_scholes:
    for (std::size_t a = 0; a < m.volatilities.size(); ++a) {
      if (asset < 0 || static_cast<int>(a) == asset)
        m.volatilities[a] = move(m.volatilities[a]);
    }
    break;
  }
}

config::RunConfig shifted_market(const config::RunConfig& config, const config::MarketShift& shift,
                                 double& time_forward) {
  config::RunConfig c = config;
  c.priced_shifts.clear();
  time_forward = 0.0;
  for (const config::Move& move : shift.moves) {
    switch (move.kind) {
    case config::ShiftKind::spot:
      move_spots(c, move, shift);
      break;
    case config::ShiftKind::vol:
      move_vols(c, move, shift);
      break;
    case config::ShiftKind::rate:
      for (double& z : c.market.zero_rates.values)
        z += move.amount;
      break;
    case config::ShiftKind::time:
      time_forward += move.amount;
      break;
    }
  }
  return c;
}

namespace {

[[noreturn]] void refuse_update(const std::string& key, const std::string& what) {
  throw config::ConfigError("<market>", {}, "market." + key, what);
}

/// The index of the item of `items` named `name`, or a refusal listing the names.
template <class Named>
std::size_t named(const std::vector<Named>& items, const std::string& name, const std::string& key,
                  const char* kind) {
  std::string known;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == name)
      return i;
    known += (known.empty() ? "" : ", ") + items[i].name;
  }
  refuse_update(key, "no " + std::string(kind) + " '" + name + "' (known: " + known + ")");
}

/// A vol level's or a moved vol's check: (0, 5], as the config's.
double checked_vol(double v, const std::string& key, const std::string& what) {
  if (!(v > 0.0 && v <= 5.0))
    refuse_update(key, what + " " + std::to_string(v) + ": a vol must be in (0, 5]");
  return v;
}

} // namespace

config::RunConfig updated_market(const config::RunConfig& config, const MarketUpdate& update) {
  config::RunConfig c = config;
  for (const auto& [name, level] : update.spots) {
    const std::string key = "spot." + name;
    auto& u = c.market.underlyings[named(c.market.underlyings, name, key, "underlying")];
    if (!(level > 0.0 && std::isfinite(level)))
      refuse_update(key, "must be > 0 (got " + std::to_string(level) + ")");
    u.spot = level;
  }
  for (const auto& [name, level] : update.vols) {
    const std::string key = "vol." + name;
    auto& m = c.models[named(c.models, name, key, "model")];
    if (m.type != config::ModelType::black_scholes || m.volatility.values.size() != 1)
      refuse_update(key, "model '" + name + "' has no single vol to set (" + to_string(m.type) +
                             (m.volatility.values.size() > 1 ? ", a term "
                                                               "structure"
                                                             : "") +
                             "): move its vols with vol_moves");
    m.volatility.values[0] = checked_vol(level, key, "is");
  }
  for (const auto& [name, by] : update.vol_moves) {
    const std::string key = "vol_moves." + name;
    const double amount = by; // a lambda cannot capture a structured binding in C++17 (clang)
    auto& m = c.models[named(c.models, name, key, "model")];
    move_model_vols(m, -1,
                    [&](double v) { return checked_vol(v + amount, key, "moves a vol to"); });
  }
  if (update.zero_rate) {
    const double r = *update.zero_rate;
    if (!(r >= -1.0 && r <= 1.0))
      refuse_update("zero_rate", "must be in [-1, 1] (got " + std::to_string(r) + ")");
    c.market.zero_rates = config::TermStructure{};
    c.market.zero_rates.values.push_back(r);
  }
  return c;
}

namespace {

std::string hex(double x) {
  char text[40];
  std::snprintf(text, sizeof text, "%a", x);
  return text;
}

/// What the shift's moves do, as text ("" when nothing), its spot moves left out or not.
std::string moves_key(const config::MarketShift& shift, bool with_spots) {
  std::string key;
  for (const config::Move& m : shift.moves) {
    if (m.amount == 0.0 || (!with_spots && m.kind == config::ShiftKind::spot))
      continue;
    key += std::to_string(static_cast<int>(m.kind)) + "/" +
           std::to_string(static_cast<int>(m.mode)) + "/";
    for (const int t : m.targets)
      key += std::to_string(t) + ",";
    key += "/" + hex(m.amount) + ";";
  }
  return key;
}

bool scales_with_spot(config::ModelType type) {
  return type == config::ModelType::black_scholes || type == config::ModelType::heston ||
         type == config::ModelType::multi_black_scholes;
}

} // namespace

std::string market_key(const config::MarketShift& shift) {
  return moves_key(shift, true);
}

config::MarketShift without_spot_moves(const config::MarketShift& shift) {
  config::MarketShift out = shift;
  out.moves.clear();
  for (const config::Move& m : shift.moves) {
    if (m.kind != config::ShiftKind::spot)
      out.moves.push_back(m);
  }
  return out;
}

ShiftPaths shift_paths(const config::RunConfig& config, const config::MarketShift& shift,
                       int model_index, bool early_exercise) {
  const config::ModelConfig& model = config.models[static_cast<std::size_t>(model_index)];
  const std::vector<int> underlyings = model.type == config::ModelType::multi_black_scholes
                                           ? model.underlying_indices
                                           : std::vector<int>{model.underlying_index};
  std::vector<double> ratios;
  bool uniform = true;
  for (const int u : underlyings) {
    const double spot = config.market.underlyings[static_cast<std::size_t>(u)].spot;
    double moved_spot = spot;
    for (const config::Move& m : shift.moves) {
      if (m.kind == config::ShiftKind::spot && targets(m, static_cast<std::size_t>(u)))
        moved_spot = moved(moved_spot, m);
    }
    ratios.push_back(moved_spot / spot);
    uniform = uniform && ratios.back() == ratios.front();
  }
  ShiftPaths paths{moves_key(shift, false), 1.0};
  if (!early_exercise && uniform && scales_with_spot(model.type)) {
    paths.spot_scale = ratios.front();
    return paths;
  }
  bool moved_any = false;
  for (const double r : ratios)
    moved_any = moved_any || r != 1.0;
  if (moved_any) {
    paths.key += "|spots";
    for (const double r : ratios)
      paths.key += ":" + hex(r);
  }
  return paths;
}

} // namespace pfmc::engine::risk
