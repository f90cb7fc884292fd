// Pathwise Greeks: which groups take them, the Greeks as derivatives of the payoff by the
// pathwise model's inputs (models/pathwise.cuh, pathwise_heston.cuh, pathwise_local_vol.cuh),
// and the model's tangent data.
//
// A group takes its Greeks pathwise (every model has tangents: Black-Scholes, correlated
// Black-Scholes, Heston, local vol) when each of its instruments allows them (why_not_pathwise).
// Early exercise takes its first-order Greeks with the rule held fixed, as the bumps hold it
// (models/exercise.cuh: each path's cash flow differentiated at its exercise date); its gamma
// would be a pathwise delta's difference across the exercise boundary, which a path's move
// crosses, so a run that asks for gamma or cross-gamma keeps the bumps for early exercise.
// Europeans, Asians and baskets are Lipschitz in their observation:
// their pathwise derivative is exact. A digital's payoff and a knock jump: the plain pathwise
// derivative would miss the jump's mass, so the jump's delta function is replaced by a uniform
// kernel of half-width w (kJumpSmoothing; models/payoff.cuh, payoff_slope), a bias of O(w²)
// stated there. Gamma is the central difference of the pathwise delta under a move of the spot
// (kSpotBump, as the bumps'), the path moved along its own delta tangent: exact for an
// observation linear in each spot (a spot, an average, a weighted basket's level) and for a spot
// knock's log extreme. A max or min basket's level and a basket knock's extreme are not linear
// in each spot (the winning leg or date changes): the paths carry them moved too, each asset's
// leg scaled by 1 ± kSpotBump (engine/plan/instruments.cpp, add_moved_levels), exact on
// correlated Black-Scholes paths (the only model with baskets), which a spot's move scales. A
// basket's cross-gamma by its underlyings a and b is the central difference of the pathwise
// delta by b under the move of a (bumps have none: a basket group that cannot take them pathwise
// is refused).
//
// The tangent data are the derivatives of each step's data (Black-Scholes' drift and diffusion,
// Heston's coefficients, local vol's row and forward: by the spot too) by the asset's vol, the
// rates and valuation time, as central differences
// of the planner's own step data (double, steps kTangentStep: the step data are smooth in each
// input, so the difference's error is O(h²), about 1e-12 of the derivative, and its rounding about
// 1e-16 / h of the data).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "config/config_error.hpp"
#include "engine/plan/plan_detail.hpp"
#include "models/pathwise.cuh"

namespace pfmc::engine::plan_detail {

namespace {

/// Central-difference steps of the tangent data: vol (absolute), rates (absolute), valuation
/// time (years).
constexpr double kTangentStep = 1e-6;
/// The half-width of the uniform kernel in place of a jump's delta function, relative: 1% of a
/// digital's strike, of a basket knock's level, or 0.01 of log-spot (1% of the spot) for a spot
/// knock. Its bias is the Greek's average over the jump's positions within ±w, less the Greek
/// (O(w²): w²/6 times its second derivative by the jump's position).
constexpr double kJumpSmoothing = 0.01;

bool wants(const config::RunConfig& config, config::Greek g) {
  const auto& greeks = config.simulation.greeks;
  return std::find(greeks.begin(), greeks.end(), g) != greeks.end();
}

/// Why an instrument's Greeks cannot be pathwise, or empty.
std::string why_not_pathwise(const config::RunConfig& config,
                             const config::InstrumentConfig& instrument) {
  if (exercises_early(instrument) &&
      (wants(config, config::Greek::gamma) || wants(config, config::Greek::cross_gamma))) {
    return "it exercises early, and its gamma would difference a pathwise delta across the "
           "exercise boundary (its delta, vega, rho and theta can be pathwise, the rule held "
           "fixed: ask for those alone)";
  }
  return {}; // every other payoff, a jump's delta function smoothed (set_smoothing)
}

/// Spot of the model's asset a.
double spot_of(const config::RunConfig& config, const config::ModelConfig& model, int a) {
  const int u = model.type == config::ModelType::multi_black_scholes
                    ? model.underlying_indices[static_cast<std::size_t>(a)]
                    : model.underlying_index;
  return config.market.underlyings[static_cast<std::size_t>(u)].spot;
}

/// (data(+h) - data(-h)) / 2h of series `k`, per step.
std::vector<double> difference(const ModelData& up, const ModelData& down, std::size_t k,
                               double h) {
  std::vector<double> d(up.steps);
  for (std::size_t s = 0; s < d.size(); ++s)
    d[s] = (up.at(k, s) - down.at(k, s)) / (2.0 * h);
  return d;
}

/// Whether auto keeps the bumps for a model whose pathwise Greeks it could take, for their
/// variance: full-truncation Heston's step moves the variance by xi sqrt(max(v, 0) dt) z, whose
/// derivative xi z sqrt(dt) / (2 sqrt(v)) is unbounded as v nears 0 (sqrt is not Lipschitz
/// there), so the tangents by vol and by time (both through the variance) are heavy-tailed:
/// measured on the heston_full_truncation reference case's model (100,000 paths), vega's
/// standard error 1.3x the bumps' on a call and 11x on an arithmetic Asian, theta's 1.03x and
/// 1.13x (docs/decisions.md#heston-pathwise). QE's step has no such root of a variance near 0: its
/// vega's 1.00x the bumps' on those payoffs, its theta's 0.96x.
bool auto_keeps_bumps(const config::RunConfig& config, const config::ModelConfig& model) {
  return model.type == config::ModelType::heston &&
         model.heston.scheme == config::HestonScheme::full_truncation &&
         (wants(config, config::Greek::vega) || wants(config, config::Greek::theta));
}

/// Local vol's model data for pathwise Greeks (models::PathwiseLocalVol): LocalVol's, then per
/// step the derivatives of its data by the spot, the surface's parallel shift, the rates and
/// valuation time (the spot moves each step's ln F(0, t); the shift, the row of vols).
void plan_local_vol_pathwise_data(const config::RunConfig& config, int model_index,
                                  GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  const ModelData base = model_data(config, model, group.times, 0.0);
  const auto stride = static_cast<std::size_t>(base.series);
  const double h = kTangentStep;
  const double spot = spot_of(config, model, 0);
  // [input, models::PathwiseInputs<1>'s order][series][step]
  std::vector<std::vector<std::vector<double>>> moved(4, std::vector<std::vector<double>>(stride));
  const auto take = [&](std::size_t input, const config::RunConfig& up_config,
                        const config::RunConfig& down_config, double up_shift, double step) {
    const auto& up_model = up_config.models[static_cast<std::size_t>(model_index)];
    const auto& down_model = down_config.models[static_cast<std::size_t>(model_index)];
    const ModelData up = model_data(up_config, up_model, group.times, up_shift);
    const ModelData down = model_data(down_config, down_model, group.times, -up_shift);
    for (std::size_t k = 0; k < stride; ++k)
      moved[input][k] = difference(up, down, k, step);
  };
  take(0, bump_spot(config, model, -1, h), bump_spot(config, model, -1, -h), 0.0, h * spot);
  take(1, bump_vol(config, model_index, 0, h), bump_vol(config, model_index, 0, -h), 0.0, h);
  take(2, bump_rates(config, h), bump_rates(config, -h), 0.0, h);
  take(3, config, config, h, h);
  group.step_series_count = static_cast<int>(stride);
  group.model_data.assign(base.values.begin(), base.values.end()); // the steps, then the knots
  const double tangents_at = static_cast<double>(group.model_data.size());
  group.model_data.reserve(group.model_data.size() + base.steps * stride * moved.size());
  for (std::size_t s = 0; s < base.steps; ++s) {
    for (const auto& input : moved) {
      for (std::size_t k = 0; k < stride; ++k)
        group.model_data.push_back(input[k][s]);
    }
  }
  // {values before the tangents, ln S0, 1 / S0, knot count, steps}
  group.model_constants = {tangents_at, base.constants[0], 1.0 / spot, base.constants[1],
                           base.constants[2]};
}

} // namespace

bool takes_pathwise(const config::RunConfig& config, int model_index, Members instrument_indices) {
  const auto method = config.simulation.greeks_method;
  if (config.simulation.greeks.empty() || method == config::GreeksMethod::bump)
    return false;
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  if (method == config::GreeksMethod::automatic && auto_keeps_bumps(config, model))
    return false;
  for (int i : instrument_indices) {
    const auto& instrument = config.instruments[static_cast<std::size_t>(i)];
    const std::string why = why_not_pathwise(config, instrument);
    if (why.empty())
      continue;
    if (method == config::GreeksMethod::automatic)
      return false;
    throw config::ConfigError(config.file, instrument.mark, "simulation.greeks_method",
                              "pathwise Greeks need payoffs Lipschitz in the path: instrument '" +
                                  instrument.id + "' cannot have them: " + why +
                                  " (greeks_method: auto takes bumps for its model's group)");
  }
  return true;
}

std::vector<Scenario> plan_pathwise(const config::RunConfig& config, int model_index,
                                    GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  const int N = model.assets();
  const auto delta = [](int a) { return a; };
  const auto vega = [N](int a) { return N + a; };
  const int rho = 2 * N, theta = 2 * N + 1;
  group.scenarios = 1;
  for (config::Greek g : config.simulation.greeks) {
    if (g == config::Greek::cross_gamma) {
      // Each pair a < b: the central difference of the pathwise delta by spot b under the move
      // of spot a (models/payoff.cuh, moved_spot_greek).
      for (int a = 0; a < N; ++a) {
        for (int b = a + 1; b < N; ++b) {
          group.greeks.push_back(g);
          group.greek_assets.push_back(a);
          group.greek_pair_assets.push_back(b);
          group.pathwise_greeks.push_back(
              models::PathwiseGreek{delta(b), delta(a), kSpotBump * spot_of(config, model, a), -1});
        }
      }
      continue;
    }
    const bool each = N > 1 && (g == config::Greek::delta || g == config::Greek::gamma ||
                                g == config::Greek::vega);
    for (int a = 0; a < (each ? N : 1); ++a) {
      models::PathwiseGreek p{0, -1, 0.0, -1};
      switch (g) {
      case config::Greek::delta:
        p.input = delta(a);
        break;
      case config::Greek::gamma:
        p.input = delta(a);
        p.moved_spot = delta(a);
        p.move = kSpotBump * spot_of(config, model, a);
        break;
      case config::Greek::vega:
        p.input = vega(a);
        break;
      case config::Greek::rho:
        p.input = rho;
        p.discount = 0;
        break;
      case config::Greek::theta:
        p.input = theta;
        p.discount = 1;
        break;
      case config::Greek::cross_gamma:  // above
      case config::Greek::scenario_pnl: // never asked for (config::kAllGreeks leaves it out)
        break;
      }
      group.greeks.push_back(g);
      group.greek_assets.push_back(each ? a : -1);
      group.greek_pair_assets.push_back(-1);
      group.pathwise_greeks.push_back(p);
    }
  }
  // Single-asset Black-Scholes without rho or theta carries the spot's and the vol's tangents
  // only (models::PathwiseBlackScholes<Real, 1, kSpotAndVolInputs>): the same tangents, fewer
  // registers.
  const bool spot_and_vol_only = std::all_of(
      group.pathwise_greeks.begin(), group.pathwise_greeks.end(),
      [rho](const models::PathwiseGreek& p) { return p.input < rho && p.discount < 0; });
  group.pathwise_moved_inputs =
      group.pathwise_greeks.empty() ? 0
      : model.type == config::ModelType::black_scholes && spot_and_vol_only
          ? models::kSpotAndVolInputs
          : models::kMovedInputs;
  if (group.greeks.size() > static_cast<std::size_t>(models::kMaxGreeks)) {
    throw config::ConfigError(
        config.file, config.simulation.greeks_mark, "simulation.greeks",
        "model '" + model.name + "' would take " + std::to_string(group.greeks.size()) +
            " Greeks an instrument (its " + std::to_string(N) +
            " underlyings' cross-gammas among them); at most " +
            std::to_string(models::kMaxGreeks) + " are supported: ask for fewer");
  }
  return {Scenario{nullptr, &config, 0.0}};
}

void plan_pathwise_model_data(const config::RunConfig& config, int model_index, GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  if (model.type == config::ModelType::local_vol) {
    plan_local_vol_pathwise_data(config, model_index, group);
    return;
  }
  const auto N = static_cast<std::size_t>(model.assets());
  const ModelData base = model_data(config, model, group.times, 0.0);
  const auto series = static_cast<std::size_t>(base.series);
  const double h = kTangentStep;
  // [moved input][series]: the derivative of each series of the model's step data
  // (Black-Scholes: drift[N], diffusion[N]; Heston: its 12 coefficients) by the asset's own vol,
  // the rates and valuation time.
  std::vector<std::vector<std::vector<double>>> moved(models::kMovedInputs);
  for (auto& m : moved)
    m.resize(series);
  // Heston: the vol also moves two constants, v0 and theta (its constants 1 and 3).
  double v0_tangent = 0.0, theta_tangent = 0.0;
  for (std::size_t a = 0; a < N; ++a) {
    const int asset = static_cast<int>(a);
    const config::RunConfig vol_up = bump_vol(config, model_index, asset, h);
    const config::RunConfig vol_down = bump_vol(config, model_index, asset, -h);
    const ModelData up =
        model_data(vol_up, vol_up.models[static_cast<std::size_t>(model_index)], group.times, 0.0);
    const ModelData down = model_data(
        vol_down, vol_down.models[static_cast<std::size_t>(model_index)], group.times, 0.0);
    if (model.type == config::ModelType::heston) {
      for (std::size_t k = 0; k < series; ++k)
        moved[0][k] = difference(up, down, k, h);
      v0_tangent = (up.constants[1] - down.constants[1]) / (2.0 * h);
      theta_tangent = (up.constants[3] - down.constants[3]) / (2.0 * h);
    } else { // asset a's own series
      moved[0][a] = difference(up, down, a, h);
      moved[0][N + a] = difference(up, down, N + a, h);
    }
  }
  {
    const ModelData up = model_data(bump_rates(config, h), model, group.times, 0.0);
    const ModelData down = model_data(bump_rates(config, -h), model, group.times, 0.0);
    for (std::size_t k = 0; k < series; ++k)
      moved[1][k] = difference(up, down, k, h);
  }
  {
    const ModelData later = model_data(config, model, group.times, h);
    const ModelData earlier = model_data(config, model, group.times, -h);
    for (std::size_t k = 0; k < series; ++k)
      moved[2][k] = difference(later, earlier, k, h);
  }
  const std::size_t steps = base.steps;
  group.step_series_count = static_cast<int>(series);
  group.model_data.clear();
  group.model_data.reserve(steps * series * (1 + models::kMovedInputs));
  for (std::size_t s = 0; s < steps; ++s) {
    for (std::size_t k = 0; k < series; ++k)
      group.model_data.push_back(base.at(k, s));
  }
  const double tangents_at = static_cast<double>(group.model_data.size());
  for (std::size_t s = 0; s < steps; ++s) {
    for (const auto& m : moved) {
      for (std::size_t k = 0; k < series; ++k)
        group.model_data.push_back(m[k][s]);
    }
  }
  group.model_constants = {tangents_at};
  if (model.type == config::ModelType::heston) {
    // models::PathwiseHeston: {.., ln S0, 1 / S0, Heston's v0 .. scheme, d v0, d theta by vol}.
    group.model_constants.push_back(base.constants[0]);
    group.model_constants.push_back(1.0 / spot_of(config, model, 0));
    group.model_constants.insert(group.model_constants.end(), base.constants.begin() + 1,
                                 base.constants.end());
    group.model_constants.push_back(v0_tangent);
    group.model_constants.push_back(theta_tangent);
    return;
  }
  // models::PathwiseBlackScholes: {.., ln S0[N], 1 / S0[N], L row by row (one 1 for a single
  // asset)}.
  for (std::size_t a = 0; a < N; ++a)
    group.model_constants.push_back(base.constants[a]);
  for (std::size_t a = 0; a < N; ++a)
    group.model_constants.push_back(1.0 / spot_of(config, model, static_cast<int>(a)));
  if (N == 1) {
    group.model_constants.push_back(1.0);
  } else {
    group.model_constants.insert(group.model_constants.end(),
                                 base.constants.begin() + static_cast<std::ptrdiff_t>(N),
                                 base.constants.end());
  }
}

void set_smoothing(models::InstrumentView& view) {
  view.payoff_smoothing = kJumpSmoothing * std::fabs(view.strike);
  const bool basket_level = view.kind == models::PayoffKind::basket;
  view.knock_smoothing =
      basket_level ? kJumpSmoothing * std::max(std::fabs(view.knock_level), 1.0) : kJumpSmoothing;
}

void pathwise_discount_tangents(const config::RunConfig& config, double maturity,
                                double (&tangents)[2]) {
  const double h = kTangentStep;
  const config::TermStructure& curve = config.market.zero_rates;
  config::TermStructure up = curve, down = curve; // as bump_rates moves them
  for (double& z : up.values)
    z += h;
  for (double& z : down.values)
    z -= h;
  tangents[0] = (discount_factor(up, maturity) - discount_factor(down, maturity)) / (2.0 * h);
  // Valuation moved forward by h: the maturity is h nearer.
  tangents[1] =
      (discount_factor(curve, maturity - h) - discount_factor(curve, maturity + h)) / (2.0 * h);
}

} // namespace pfmc::engine::plan_detail
