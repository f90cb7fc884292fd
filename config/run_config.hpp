#pragma once
// RunConfig: a validated description of one pricing run, as read from YAML (see DESIGN.md).
//
// Everything in here has been checked by load_run_config(): strictly positive spots, strikes,
// vols and maturities, references resolved to indices, times sorted and inside (0, maturity].
// Later layers may rely on that and never re-validate the YAML.

#include <cstdint>
#include <string>
#include <vector>

#include "config/schedule.hpp"

namespace pfmc::config {

/// 1-based line and column of a value in its YAML file (0 when it did not come from a file).
struct SourceMark {
  int line = 0;
  int column = 0;
};

struct Underlying {
  std::string name;
  double spot = 0.0;
  double dividend_yield = 0.0; ///< continuous, annualised
  SourceMark mark;
};

/// A curve of values against year fractions: flat (one value, no tenors) or pillars with
/// linear interpolation (of zero rates, or of total variance for volatilities) and flat
/// extrapolation.
struct TermStructure {
  std::vector<double> tenors; ///< empty when flat; else strictly increasing, > 0
  std::vector<double> values; ///< one value when flat; else one per tenor
  [[nodiscard]] bool is_flat() const { return tenors.empty(); }
};

/// How a set of quotes places its options: by strike, by forward log-moneyness k = ln(K / F(T)),
/// or by forward call delta N(d1) (a desk's 25-delta), each turned into a strike with the
/// underlying's forward by engine/market's vol_quotes.
enum class QuoteCoordinate { strike, log_moneyness, delta };

/// One implied-vol quote: the Black vol of the European option at (expiry, strike).
struct VolQuoteConfig {
  double expiry = 0.0; ///< years, > 0
  /// The option's place as written, in its set's coordinate: a strike (> 0), a log-moneyness,
  /// or a call delta in (0, 1). Read strikes through engine/market's vol_quotes.
  double strike = 0.0;
  double vol = 0.0; ///< annual Black vol, in (0, 5]
  SourceMark mark;  ///< its vol's place in `ImpliedVols::file`
};

/// An underlying's implied-vol quotes (market.implied_vols), by expiry then strike, each
/// (expiry, strike) once.
struct ImpliedVols {
  std::string underlying;
  int underlying_index = -1; ///< into Market::underlyings
  std::string file;          ///< where they were read: the YAML file or a CSV file it names
  QuoteCoordinate coordinate = QuoteCoordinate::strike;
  std::vector<VolQuoteConfig> quotes;
};

struct Market {
  std::vector<Underlying> underlyings;
  TermStructure zero_rates;              ///< continuously compounded zero rates
  std::vector<ImpliedVols> implied_vols; ///< at most one set an underlying
};

enum class ModelType { black_scholes, heston, local_vol, multi_black_scholes };

/// Most underlyings of one multi_black_scholes model (the kernels are instantiated for 2..4).
inline constexpr int kMaxBasketAssets = 4;

enum class HestonScheme { qe, full_truncation }; ///< Andersen's QE, or full-truncation Euler

/// dv = kappa (theta - v) dt + xi sqrt(v) dW_v, d ln S = (r - q - v/2) dt + sqrt(v) dW_S,
/// d<W_S, W_v> = rho dt.
struct HestonParameters {
  double v0 = 0.0;    ///< initial variance, >= 0
  double kappa = 0.0; ///< mean reversion speed, > 0
  double theta = 0.0; ///< long-run variance, > 0
  double xi = 0.0;    ///< vol of variance, > 0
  double rho = 0.0;   ///< spot/variance correlation, in [-1, 1]
  HestonScheme scheme = HestonScheme::qe;
};

/// Dupire local volatility sigma(t, k) on a grid, k = ln(S / F(0, t)) the log forward moneyness
/// (F from spot, zero rates and dividend yield). Bilinear in (t, k), flat outside the grid.
struct LocalVolSurface {
  std::vector<double> times;             ///< strictly increasing, >= 0
  std::vector<double> log_moneyness;     ///< strictly increasing; at most kMaxSurfaceKnots
  std::vector<std::vector<double>> vols; ///< [times][log_moneyness], each > 0
};
inline constexpr int kMaxSurfaceKnots = 32;

struct ModelConfig {
  std::string name;
  ModelType type = ModelType::black_scholes;
  std::string underlying;    ///< single-asset models
  int underlying_index = -1; ///< into Market::underlyings (single-asset models)
  TermStructure volatility;  ///< black_scholes: Black implied vols (flat, or at tenors)
  HestonParameters heston;   ///< heston
  LocalVolSurface surface;   ///< local_vol
  /// local_vol with `surface: implied`: `surface` is built when the run is planned, by Dupire
  /// from the underlying's market.implied_vols (engine/market/dupire.hpp)
  bool surface_from_quotes = false;

  // multi_black_scholes: correlated GBMs with flat vols.
  std::vector<std::string> underlyings;
  std::vector<int> underlying_indices;          ///< into Market::underlyings
  std::vector<double> volatilities;             ///< one per underlying, > 0
  std::vector<std::vector<double>> correlation; ///< symmetric, unit diagonal, positive definite
  std::vector<std::vector<double>> cholesky;    ///< lower factor L, L L^T = correlation

  SourceMark mark;

  /// Number of assets the model simulates.
  [[nodiscard]] int assets() const {
    return type == ModelType::multi_black_scholes ? static_cast<int>(underlyings.size()) : 1;
  }
};

enum class InstrumentType { european, digital, asian, barrier, basket };
enum class OptionType { call, put };
enum class AverageType { arithmetic, geometric };
enum class BarrierType { up_and_in, up_and_out, down_and_in, down_and_out };
enum class BasketPayoff { weighted, max, min }; ///< Σ w_i S_i, max_i w_i S_i, min_i w_i S_i
/// When a call or put (a European or a basket) may be exercised: at maturity only; at every
/// step of its group's grid up to the maturity (american); on a schedule (bermudan). Early
/// exercise is priced by Longstaff-Schwartz (engine/plan/exercise.cpp, models/exercise.cuh).
enum class ExerciseStyle { european, american, bermudan };

struct InstrumentConfig {
  std::string id;
  InstrumentType type = InstrumentType::european;
  OptionType option = OptionType::call;
  double strike = 0.0;
  double maturity = 0.0;
  std::string model;
  int model_index = -1; ///< into RunConfig::models

  double cash = 1.0; ///< digital (cash-or-nothing) payout

  AverageType average = AverageType::arithmetic; ///< asian
  Schedule fixing_times;                         ///< asian: resolved list, increasing, last <= T

  /// A knock on the payoff: the `barrier` type (a European with one), or `knock:` on a
  /// European, digital, Asian or basket. The level is on the spot, or on a basket's level as
  /// its payoff combines the legs (Σ w S, max w S, min w S).
  bool knock = false;
  double barrier = 0.0; ///< knock level
  BarrierType barrier_type = BarrierType::down_and_out;
  double rebate = 0.0;       ///< paid at maturity when knocked out / never knocked in
  Schedule monitoring_times; ///< knock: resolved list, increasing, last <= T

  ExerciseStyle exercise = ExerciseStyle::european; ///< european and basket instruments
  /// bermudan: the exercise dates, increasing, in (0, T], the maturity always the last (it is
  /// added when the schedule stops short of it). american: empty (every step of the grid).
  Schedule exercise_times;

  BasketPayoff basket = BasketPayoff::weighted; ///< basket (on a multi_black_scholes model)
  std::vector<double> weights; ///< basket: one per model underlying (default: 1/n weighted,
                               ///< 1 for max/min)

  SourceMark mark;
};

struct Position {
  std::string instrument;
  int instrument_index = -1; ///< into RunConfig::instruments
  double quantity = 0.0;
  SourceMark mark;
};

enum class RngType { philox, mrg32k3a, sobol, scrambled_sobol };
enum class Precision { float32, float64 }; ///< spelled "float" and "double" in YAML
/// How the path kernels compute: `accurate` (Philox4x32-10 and accurate transcendentals) or
/// `fast` (opt-in: Philox4x32-7 and the GPU's approximate exp/log in float). docs/guide.md,
/// "Math profiles".
enum class MathProfile { accurate, fast };

/// How the Greeks are estimated: `bump` (bump-and-revalue on common random numbers, a copy of the
/// model per bumped scenario), `pathwise` (forward tangents of the path, engine/plan/pathwise.cpp;
/// early exercise's with its rule held fixed; refused where an instrument exercising early is
/// asked for gamma), `auto` (pathwise where the group allows it, else bump; bumps for
/// full-truncation Heston's vega and theta).
enum class GreeksMethod { automatic, bump, pathwise };

/// In this order in every output. cross_gamma: a basket's d²V / dS_a dS_b for each pair a < b of
/// its underlyings (pathwise only: engine/plan/pathwise.cpp); none for a single underlying.
/// scenario_pnl: not a Greek a config asks for — a risk scenario's P&L against the base market
/// (RunConfig::priced_shifts), estimated per path like a bumped Greek; kGreekCount leaves it out.
enum class Greek { delta, gamma, vega, rho, theta, cross_gamma, scenario_pnl };
inline constexpr int kGreekCount = 6;

struct SimulationConfig {
  std::uint64_t paths = 100000;
  /// Uniform grid steps per year, on top of the dates the instruments need. 0: the event grid,
  /// only those dates (maturities, fixings, monitoring dates) — exact for models that step
  /// exactly over any interval, refused at planning for the others.
  int steps_per_year = 252;
  std::uint64_t seed = 42;
  RngType rng = RngType::philox;
  Precision precision = Precision::float64;
  MathProfile math = MathProfile::accurate;
  GreeksMethod greeks_method = GreeksMethod::automatic;
  /// Paths in pairs (z, -z); paths must be even. Standard errors come from pair averages.
  bool antithetic = false;
  /// Control variates (geometric Asian for arithmetic Asians, discounted terminal spot for
  /// Europeans) with the estimated optimal coefficient.
  bool control_variate = false;
  /// Brownian-bridge path construction: -1 auto (on for Sobol generators), 0 off, 1 on.
  int brownian_bridge = -1;
  /// Whether the run builds its paths by Brownian bridge (resolving `auto`).
  [[nodiscard]] bool uses_brownian_bridge() const {
    return brownian_bridge < 0 ? rng == RngType::sobol || rng == RngType::scrambled_sobol
                               : brownian_bridge == 1;
  }
  /// Independent randomisations (random digital shifts) of a scrambled_sobol run: the standard
  /// error comes from their spread. 0: the default (16). Plain sobol always uses 1 (no error).
  int replicates = 0;
  std::vector<Greek> greeks; ///< distinct, in kGreek order
  /// Early exercise (Longstaff-Schwartz): paths of the regression pass, which fits the exercise
  /// rule on paths of their own before the priced paths use it. 0: as many as `paths`.
  std::uint64_t regression_paths = 0;
  /// The regression's polynomial degree: in the exercise level alone, or on Heston in the level
  /// and the variance (every monomial of total degree <= this).
  int regression_degree = 3;
  /// The regression's path count, resolving 0.
  [[nodiscard]] std::uint64_t resolved_regression_paths() const {
    return regression_paths > 0 ? regression_paths : paths;
  }
  /// Where `steps_per_year` was set: planning refuses the event grid for some models, after
  /// loading, and must still name the line.
  SourceMark steps_per_year_mark;
  /// Where `greeks` was set: planning refuses some Greeks for some groups and names the line.
  SourceMark greeks_mark;
};

// ---- risk (issue 61): moves of today's market, priced on the base run's draws --------------

enum class ShiftKind { spot, vol, rate, time };
/// relative: x · (1 + a); absolute: x + a; log (spots of a historical file): x · exp(a).
enum class ShiftMode { relative, absolute, log };

/// One move of the market. amount: a fraction (relative, log), spot units (an absolute spot
/// move), a vol (an absolute vol move: each model's vol as the Greeks' vega moves it), a
/// decimal rate (every zero rate), years of valuation time passing (time).
struct Move {
  ShiftKind kind = ShiftKind::spot;
  ShiftMode mode = ShiftMode::relative;
  /// Underlying indices (spot) or model indices (vol); empty: every one. Unused for rate, time.
  std::vector<int> targets;
  double amount = 0.0;
};

/// A scenario: its id and its moves, applied in order to today's market.
struct MarketShift {
  std::string name;
  std::vector<Move> moves;
  std::string where; ///< where it was written ("file:line"), for errors about its market
};

/// risk.ladders[i]: one kind of move at each of its points (amounts in Move's units).
struct RiskLadder {
  std::string name;
  ShiftKind kind = ShiftKind::spot;
  ShiftMode mode = ShiftMode::relative;
  std::vector<int> targets;
  std::vector<double> points;
  /// The points as written (bp for rate, days for time, else the amount), for reports.
  std::vector<double> written;
  SourceMark mark;
};

/// risk.historical: a file of dated daily moves; VaR and expected shortfall of the portfolio.
struct HistoricalRisk {
  std::string file;
  std::vector<std::string> dates; ///< one a day, increasing
  std::vector<MarketShift> days;  ///< each day's moves, the same targets in the same order
  std::vector<double> levels{0.99, 0.975};
  int horizon = 1; ///< days: moves summed over overlapping windows of this many days
};

struct RiskConfig {
  bool present = false; ///< the config has a `risk:` block
  std::vector<RiskLadder> ladders;
  /// Two ladders' indices whose product is priced too (-1: no grid).
  int grid_first = -1;
  int grid_second = -1;
  std::vector<MarketShift> scenarios; ///< named scenarios (risk.scenarios, a CSV file)
  bool has_historical = false;
  HistoricalRisk historical;
  bool per_instrument = false; ///< report each instrument's P&L too
  SourceMark mark;
};

enum class DeviceChoice { automatic, gpu, cpu }; ///< spelled auto | gpu | cpu

/// Shared-memory ring padding: `auto` (PDIST + PAD = 2^k + 1), `none`, a fixed number of
/// elements, or the slot-major layout (v[slot * BLOCK + tid]), which needs no padding.
struct Padding {
  enum class Mode { automatic, none, fixed, slot_major };
  Mode mode = Mode::automatic;
  int amount = 0; ///< for Mode::fixed
};

/// engine.devices: the GPUs of the host a run splits its paths over (engine/scale/).
struct DeviceList {
  enum class Kind {
    first, ///< device 0 alone (the default)
    all,   ///< every GPU of the host
    count, ///< the first `count`
    list,  ///< `ordinals`, in order; a device may repeat (the same GPU twice, for testing)
  };
  Kind kind = Kind::first;
  int count = 1;
  std::vector<int> ordinals;
};
/// At most this many devices, and ordinals below it.
inline constexpr int kMaxDevices = 64;

/// engine.unit_groups's default: the host builds a unit's device state and launch table while
/// the GPU runs the unit before it; the 8,192-group book as one unit waited 3.6 ms for its
/// kernels after 4.4 ms of such host work. Each launch costs its ramp and tail (H200: the book's
/// kernels 3.64 ms in one launch, 3.70 in 4, 3.81 in 8, 4.00 in 16; end to end 4 and 8 alike, both
/// 4-5 ms faster than 1: docs/decisions.md#computing-units).
inline constexpr int kDefaultUnitGroups = 2048;

struct EngineConfig {
  DeviceChoice device = DeviceChoice::automatic;
  DeviceList devices;
  std::string backend = "auto"; ///< a catalogue name, or `auto` (the tuner's choice)
  int prefetch_distance = 4;
  Padding padding;
  int block_size = 128;                ///< threads per block; power of two, 32..1024
  std::uint64_t max_device_memory = 0; ///< bytes; 0 = a safe fraction of free memory
  int cpu_threads = 0;                 ///< CPU backend threads; 0 = all hardware threads
  /// Groups whose draws fit share one generation call and one launch up to this many bytes of
  /// draws (engine/draws/draw_plan.hpp); 0: none do. Part of what fixes the draws, like the seed.
  std::uint64_t draw_batch_size = std::uint64_t(256) << 20;
  // Which kernel runs and how a run is cut, beyond the backend: the same bits whichever (the GPU
  // suite compares both sides of each); each has an environment variable that the front ends
  // read once as an override (config/overrides.hpp, apply_environment).
  /// Launches whose every group is one step to maturity take the terminal instantiation where
  /// the kernel has one (kernels/launcher_table.cuh); false: the whole kernel.
  bool terminal_kernels = true;
  /// Blocks of paths each thread block of a terminal launch works through; 0: the launch's own
  /// choice (kernels::terminal_blocks_per_cta).
  int terminal_blocks_per_cta = 0;
  /// Every path kernel compiled on first use by NVRTC, those built into the binary too.
  bool compile_at_runtime = false;
  /// At most this many groups of a run that computes its draws in one unit of launches
  /// (engine/draws/draw_plan.hpp); 0: no limit.
  int unit_groups = kDefaultUnitGroups;
  SourceMark backend_mark; ///< where `backend` was set (for registry errors)
};

struct RunConfig {
  std::string file; ///< the YAML file it was read from
  Market market;
  std::vector<ModelConfig> models;
  std::vector<InstrumentConfig> instruments;
  std::vector<Position> portfolio; ///< may be empty: then no portfolio value is reported
  SimulationConfig simulation;
  EngineConfig engine;
  RiskConfig risk;
  /// Scenarios priced beside the base market on its draws, each with its P&L's own standard
  /// error (engine/plan/scenarios.cpp): set by engine/risk a pass at a time, never from YAML.
  std::vector<MarketShift> priced_shifts;
};

// Spelling of enums as in the YAML and the outputs.
const char* to_string(ModelType);
const char* to_string(InstrumentType);
const char* to_string(OptionType);
const char* to_string(AverageType);
const char* to_string(BarrierType);
const char* to_string(BasketPayoff);
const char* to_string(ExerciseStyle);
const char* to_string(HestonScheme);
const char* to_string(Greek);
const char* to_string(ShiftKind);       ///< spot | vol | rate | time
const char* to_string(ShiftMode);       ///< relative | absolute | log
const char* to_string(QuoteCoordinate); ///< strike | log_moneyness | delta
const char* to_string(RngType);
const char* to_string(Precision);
const char* to_string(MathProfile);
const char* to_string(GreeksMethod); ///< "auto" | "bump" | "pathwise"
const char* to_string(DeviceChoice);
std::string to_string(const Padding&);
std::string to_string(const DeviceList&); ///< all | N | 0,2

} // namespace pfmc::config
