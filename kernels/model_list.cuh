#pragma once
// The one list of what the path kernels are instantiated for: each entry is a (model, precision)
// with its prefetch distances, and becomes a pair of kernel modules (its `common` and
// `prefetch` launcher tables, kernels/launcher_table.cuh). Everything else follows from it:
//  - CMakeLists.txt reads the entry names below (one `X(name, ...)` per line) and generates
//    kernels/instantiate_<name>_{common,prefetch}.cu in the build folder;
//  - the launcher tables are declared for each entry (kernels/launcher_table.cuh);
//  - engine/run/model_dispatch.hpp maps a planned group's (model type, assets, scenarios,
//    precision) to the entry's type.
// Adding a model: its header in models/, its step data (engine/plan/), one line here.
//
// X(name, config::ModelType enumerator, assets, Greeks scenarios, Real, (model type), distances)
//   assets      1 for single-asset models
//   scenarios   true: the Greeks' wrapper models::Scenarios<...> (8 copies of a single-asset
//               model; 4n + 4 of an n-asset basket, for per-underlying Greeks)
//   model type  its last template argument the math profile (models/math.cuh; Accurate when
//               left out): the `_fast` entries are `simulation.math: fast`'s, compiled on first
//               use only (kernels/ahead_of_time.hpp), the Greeks' scenario kernels accurate only;
//               the `pathwise_` entries (scenarios false) are the pathwise Greeks' tangent
//               models (models/pathwise*.cuh), which the planner
//               picks for a group whose Greeks it takes pathwise (engine/plan/pathwise.cpp);
//               `pathwise_spot_vol_`: its paths carry the spots' and the vols' tangents only,
//               for a run without rho or theta (GroupPlan::pathwise_moved_inputs)
//   distances   the prefetch matrix's distances the tuner tries and PFMC_KERNELS=all builds
//               ahead (every distance of kernels/catalog.hpp serves a run that asks for it,
//               compiled on first use): a DistanceSequence of kernels/catalog.hpp's lists, or
//               NoPrefetchMatrix: the common module's backends alone (the baskets' Greeks: 12 to
//               20 model copies a path, whose prefetch matrix would cost more than it could
//               pay; the tuner takes the common module's default for them)

#include <cstddef>
#include <iterator>
#include <utility>

#include "kernels/catalog.hpp"
#include "models/black_scholes.cuh"
#include "models/heston.cuh"
#include "models/local_vol.cuh"
#include "models/multi_black_scholes.cuh"
#include "models/pathwise.cuh"
#include "models/pathwise_heston.cuh"
#include "models/pathwise_local_vol.cuh"
#include "models/scenarios.cuh"

// clang-format off
#define PFMC_KERNEL_MODELS(X)                                                                                           \
  X(black_scholes_f32, black_scholes, 1, false, float, (models::BlackScholes<float>), DistanceSequence<kPrefetchDistances>)       \
  X(black_scholes_f64, black_scholes, 1, false, double, (models::BlackScholes<double>), DistanceSequence<kPrefetchDistances>)     \
  X(heston_f32, heston, 1, false, float, (models::Heston<float>), DistanceSequence<kReducedPrefetchDistances>)                    \
  X(heston_f64, heston, 1, false, double, (models::Heston<double>), DistanceSequence<kReducedPrefetchDistances>)                 \
  X(local_vol_f32, local_vol, 1, false, float, (models::LocalVol<float>), DistanceSequence<kReducedPrefetchDistances>)           \
  X(local_vol_f64, local_vol, 1, false, double, (models::LocalVol<double>), DistanceSequence<kReducedPrefetchDistances>)          \
  X(multi2_f32, multi_black_scholes, 2, false, float, (models::MultiBlackScholes<float, 2>), DistanceSequence<kReducedPrefetchDistances>)   \
  X(multi2_f64, multi_black_scholes, 2, false, double, (models::MultiBlackScholes<double, 2>), DistanceSequence<kReducedPrefetchDistances>) \
  X(multi3_f32, multi_black_scholes, 3, false, float, (models::MultiBlackScholes<float, 3>), DistanceSequence<kReducedPrefetchDistances>)   \
  X(multi3_f64, multi_black_scholes, 3, false, double, (models::MultiBlackScholes<double, 3>), DistanceSequence<kReducedPrefetchDistances>) \
  X(multi4_f32, multi_black_scholes, 4, false, float, (models::MultiBlackScholes<float, 4>), DistanceSequence<kReducedPrefetchDistances>)   \
  X(multi4_f64, multi_black_scholes, 4, false, double, (models::MultiBlackScholes<double, 4>), DistanceSequence<kReducedPrefetchDistances>) \
  X(black_scholes_f32_fast, black_scholes, 1, false, float, (models::BlackScholes<float, math::Fast>), DistanceSequence<kPrefetchDistances>)   \
  X(black_scholes_f64_fast, black_scholes, 1, false, double, (models::BlackScholes<double, math::Fast>), DistanceSequence<kPrefetchDistances>) \
  X(heston_f32_fast, heston, 1, false, float, (models::Heston<float, math::Fast>), DistanceSequence<kReducedPrefetchDistances>)                \
  X(heston_f64_fast, heston, 1, false, double, (models::Heston<double, math::Fast>), DistanceSequence<kReducedPrefetchDistances>)             \
  X(local_vol_f32_fast, local_vol, 1, false, float, (models::LocalVol<float, math::Fast>), DistanceSequence<kReducedPrefetchDistances>)       \
  X(local_vol_f64_fast, local_vol, 1, false, double, (models::LocalVol<double, math::Fast>), DistanceSequence<kReducedPrefetchDistances>)    \
  X(multi2_f32_fast, multi_black_scholes, 2, false, float, (models::MultiBlackScholes<float, 2, math::Fast>), DistanceSequence<kReducedPrefetchDistances>)   \
  X(multi2_f64_fast, multi_black_scholes, 2, false, double, (models::MultiBlackScholes<double, 2, math::Fast>), DistanceSequence<kReducedPrefetchDistances>) \
  X(multi3_f32_fast, multi_black_scholes, 3, false, float, (models::MultiBlackScholes<float, 3, math::Fast>), DistanceSequence<kReducedPrefetchDistances>)   \
  X(multi3_f64_fast, multi_black_scholes, 3, false, double, (models::MultiBlackScholes<double, 3, math::Fast>), DistanceSequence<kReducedPrefetchDistances>) \
  X(multi4_f32_fast, multi_black_scholes, 4, false, float, (models::MultiBlackScholes<float, 4, math::Fast>), DistanceSequence<kReducedPrefetchDistances>)   \
  X(multi4_f64_fast, multi_black_scholes, 4, false, double, (models::MultiBlackScholes<double, 4, math::Fast>), DistanceSequence<kReducedPrefetchDistances>) \
  X(greeks_black_scholes_f64, black_scholes, 1, true, double, (models::Scenarios<models::BlackScholes<double>>), DistanceSequence<kScenarioPrefetchDistances>) \
  X(greeks_heston_f64, heston, 1, true, double, (models::Scenarios<models::Heston<double>>), DistanceSequence<kScenarioPrefetchDistances>)                   \
  X(greeks_local_vol_f64, local_vol, 1, true, double, (models::Scenarios<models::LocalVol<double>>), DistanceSequence<kScenarioPrefetchDistances>)        \
  X(greeks_multi2_f64, multi_black_scholes, 2, true, double, (models::Scenarios<models::MultiBlackScholes<double, 2>>), NoPrefetchMatrix) \
  X(greeks_multi3_f64, multi_black_scholes, 3, true, double, (models::Scenarios<models::MultiBlackScholes<double, 3>>), NoPrefetchMatrix) \
  X(greeks_multi4_f64, multi_black_scholes, 4, true, double, (models::Scenarios<models::MultiBlackScholes<double, 4>>), NoPrefetchMatrix) \
  X(pathwise_black_scholes_f64, black_scholes, 1, false, double, (models::PathwiseBlackScholes<double, 1>), NoPrefetchMatrix)     \
  X(pathwise_multi2_f64, multi_black_scholes, 2, false, double, (models::PathwiseBlackScholes<double, 2>), NoPrefetchMatrix)       \
  X(pathwise_multi3_f64, multi_black_scholes, 3, false, double, (models::PathwiseBlackScholes<double, 3>), NoPrefetchMatrix)       \
  X(pathwise_multi4_f64, multi_black_scholes, 4, false, double, (models::PathwiseBlackScholes<double, 4>), NoPrefetchMatrix)     \
  X(pathwise_black_scholes_f32, black_scholes, 1, false, float, (models::PathwiseBlackScholes<float, 1>), NoPrefetchMatrix)       \
  X(pathwise_spot_vol_black_scholes_f64, black_scholes, 1, false, double, (models::PathwiseBlackScholes<double, 1, models::kSpotAndVolInputs>), NoPrefetchMatrix) \
  X(pathwise_spot_vol_black_scholes_f32, black_scholes, 1, false, float, (models::PathwiseBlackScholes<float, 1, models::kSpotAndVolInputs>), NoPrefetchMatrix) \
  X(pathwise_multi2_f32, multi_black_scholes, 2, false, float, (models::PathwiseBlackScholes<float, 2>), NoPrefetchMatrix)         \
  X(pathwise_multi3_f32, multi_black_scholes, 3, false, float, (models::PathwiseBlackScholes<float, 3>), NoPrefetchMatrix)         \
  X(pathwise_multi4_f32, multi_black_scholes, 4, false, float, (models::PathwiseBlackScholes<float, 4>), NoPrefetchMatrix)         \
  X(pathwise_heston_f64, heston, 1, false, double, (models::PathwiseHeston<double>), NoPrefetchMatrix)                              \
  X(pathwise_heston_f32, heston, 1, false, float, (models::PathwiseHeston<float>), NoPrefetchMatrix) \
  X(pathwise_local_vol_f64, local_vol, 1, false, double, (models::PathwiseLocalVol<double>), NoPrefetchMatrix) \
  X(pathwise_local_vol_f32, local_vol, 1, false, float, (models::PathwiseLocalVol<float>), NoPrefetchMatrix)
// clang-format on

namespace pfmc::kernels {

/// A compile-time list of distances, from one of kernels/catalog.hpp's arrays.
template <const auto& Distances, std::size_t... I>
constexpr auto distance_sequence(std::index_sequence<I...>) {
  return std::integer_sequence<int, Distances[I]...>{};
}
template <const auto& Distances>
using DistanceSequence =
    decltype(distance_sequence<Distances>(std::make_index_sequence<std::size(Distances)>{}));
/// No prefetch matrix: the entry's kernels are its common module's.
using NoPrefetchMatrix = std::integer_sequence<int>;

/// `T` of a parenthesised type `(T)`: the list's model types may hold commas.
template <class Parenthesised>
struct UnparenthesisedType;
template <class T>
struct UnparenthesisedType<void(T)> {
  using type = T;
};

/// One struct per entry, named as the entry: its model type, precision and distances.
namespace model_entries {
#define PFMC_KERNEL_MODEL_ENTRY(NAME, TYPE, ASSETS, SCENARIOS, REAL, MODEL, DISTANCES)             \
  struct NAME {                                                                                    \
    using Model = typename UnparenthesisedType<void MODEL>::type;                                  \
    using Real = REAL;                                                                             \
    using Distances = DISTANCES;                                                                   \
    static constexpr int assets = ASSETS;                                                          \
    static constexpr bool scenarios = SCENARIOS;                                                   \
  };
PFMC_KERNEL_MODELS(PFMC_KERNEL_MODEL_ENTRY)
#undef PFMC_KERNEL_MODEL_ENTRY
} // namespace model_entries

} // namespace pfmc::kernels
