#pragma once
// One-step terminal groups (a book of short-dated Europeans): which groups are, their step
// function, their lean passes (the same bits as the path kernel's general loop) and how the
// terminal instantiation spreads its blocks of paths and caps its registers.

#include <cstdint>
#include <type_traits>

#include "kernels/loader_common.cuh"
#include "kernels/path/leaves.cuh"
#include "kernels/path/params.cuh"
#include "kernels/value_layout.cuh"
#include "models/path.cuh"
#include "models/payoff.cuh"

namespace pfmc::kernels {

/// True for a group of one instrument's price whose paths take one step and whose payoff reads
/// nothing but the spot after it: a European without a knock on the group's only observation,
/// the terminal log-spot of asset 0 taken at step 0. Such a group (a book of
/// short-dated Europeans) runs OneStepTerminal's lean passes: the same arithmetic as Path and
/// pay_single, without the observation schedule, the observations' array or the payoff call.
/// Evaluated on the host from the group's plan (engine/run/device_unit.cuh): `observation`,
/// `run` and `instrument` are its first observation, observation run and instrument.
PFMC_HD_INLINE bool is_one_step_terminal(int steps, int instrument_count, bool portfolio,
                                         int scenarios, int values_per_instrument,
                                         int observation_count,
                                         const models::ObservationView& observation,
                                         const models::ObservationRun& run,
                                         const models::InstrumentView& instrument) {
  using models::ObservationKind;
  if (steps != 1 || instrument_count != 1 || portfolio || scenarios != 1 ||
      values_per_instrument != kPriceValues || observation_count != 1)
    return false;
  constexpr unsigned int kTerminalSlot0 =
      1u << (static_cast<int>(ObservationKind::terminal) * models::kRegisterObservations);
  return observation.kind == ObservationKind::terminal && observation.asset == 0 &&
         run.first == 0 && run.last == 0 && run.spill < 0 && run.masks == kTerminalSlot0 &&
         instrument.knock_observation < 0 && instrument.underlying_observation == 0 &&
         instrument.kind == models::PayoffKind::european;
}

/// The step function of a one-step terminal group (is_one_step_terminal): each path's log-spot
/// after its one step, as Path computes its terminal observation (the model's initial state
/// advanced once; the observation's input, combined into its start).
template <class Model, class Real, int P>
struct OneStepTerminal {
  static constexpr int factors = Model::factors;
  const typename Model::Params& model;
  Real (&log_spot)[P];
  __device__ __forceinline__ void operator()(int step, const Real (&z)[P][factors]) const {
    using models::ObservationKind;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      typename Model::State state = Model::initial(model);
      Model::advance(state, model, step, z[p]);
      log_spot[p] = models::observation_combine(
          ObservationKind::terminal, models::observation_start<Real>(ObservationKind::terminal),
          models::observation_input<typename Model::Math>(ObservationKind::terminal,
                                                          Model::log_spot(state, 0)));
    }
  }
  /// A one-step group gets batches of one step at most (a loader's batch of several is never
  /// taken).
  template <int D>
  __device__ __forceinline__ void batch(int step0, const Real (&z)[D][P][factors]) const {
    if constexpr (D == 1) {
      (*this)(step0, z[0]);
    } else {
      __trap();
    }
  }
};

/// How many consecutive blocks of paths a thread block of a terminal launch of `blocks` works
/// through: the most (a power of two up to 8) that still leaves 32,768 thread blocks (15 waves of
/// a 132-multiprocessor GPU at 16 blocks each), so the last wave stays short. A block of the
/// book's terminal kernel spent about a quarter of its warps' time before its first pass (the
/// group's staging, the barrier after it, the rounds' division: docs/decisions.md#terminal-kernel),
/// for 64 paths a thread.
constexpr int terminal_blocks_per_cta(int blocks) {
  int k = 1;
  while (k < 8 && blocks / (2 * k) >= 32768)
    k *= 2;
  return k;
}

/// A round's passes of a one-step terminal group (is_one_step_terminal) into `fold`: the draws
/// of the thread's paths from the loader, OneStepTerminal's log-spots, the European's payoffs
/// and price_leaf — the bits of the kernel's simulate() and pay_single. What does not change
/// from pass to pass is decided once: the generator's counter, the instrument's fields, and as
/// compile-time branches of the loop the option's side, antithetic pairs (the loader's −z and
/// the pair means) and whether the pass's paths are all in range (a whole pass masks none; only
/// the passes from the group's end on, uniform across the block, take the masked loop). ncu on
/// the book's pass (docs/decisions.md#lean-passes): the masks, the antithetic selects and the
/// per-pass flag tests were 23 of its 171 instructions.
template <class Model, class Loader, class Real>
__device__ __forceinline__ void one_step_terminal_passes(const PathKernelParams<Model, Real>& p,
                                                         const GroupParams<Model, Real>& group,
                                                         const Loader& loader, int thread_first,
                                                         int passes, PassFold& fold) {
  constexpr int P = Loader::paths_per_thread;
  const typename Model::Params model = group.model;
  const models::InstrumentView& instrument = group.instruments[0];
  const double strike = instrument.strike;
  const double discount = instrument.discount;
  const int remaining = group.chunk_paths - thread_first; // paths from the thread's first
  // thread_first is a multiple of P: pass k's paths are the generator's call first_call + k.
  const std::uint64_t first_call = group.first_call + static_cast<std::uint64_t>(thread_first / P);
  // Passes [0, whole) have all their P paths in range.
  const int whole = max(0, min(passes, remaining / P));
  const auto log_spots = [&](int pass, int antithetic, Real(&log_spot)[P]) {
    LoaderInputs<Real> inputs{};
    inputs.steps = 1;
    inputs.seed = p.seed;
    inputs.group = group.group_index;
    inputs.antithetic = antithetic;
    inputs.first_call = first_call + static_cast<std::uint64_t>(pass);
    loader.run(inputs, OneStepTerminal<Model, Real, P>{model, log_spot});
  };
  if (!p.reduce) { // the step loop alone (a benchmark of the kernel without its reduction)
#pragma unroll 1
    for (int pass = 0; pass < passes; ++pass) {
      Real log_spot[P];
      log_spots(pass, group.antithetic, log_spot);
      if (log_spot[0] != log_spot[0]) // as simulate(): keeps the paths alive
        group.reduction.totals[0] = 1.0;
    }
    return;
  }
  const auto run = [&](auto is_call, auto antithetic) {
    constexpr bool kAntithetic = decltype(antithetic)::value;
    // discounted_payoffs' arithmetic for a European without a knock, then price_leaf's.
    const auto pass_leaf = [&](int pass, int valid) {
      Real log_spot[P];
      log_spots(pass, kAntithetic ? 1 : 0, log_spot);
      double value[P];
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const Real spot = models::observation_finish<typename Model::Math>(
            log_spot[q], models::ObservationKind::terminal, 1);
        value[q] =
            models::vanilla_payoff(decltype(is_call)::value, strike, static_cast<double>(spot)) *
            discount;
      }
      return price_leaf<P>(value, valid, kAntithetic ? 1 : 0);
    };
    int pass = 0;
#pragma unroll 1
    for (; pass < whole; ++pass)
      fold.add(pass, pass_leaf(pass, P));
#pragma unroll 1
    for (; pass < passes; ++pass)
      fold.add(pass, pass_leaf(pass, max(0, min(P, remaining - pass * P))));
  };
  const bool antithetic = group.antithetic != 0;
  if (instrument.is_call) {
    antithetic ? run(std::true_type{}, std::true_type{}) : run(std::true_type{}, std::false_type{});
  } else {
    antithetic ? run(std::false_type{}, std::true_type{})
               : run(std::false_type{}, std::false_type{});
  }
}

/// path_kernel's `Registers` of its terminal instantiation: the lean passes of one-step terminal
/// groups alone (one_step_terminal_passes; the kernel's other code compiled out), for launches
/// whose every group is one (kernels/launcher_table.cuh). They take 32 registers without a spill
/// (ptxas, sm_90, nvcc 13.0, Black-Scholes float `inline`, fast profile), where the whole
/// kernel's 64 held 128-thread blocks to 8 an SM. ncu on 512 of the MonteCarloMultiGPU book's
/// options (H200, docs/decisions.md#terminal-kernel): warps active 94% against 48%, but issue
/// active only 77.6% against 74.7%, 273 against 291 us: twice the warps hid little, the issue rate
/// is held elsewhere.
inline constexpr int kTerminalRegisters = 32;

} // namespace pfmc::kernels
