#pragma once
// Bump-and-revalue on common random numbers, inside one path: Scenarios<Model, S> simulates S
// copies of Model (the base market and its bumped variants: spot, volatility, rates, time) on
// the SAME draws, one thread each path, so that every Greek's per-path estimate — a fixed
// combination of the scenarios' discounted payoffs (engine/plan/plan.hpp) — comes with its own
// sample variance, hence a standard error.
//
// To the path machinery it is just another model: S × Model::assets assets (scenario s's asset
// a is asset s · Model::assets + a), so observations and instruments are planned once per
// scenario with shifted asset indices, and every loader drives it unchanged.

#include <type_traits>

#include "models/math.cuh"

namespace pfmc::models {

template <class Model, class = void>
inline constexpr bool kIsScenarios = false;
/// Scenarios<...> (below) names the model it copies as Base.
template <class Model>
inline constexpr bool kIsScenarios<Model, std::void_t<typename Model::Base>> = true;

/// Scenarios of one Greek run on a single-asset model: base, spot up/down, vol up/down, rate
/// up/down, time.
inline constexpr int kSingleAssetScenarios = 8;
/// ... on a model of `assets` assets: base, each spot up/down, each vol up/down, rate up/down,
/// time (per-underlying delta, gamma and vega).
constexpr int scenarios_for_assets(int assets) {
  return assets == 1 ? kSingleAssetScenarios : 4 * assets + 4;
}
/// The most scenarios of any model (a 4-asset basket).
inline constexpr int kMaxScenarios = scenarios_for_assets(4);

template <class Model, int S = scenarios_for_assets(Model::assets)>
struct Scenarios {
  using Base = Model;
  using Math = typename Model::Math;
  static constexpr int factors = Model::factors;
  static constexpr int assets = Model::assets * S;

  struct Params {
    typename Model::Params scenario[S];
    int count; ///< scenarios in use (<= S); the rest are not simulated
  };

  /// model_data: the S scenarios' data blocks, each `block` values; constants: {count, block,
  /// per-scenario constant count m, then count blocks of m constants}.
  template <class Real>
  static Params make_params(const Real* model_data, const double* c) {
    Params p{};
    p.count = static_cast<int>(c[0]);
    const auto block = static_cast<long long>(c[1]);
    const int m = static_cast<int>(c[2]);
    for (int s = 0; s < S; ++s) {
      const int k = s < p.count ? s : 0; // unused scenarios alias the base
      p.scenario[s] = Model::make_params(model_data + k * block, c + 3 + k * m);
    }
    return p;
  }

  struct State {
    typename Model::State scenario[S];
  };

  PFMC_HD_INLINE static State initial(const Params& p) {
    State s;
    PFMC_UNROLL
    for (int k = 0; k < S; ++k)
      s.scenario[k] = Model::initial(p.scenario[k]);
    return s;
  }

  /// A loop, not unrolled: one copy of the model's step in the code (unrolled, eight Heston QE
  /// steps per step — times four in a loader's batch — took ptxas over six minutes a file).
  /// The scenarios' states and parameters are then indexed at run time and live in local
  /// memory (L1): Greek runs trade speed for one kernel that prices every bump on one set of
  /// draws.
  template <class Real>
  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    PFMC_NO_UNROLL
    for (int k = 0; k < p.count; ++k) // uniform across the launch
      Model::advance(s.scenario[k], p.scenario[k], step, z);
  }

  PFMC_HD_INLINE static auto log_spot(const State& s, int asset) {
    return Model::log_spot(s.scenario[asset / Model::assets], asset % Model::assets);
  }
  /// Where the model has a variance (Heston): scenario asset's.
  template <class M = Model>
  PFMC_HD_INLINE static auto variance(const State& s, int asset)
      -> decltype(M::variance(s.scenario[0], 0)) {
    return Model::variance(s.scenario[asset / Model::assets], asset % Model::assets);
  }

  /// The base scenario alone (early exercise's regression pass fits its rule on it).
  static void keep_base_scenario(Params& p) { p.count = 1; }
};

/// Params simulate only their base scenario: a no-op for a plain model.
template <class Model>
void keep_base_scenario(typename Model::Params& p) {
  if constexpr (kIsScenarios<Model>) {
    Model::keep_base_scenario(p);
  } else {
    (void)p;
  }
}

} // namespace pfmc::models
