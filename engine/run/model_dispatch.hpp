#pragma once
// Runtime enums → template arguments, for the engine's group runners (raft style: switch once,
// then everything below is templated).

#include <type_traits>
#include <utility>

#include "config/run_config.hpp"
#include "kernels/error.hpp"
#include "engine/plan/plan.hpp"
#include "models/black_scholes.cuh"
#include "models/heston.cuh"
#include "models/local_vol.cuh"
#include "models/multi_black_scholes.cuh"
#include "models/scenarios.cuh"

namespace pfmc::engine {

template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<float>) or f(TypeTag<double>).
template <class F>
decltype(auto) dispatch_precision(config::Precision precision, F&& f) {
  if (precision == config::Precision::float32)
    return f(TypeTag<float>{});
  return f(TypeTag<double>{});
}

/// Calls f(TypeTag<Model>) for a model type (single-asset models; multi_black_scholes with
/// `assets` assets), plain or wrapped in the Greeks' Scenarios, in precision Real. Every
/// combination reached here has kernels (kernels/instantiate_*.cu).
template <class Real, class F>
decltype(auto) dispatch_model(config::ModelType type, int assets, bool scenarios, F&& f) {
  auto with = [&](auto tag) -> decltype(auto) {
    using Model = typename decltype(tag)::type;
    if constexpr (Model::assets == 1 && std::is_same_v<Real, double>) {
      if (scenarios)
        return f(TypeTag<models::Scenarios<Model>>{});
    }
    if (scenarios)
      throw LogicError("Greeks kernels exist for single-asset models in double only");
    return f(TypeTag<Model>{});
  };
  switch (type) {
  case config::ModelType::black_scholes:
    return with(TypeTag<models::BlackScholes<Real>>{});
  case config::ModelType::heston:
    return with(TypeTag<models::Heston<Real>>{});
  case config::ModelType::local_vol:
    return with(TypeTag<models::LocalVol<Real>>{});
  case config::ModelType::multi_black_scholes:
    if (assets == 2)
      return with(TypeTag<models::MultiBlackScholes<Real, 2>>{});
    if (assets == 3)
      return with(TypeTag<models::MultiBlackScholes<Real, 3>>{});
    if (assets == 4)
      return with(TypeTag<models::MultiBlackScholes<Real, 4>>{});
    break;
  }
  throw LogicError("no kernels for this model");
}

/// The same for a planned group.
template <class Real, class F>
decltype(auto) dispatch_model(const GroupPlan& group, F&& f) {
  return dispatch_model<Real>(group.model_type, group.assets, group.scenarios > 1,
                              std::forward<F>(f));
}

} // namespace pfmc::engine
