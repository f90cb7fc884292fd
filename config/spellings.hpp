#pragma once
// Every value a config's choice keys accept, in the order messages list them: the loader reads
// with these arrays (each spelled by run_config.hpp's to_string) and the config reference
// (config/key_reference.hpp, `pfmc schema`) lists them, so a value has one home.

#include <array>
#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace pfmc::config::spellings {

inline constexpr std::array<ModelType, 4> kModelTypes = {ModelType::black_scholes,
                                                         ModelType::heston, ModelType::local_vol,
                                                         ModelType::multi_black_scholes};
inline constexpr std::array<HestonScheme, 2> kHestonSchemes = {HestonScheme::qe,
                                                               HestonScheme::full_truncation};
inline constexpr std::array<InstrumentType, 5> kInstrumentTypes = {
    InstrumentType::european, InstrumentType::digital, InstrumentType::asian,
    InstrumentType::barrier, InstrumentType::basket};
inline constexpr std::array<OptionType, 2> kOptionTypes = {OptionType::call, OptionType::put};
inline constexpr std::array<AverageType, 2> kAverageTypes = {AverageType::arithmetic,
                                                             AverageType::geometric};
inline constexpr std::array<BarrierType, 4> kBarrierTypes = {
    BarrierType::up_and_in, BarrierType::up_and_out, BarrierType::down_and_in,
    BarrierType::down_and_out};
inline constexpr std::array<BasketPayoff, 3> kBasketPayoffs = {
    BasketPayoff::weighted, BasketPayoff::max, BasketPayoff::min};
inline constexpr std::array<ExerciseStyle, 3> kExerciseStyles = {
    ExerciseStyle::european, ExerciseStyle::american, ExerciseStyle::bermudan};
inline constexpr std::array<ShiftKind, 4> kShiftKinds = {ShiftKind::spot, ShiftKind::vol,
                                                         ShiftKind::rate, ShiftKind::time};
inline constexpr std::array<ShiftMode, 2> kLadderModes = {ShiftMode::relative, ShiftMode::absolute};
inline constexpr std::array<RngType, 4> kRngs = {RngType::philox, RngType::mrg32k3a, RngType::sobol,
                                                 RngType::scrambled_sobol};
inline constexpr std::array<Precision, 2> kPrecisions = {Precision::float32, Precision::float64};
inline constexpr std::array<MathProfile, 2> kMathProfiles = {MathProfile::accurate,
                                                             MathProfile::fast};
inline constexpr std::array<GreeksMethod, 3> kGreeksMethods = {
    GreeksMethod::automatic, GreeksMethod::bump, GreeksMethod::pathwise};
inline constexpr std::array<DeviceChoice, 3> kDevices = {DeviceChoice::automatic, DeviceChoice::gpu,
                                                         DeviceChoice::cpu};

/// The spellings of `values`, in order.
template <class Enum, std::size_t N>
std::vector<std::string> of(const std::array<Enum, N>& values) {
  std::vector<std::string> result;
  for (Enum v : values)
    result.emplace_back(to_string(v));
  return result;
}

} // namespace pfmc::config::spellings
