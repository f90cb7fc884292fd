#include "config/run_config.hpp"

namespace pfmc::config {

// Every switch below lists all enumerators and has no default, so -Wall (-Wswitch) reports an
// enumerator added to run_config.hpp without a spelling here. The trailing returns only
// satisfy the compiler for values outside the enum.

const char* to_string(ModelType type) {
  switch (type) {
  case ModelType::black_scholes:
    return "black_scholes";
  case ModelType::heston:
    return "heston";
  case ModelType::local_vol:
    return "local_vol";
  case ModelType::multi_black_scholes:
    return "multi_black_scholes";
  }
  return "unknown";
}

const char* to_string(InstrumentType type) {
  switch (type) {
  case InstrumentType::european:
    return "european";
  case InstrumentType::digital:
    return "digital";
  case InstrumentType::asian:
    return "asian";
  case InstrumentType::barrier:
    return "barrier";
  case InstrumentType::basket:
    return "basket";
  }
  return "unknown";
}

const char* to_string(OptionType type) {
  switch (type) {
  case OptionType::call:
    return "call";
  case OptionType::put:
    return "put";
  }
  return "unknown";
}

const char* to_string(AverageType type) {
  switch (type) {
  case AverageType::arithmetic:
    return "arithmetic";
  case AverageType::geometric:
    return "geometric";
  }
  return "unknown";
}

const char* to_string(BarrierType type) {
  switch (type) {
  case BarrierType::up_and_in:
    return "up_and_in";
  case BarrierType::up_and_out:
    return "up_and_out";
  case BarrierType::down_and_in:
    return "down_and_in";
  case BarrierType::down_and_out:
    return "down_and_out";
  }
  return "unknown";
}

const char* to_string(ExerciseStyle style) {
  switch (style) {
  case ExerciseStyle::european:
    return "european";
  case ExerciseStyle::american:
    return "american";
  case ExerciseStyle::bermudan:
    return "bermudan";
  }
  return "unknown";
}

const char* to_string(BasketPayoff payoff) {
  switch (payoff) {
  case BasketPayoff::weighted:
    return "weighted";
  case BasketPayoff::max:
    return "max";
  case BasketPayoff::min:
    return "min";
  }
  return "unknown";
}

const char* to_string(HestonScheme scheme) {
  switch (scheme) {
  case HestonScheme::qe:
    return "qe";
  case HestonScheme::full_truncation:
    return "full_truncation";
  }
  return "unknown";
}

const char* to_string(Greek greek) {
  switch (greek) {
  case Greek::delta:
    return "delta";
  case Greek::gamma:
    return "gamma";
  case Greek::vega:
    return "vega";
  case Greek::rho:
    return "rho";
  case Greek::theta:
    return "theta";
  case Greek::cross_gamma:
    return "cross_gamma";
  case Greek::scenario_pnl:
    return "pnl";
  }
  return "unknown";
}

const char* to_string(ShiftKind kind) {
  switch (kind) {
  case ShiftKind::spot:
    return "spot";
  case ShiftKind::vol:
    return "vol";
  case ShiftKind::rate:
    return "rate";
  case ShiftKind::time:
    return "time";
  }
  return "unknown";
}

const char* to_string(ShiftMode mode) {
  switch (mode) {
  case ShiftMode::relative:
    return "relative";
  case ShiftMode::absolute:
    return "absolute";
  case ShiftMode::log:
    return "log";
  }
  return "unknown";
}

const char* to_string(QuoteCoordinate coordinate) {
  switch (coordinate) {
  case QuoteCoordinate::strike:
    return "strike";
  case QuoteCoordinate::log_moneyness:
    return "log_moneyness";
  case QuoteCoordinate::delta:
    return "delta";
  }
  return "unknown";
}

const char* to_string(RngType type) {
  switch (type) {
  case RngType::philox:
    return "philox";
  case RngType::mrg32k3a:
    return "mrg32k3a";
  case RngType::sobol:
    return "sobol";
  case RngType::scrambled_sobol:
    return "scrambled_sobol";
  }
  return "unknown";
}

const char* to_string(Precision precision) {
  switch (precision) {
  case Precision::float32:
    return "float";
  case Precision::float64:
    return "double";
  }
  return "unknown";
}

const char* to_string(MathProfile math) {
  switch (math) {
  case MathProfile::accurate:
    return "accurate";
  case MathProfile::fast:
    return "fast";
  }
  return "unknown";
}

const char* to_string(GreeksMethod method) {
  switch (method) {
  case GreeksMethod::automatic:
    return "auto";
  case GreeksMethod::bump:
    return "bump";
  case GreeksMethod::pathwise:
    return "pathwise";
  }
  return "unknown";
}

const char* to_string(DeviceChoice device) {
  switch (device) {
  case DeviceChoice::automatic:
    return "auto";
  case DeviceChoice::gpu:
    return "gpu";
  case DeviceChoice::cpu:
    return "cpu";
  }
  return "unknown";
}

std::string to_string(const DeviceList& devices) {
  switch (devices.kind) {
  case DeviceList::Kind::first:
    return "0";
  case DeviceList::Kind::all:
    return "all";
  case DeviceList::Kind::count:
    return std::to_string(devices.count);
  case DeviceList::Kind::list:
    break;
  }
  std::string out;
  for (int d : devices.ordinals)
    out += (out.empty() ? "" : ",") + std::to_string(d);
  return devices.ordinals.size() == 1 ? out + "," : out; // "2" alone would be a count
}

std::string to_string(const Padding& padding) {
  switch (padding.mode) {
  case Padding::Mode::automatic:
    return "auto";
  case Padding::Mode::none:
    return "none";
  case Padding::Mode::slot_major:
    return "slot_major";
  case Padding::Mode::fixed:
    return std::to_string(padding.amount);
  }
  return "unknown";
}

} // namespace pfmc::config
