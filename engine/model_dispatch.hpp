#pragma once
// Runtime enums → template arguments, for the engine's group runners (raft style: switch once,
// then everything below is templated).

#include <type_traits>

#include "config/run_config.hpp"
#include "engine/error.hpp"
#include "models/black_scholes.cuh"

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

/// Calls f(TypeTag<Model>) for the group's model in precision Real.
template <class Real, class F>
decltype(auto) dispatch_model(config::ModelType type, F&& f) {
  switch (type) {
  case config::ModelType::black_scholes:
    return f(TypeTag<models::BlackScholes<Real>>{});
  }
  throw LogicError("unknown model type");
}

} // namespace pfmc::engine
