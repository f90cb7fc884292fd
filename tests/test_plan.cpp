// Planning: time grids, term structures, per-step market data, shared observations, events.
#include <gtest/gtest.h>

#include <memory_resource>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "config/config_error.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/upload_arena.hpp"
#include "engine/draws/draw_plan.hpp"
#include "engine/plan/plan.hpp"
#include "kernels/reduction_shape.cuh"
#include "test_support.hpp"

namespace pfmc {
namespace {

TEST(TimeGrid, UniformStepsAndEventsExactlyOnGrid) {
  const auto grid = engine::make_time_grid(1.0, 4, {0.3, 0.5, 0.9});
  const std::vector<double> expected{0.0, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0};
  ASSERT_EQ(grid.size(), expected.size());
  for (std::size_t i = 0; i < grid.size(); ++i)
    EXPECT_DOUBLE_EQ(grid[i], expected[i]) << i;
}

TEST(TimeGrid, EventWithinToleranceReplacesUniformTime) {
  const double t = 0.5 + 1e-12;
  const auto grid = engine::make_time_grid(1.0, 2, {t});
  ASSERT_EQ(grid.size(), 3u);
  EXPECT_EQ(grid[1], t); // the event's own time, exactly
  EXPECT_EQ(grid[2], 1.0);
}

TEST(TimeGrid, HorizonOffTheUniformGridIsLast) {
  const auto grid = engine::make_time_grid(0.6, 2, {});
  ASSERT_EQ(grid.size(), 3u);
  EXPECT_DOUBLE_EQ(grid[1], 0.5);
  EXPECT_DOUBLE_EQ(grid[2], 0.6);
}

TEST(TimeGrid, DailyStepsForOneYear) {
  const auto grid = engine::make_time_grid(1.0, 252, {1.0});
  EXPECT_EQ(grid.size(), 253u);
  EXPECT_EQ(grid.back(), 1.0);
  for (std::size_t i = 1; i < grid.size(); ++i)
    ASSERT_GT(grid[i], grid[i - 1]);
}

TEST(TimeGrid, EventGridIsExactlyZeroAndTheMergedEvents) {
  // steps_per_year 0: no uniform time at all. Events come in any order, with repeats, one
  // within the tolerance of another (the first in sorted order stands for both), one at 0 and
  // one past the horizon (neither is a step's end).
  const auto grid =
      engine::make_time_grid(1.0, 0, {0.75, 0.25, 0.5 + 1e-12, 0.5, 0.0, 0.25, 1.5, 1.0});
  EXPECT_EQ(grid, (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
  // The horizon is the last time even when no event names it.
  EXPECT_EQ(engine::make_time_grid(0.6, 0, {0.1}), (std::vector<double>{0.0, 0.1, 0.6}));
  EXPECT_EQ(engine::make_time_grid(2.0, 0, {}), (std::vector<double>{0.0, 2.0}));
}

TEST(TermStructures, DiscountInterpolatesZeroRatesFlatOutside) {
  config::TermStructure curve{{1.0, 2.0}, {0.02, 0.04}};
  EXPECT_NEAR(engine::discount_factor(curve, 0.5), std::exp(-0.02 * 0.5), 1e-15);
  EXPECT_NEAR(engine::discount_factor(curve, 1.5), std::exp(-0.03 * 1.5), 1e-15);
  EXPECT_NEAR(engine::discount_factor(curve, 3.0), std::exp(-0.04 * 3.0), 1e-15);
  config::TermStructure flat{{}, {0.05}};
  EXPECT_NEAR(engine::discount_factor(flat, 2.0), std::exp(-0.1), 1e-15);
}

TEST(TermStructures, TotalVarianceLinearBetweenPillars) {
  config::TermStructure vols{{1.0, 2.0}, {0.2, 0.3}};
  EXPECT_NEAR(engine::total_variance(vols, 0.5), 0.04 * 0.5, 1e-15);
  EXPECT_NEAR(engine::total_variance(vols, 1.0), 0.04, 1e-15);
  EXPECT_NEAR(engine::total_variance(vols, 1.5), 0.5 * (0.04 + 0.18), 1e-15);
  EXPECT_NEAR(engine::total_variance(vols, 3.0), 0.09 * 3.0, 1e-15);
}

TEST(Plan, StepDataIntegratesTheCurvesExactly) {
  const std::string yaml =
      "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
      "  rates: {tenors: [0.5, 2.0], zero_rates: [0.02, 0.05]}\n"
      "models: [{name: m, type: black_scholes, underlying: S,"
      " volatility: {tenors: [0.5, 1.5], vols: [0.3, 0.2]}}]\n"
      "instruments: [{id: c, type: european, option: call, strike: 100, maturity: 1.7, model: m}]\n"
      "simulation: {steps_per_year: 12}\n";
  const auto config = testing::load(yaml);
  const auto plan = engine::make_plan(config);
  ASSERT_EQ(plan.groups.size(), 1u);
  const auto& g = plan.groups[0];
  EXPECT_EQ(g.times.back(), 1.7);
  const auto& drift = g.step_series(0);
  const auto& diffusion = g.step_series(1);
  double variance = 0.0;
  for (double d : diffusion)
    variance += d * d;
  const double w = engine::total_variance(config.models[0].volatility, 1.7);
  EXPECT_NEAR(variance, w, 1e-13);
  const double mean = std::accumulate(drift.begin(), drift.end(), 0.0);
  const double expected =
      -std::log(engine::discount_factor(config.market.zero_rates, 1.7)) - 0.01 * 1.7 - 0.5 * w;
  EXPECT_NEAR(mean, expected, 1e-13);
  EXPECT_DOUBLE_EQ(g.model_constants[0], std::log(100.0));
}

TEST(Plan, InstrumentsShareObservationsAndEventsAreInOrder) {
  const std::string instruments =
      "  - {id: a1, type: asian, average: arithmetic, option: call, strike: 90, maturity: 1, "
      "fixings: 4, model: bs}\n"
      "  - {id: a2, type: asian, average: arithmetic, option: put, strike: 110, maturity: 1, "
      "fixings: 4, model: bs}\n"
      "  - {id: g1, type: asian, average: geometric, option: call, strike: 100, maturity: 1, "
      "fixings: 4, model: bs}\n"
      "  - {id: e1, type: european, option: call, strike: 100, maturity: 1, model: bs}\n"
      "  - {id: e2, type: european, option: put, strike: 95, maturity: 1, model: bs}\n"
      "  - {id: b1, type: barrier, option: call, strike: 100, barrier: 80, barrier_type: "
      "down_and_out, monitoring: 2, maturity: 1, model: bs}\n";
  const auto config =
      testing::load(testing::yaml_run({}, instruments, 1000, ", steps_per_year: 4"));
  const auto plan = engine::make_plan(config);
  const auto& g = plan.groups[0];
  // arithmetic sum, log sum, terminal at T, running min: four observations for six instruments.
  EXPECT_EQ(g.observations.size(), 4u);
  EXPECT_EQ(g.instruments[0].underlying_observation, g.instruments[1].underlying_observation);
  EXPECT_EQ(g.instruments[3].underlying_observation, g.instruments[4].underlying_observation);
  EXPECT_EQ(g.instruments[5].underlying_observation, g.instruments[3].underlying_observation);
  ASSERT_EQ(g.steps(), 4);
  // The most frequently observed first: the fixings (4 dates: arithmetic, then log sum), the
  // running min (2 dates), the terminal spot (1).
  EXPECT_EQ(g.observations[0].kind, models::ObservationKind::arithmetic_sum);
  EXPECT_EQ(g.observations[1].kind, models::ObservationKind::log_sum);
  EXPECT_EQ(g.observations[2].kind, models::ObservationKind::running_min);
  EXPECT_EQ(g.observations[3].kind, models::ObservationKind::terminal);
  // Steps 0..3 end at 0.25, 0.5, 0.75, 1: fixings at each; monitoring at 0.5 and 1; terminal
  // at 1. Bit kind * 4 + slot.
  const auto bit = [](models::ObservationKind kind, int slot) {
    return 1u << (static_cast<int>(kind) * models::kRegisterObservations + slot);
  };
  using K = models::ObservationKind;
  const unsigned fixings = bit(K::arithmetic_sum, 0) | bit(K::log_sum, 1);
  // Runs: step 0 (fixings), 1 (+ monitoring), 2 (fixings), 3 (+ monitoring, terminal), sentinel.
  ASSERT_EQ(g.observation_runs.size(), 5u);
  const unsigned expected[] = {fixings, fixings | bit(K::running_min, 2), fixings,
                               fixings | bit(K::running_min, 2) | bit(K::terminal, 3)};
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(g.observation_runs[s].first, s);
    EXPECT_EQ(g.observation_runs[s].last, s);
    EXPECT_EQ(g.observation_runs[s].masks, expected[s]) << "step " << s;
    EXPECT_EQ(g.observation_runs[s].spill, -1);
  }
  EXPECT_EQ(g.observation_runs[4].first, INT_MAX);
  for (const auto& o : g.observations) {
    if (o.kind == models::ObservationKind::arithmetic_sum)
      EXPECT_EQ(o.count, 4);
    if (o.kind == models::ObservationKind::running_min)
      EXPECT_EQ(o.count, 2);
  }
}

TEST(Plan, DailyFixingsMergeIntoOneRunAndSpillsStandAlone) {
  std::string instruments =
      "  - {id: a, type: asian, average: arithmetic, option: call, strike: 100, maturity: 1, "
      "fixings: 252, model: bs}\n"
      "  - {id: b, type: barrier, option: call, strike: 100, barrier: 80, barrier_type: "
      "down_and_out, monitoring: 252, maturity: 1, model: bs}\n";
  // Four more maturities: terminal observations 3..6, two of them beyond the register slots.
  for (int m = 1; m <= 4; ++m) {
    instruments +=
        "  - {id: e" + std::to_string(m) +
        ", type: european, option: call, strike: 100, maturity: " + std::to_string(m * 0.2) +
        ", model: bs}\n";
  }
  const auto g =
      engine::make_plan(testing::load(testing::yaml_run({}, instruments, 100))).groups[0];
  ASSERT_EQ(g.observations.size(), 7u); // sum, min, terminal at 1, four terminals at 0.2..0.8
  EXPECT_EQ(g.steps(), 256); // 252 daily steps and the four maturities, which are off the grid
  int spilled_runs = 0;
  for (std::size_t r = 0; r + 1 < g.observation_runs.size(); ++r) {
    const auto& run = g.observation_runs[r];
    if (run.spill >= 0) {
      ++spilled_runs;
      EXPECT_EQ(run.first, run.last);
    }
    if (r > 0)
      EXPECT_GT(run.first, g.observation_runs[r - 1].last);
  }
  EXPECT_EQ(spilled_runs, 3); // the observations numbered 4..6 (three maturities) spill
  // Fixings and monitoring at the 252 daily steps, a terminal observation at each of the four
  // maturity steps: every step has observations; the runs are cut only around the maturities
  // (each such step is a run of its own).
  int covered = 0;
  for (std::size_t r = 0; r + 1 < g.observation_runs.size(); ++r) {
    covered += g.observation_runs[r].last - g.observation_runs[r].first + 1;
  }
  EXPECT_EQ(covered, 256);
  EXPECT_LE(g.observation_runs.size(), 1u + 2 * 4 + 1 + 1);
}

/// Two underlyings, A at 100 and B at 50, each with a Black-Scholes model of its own (ma, mb).
const std::string kTwoModels =
    "market:\n  underlyings: [{name: A, spot: 100}, {name: B, spot: 50}]\n  rates: {zero_rate: "
    "0.01}\n"
    "models: [{name: ma, type: black_scholes, underlying: A, volatility: 0.2},"
    " {name: mb, type: black_scholes, underlying: B, volatility: 0.3}]\n";

TEST(Plan, GroupsFollowModelsAndKeepConfigOrder) {
  const std::string yaml =
      kTwoModels +
      "instruments:\n"
      "  - {id: x, type: european, option: call, strike: 50, maturity: 1, model: mb}\n"
      "  - {id: y, type: european, option: call, strike: 100, maturity: 2, model: ma}\n"
      "  - {id: z, type: european, option: put, strike: 50, maturity: 0.5, model: mb}\n";
  const auto plan = engine::make_plan(testing::load(yaml));
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].model_name, "mb");
  EXPECT_EQ(plan.groups[0].instrument_config_index, (engine::PlanArray<int>{0, 2}));
  EXPECT_EQ(plan.groups[1].instrument_config_index, (engine::PlanArray<int>{1}));
  EXPECT_DOUBLE_EQ(plan.groups[0].times.back(), 1.0);
}

// The plan's groups allocate their arrays from the plan's arenas (one malloc a chunk, one free
// an arena: a book of 8,192 groups planned and freed ~2x faster, docs/decisions.md#plan-arenas); a
// copy of a group takes the heap, so it may outlive the plan.
TEST(Plan, GroupsAllocateFromThePlansArenasAndCopiesFromTheHeap) {
  const std::string yaml =
      kTwoModels +
      "instruments:\n"
      "  - {id: x, type: asian, option: call, strike: 50, maturity: 1, model: mb, average: "
      "arithmetic,"
      " fixing_times: [0.5, 1]}\n"
      "  - {id: y, type: european, option: call, strike: 100, maturity: 2, model: ma}\n";
  engine::GroupPlan copy;
  {
    const auto plan = engine::make_plan(testing::load(yaml));
    ASSERT_EQ(plan.groups.size(), 2u);
    ASSERT_FALSE(plan.memory.empty());
    const auto from_arena = [&](const std::pmr::memory_resource* r) {
      return std::any_of(plan.memory.begin(), plan.memory.end(),
                         [&](const auto& m) { return m.get() == r; });
    };
    for (const auto& g : plan.groups) {
      EXPECT_TRUE(from_arena(g.times.get_allocator().resource()));
      EXPECT_TRUE(from_arena(g.model_data.get_allocator().resource()));
      EXPECT_TRUE(from_arena(g.observations.get_allocator().resource()));
      EXPECT_TRUE(from_arena(g.observation_runs.get_allocator().resource()));
      EXPECT_TRUE(from_arena(g.instruments.get_allocator().resource()));
      EXPECT_TRUE(from_arena(g.instrument_config_index.get_allocator().resource()));
    }
    copy = plan.groups[0];
    EXPECT_EQ(copy.times.get_allocator().resource(), std::pmr::get_default_resource());
  } // the plan and its arenas are gone; the copy reads its own arrays (ASan: no use after free)
  EXPECT_EQ(copy.steps(), 252); // the default steps_per_year to the maturity
  EXPECT_DOUBLE_EQ(copy.times.back(), 1.0);
  EXPECT_EQ(copy.instrument_config_index, (engine::PlanArray<int>{0}));
}

// Groups are planned on threads, each range of groups in an arena of its own: the plan is the
// same on any number of threads. A model's early-exercise instruments form groups of at most
// kMaxExerciseRules apart from its others; every group lists its instruments in config order.
TEST(Plan, IsTheSameOnAnyNumberOfThreadsAndCapsEarlyExerciseGroups) {
  std::string yaml = kTwoModels + "simulation: {paths: 1000, steps_per_year: 12}\n"
                                  "instruments:\n";
  for (int i = 0; i < 12; ++i) { // ma: 10 American puts between 2 Europeans; mb: Europeans
    const std::string id = std::to_string(i);
    yaml += "  - {id: e" + id +
            ", type: european, option: call, strike: " + std::to_string(40 + i) +
            ", maturity: 1, model: mb}\n";
    yaml += "  - {id: a" + id + ", type: european, option: put, strike: " + std::to_string(90 + i) +
            ", maturity: 0.5, model: ma" + (i == 0 || i == 11 ? "}\n" : ", exercise: american}\n");
  }
  const config::RunConfig config = testing::load(yaml);
  const engine::SimulationPlan one = engine::make_plan(config, 1);
  // mb's Europeans, ma's Europeans, ma's American puts in groups of 8 and 2.
  ASSERT_EQ(one.groups.size(), 4u);
  EXPECT_EQ(one.groups[0].model_name, "mb");
  EXPECT_EQ(one.groups[1].instrument_config_index, (engine::PlanArray<int>{1, 23}));
  ASSERT_EQ(one.groups[2].instrument_config_index.size(),
            static_cast<std::size_t>(engine::kMaxExerciseRules));
  EXPECT_EQ(one.groups[3].instrument_config_index, (engine::PlanArray<int>{19, 21}));
  EXPECT_TRUE(one.groups[2].exercise.present());
  for (unsigned threads : {2u, 3u, 4u, 16u}) {
    const engine::SimulationPlan many = engine::make_plan(config, threads);
    ASSERT_EQ(many.groups.size(), one.groups.size()) << threads;
    for (std::size_t g = 0; g < one.groups.size(); ++g) {
      const auto& a = one.groups[g];
      const auto& b = many.groups[g];
      EXPECT_EQ(b.index, static_cast<int>(g));
      EXPECT_EQ(a.model_index, b.model_index) << threads << " threads, group " << g;
      EXPECT_EQ(a.instrument_config_index, b.instrument_config_index) << threads;
      EXPECT_EQ(a.times, b.times) << threads;
      EXPECT_EQ(a.model_data, b.model_data) << threads;
      EXPECT_EQ(a.exercise.steps, b.exercise.steps) << threads;
      ASSERT_EQ(a.instruments.size(), b.instruments.size()) << threads;
      EXPECT_EQ(std::memcmp(a.instruments.data(), b.instruments.data(),
                            a.instruments.size() * sizeof(models::InstrumentView)),
                0)
          << threads;
    }
  }
}

// Groups are made range by range on the planning threads (engine::GroupPlans): a plan that fails
// in a middle group, on any number of threads, reports that group's error and is freed (which
// ranges a failed plan made depends on its threads' timing: the next test frees a given set),
// and a plan moved onto another frees the old groups before their arenas.
TEST(Plan, AFailedGroupOnAnyThreadIsTheFirstErrorAndFreesWhatWasMade) {
  std::string yaml = "market:\n  underlyings: [{name: A, spot: 100}]\n  rates: {zero_rate: 0.01}\n"
                     "models:\n";
  std::string instruments = "instruments:\n";
  for (int m = 0; m < 20; ++m) {
    const std::string name = "m" + std::to_string(m);
    yaml += "  - {name: " + name + ", type: black_scholes, underlying: A, volatility: 0.2}\n";
    // Models 13 and 17: one schedule too many (models::kMaxObservations) — a planning error.
    const int maturities = m == 13 || m == 17 ? models::kMaxObservations + 1 : 1;
    for (int i = 1; i <= maturities; ++i) {
      instruments +=
          "  - {id: " + name + "_" + std::to_string(i) +
          ", type: european, option: call, strike: 100, maturity: " + std::to_string(i / 100.0) +
          ", model: " + name + "}\n";
    }
  }
  const config::RunConfig config =
      testing::load(yaml + instruments + "simulation: {paths: 1000}\nengine: {device: cpu}\n");
  for (unsigned threads : {1u, 3u, 8u, 20u}) {
    try {
      (void)engine::make_plan(config, threads);
      ADD_FAILURE() << "expected a ConfigError on " << threads << " threads";
    } catch (const config::ConfigError& e) {
      EXPECT_EQ(e.key_path(), "models[13]") << threads << " threads";
    }
  }
  engine::SimulationPlan plan = engine::make_plan(
      testing::load(kTwoModels + "instruments: [{id: x, type: european, option: call, strike: 50, "
                                 "maturity: 1, model: mb}]\n"));
  plan = engine::make_plan(
      testing::load(kTwoModels + "instruments: [{id: y, type: european, option: put, strike: 90, "
                                 "maturity: 2, model: ma}]\n"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups.front().model_name, "ma");
  engine::GroupPlans heap(3);
  EXPECT_EQ(heap.size(), 3u);
  heap[2].times = {0.0, 1.0};
  engine::GroupPlans moved = std::move(heap);
  EXPECT_TRUE(heap.empty());
  EXPECT_EQ(moved.back().steps(), 1);
}

// A range of groups is freed if and only if it was made: every array of a made range goes back to
// its arena (the counts below), and a range never made is not touched: under the sanitized
// suite's AddressSanitizer, whose fill of fresh memory makes a free of a group never made fault
// (planting a destroy of every range: SEGV in its deallocate, checked by hand:
// docs/decisions.md#planning-threads).
TEST(Plan, GroupPlansFreeEveryRangeMadeAndNoOther) {
  struct Counting : std::pmr::memory_resource {
    int allocations = 0, deallocations = 0;
    void* do_allocate(std::size_t bytes, std::size_t align) override {
      ++allocations;
      return std::pmr::new_delete_resource()->allocate(bytes, align);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
      ++deallocations;
      std::pmr::new_delete_resource()->deallocate(p, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
      return this == &other;
    }
  } memory;
  {
    engine::GroupPlans groups(10, 3); // ranges [0, 3), [3, 6), [6, 10)
    groups.make_range(0, &memory);
    groups.make_range(2, &memory);
    for (std::size_t g : {0u, 2u, 6u, 9u}) {
      groups[g].times = {0.0, 0.5, 1.0};
      groups[g].model_data.assign(64, 1.0);
    }
  }
  EXPECT_EQ(memory.allocations, 8);
  EXPECT_EQ(memory.deallocations, 8);
}

TEST(Plan, TooManyObservationSchedulesIsAConfigError) {
  std::string instruments;
  for (int i = 1; i <= models::kMaxObservations + 1; ++i) {
    instruments +=
        "  - {id: e" + std::to_string(i) +
        ", type: european, option: call, strike: 100, maturity: " + std::to_string(i / 100.0) +
        ", model: bs}\n";
  }
  const auto config = testing::load(testing::yaml_run({}, instruments, 1000));
  try {
    engine::make_plan(config);
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key_path(), "models[0]");
    EXPECT_NE(std::string(e.what()).find("65 distinct observation schedules"), std::string::npos)
        << e.what();
  }
}

TEST(Plan, EventGridGivesEuropeansOfOneMaturityOneStep) {
  const std::string instruments =
      "  - {id: c, type: european, option: call, strike: 100, maturity: 1.5, model: bs}\n"
      "  - {id: p, type: european, option: put, strike: 90, maturity: 1.5, model: bs}\n"
      "  - {id: d, type: digital, option: call, strike: 110, maturity: 1.5, model: bs}\n";
  const auto plan = engine::make_plan(
      testing::load(testing::yaml_run({}, instruments, 1000, ", steps_per_year: 0")));
  ASSERT_EQ(plan.groups.size(), 1u);
  const auto& g = plan.groups[0];
  EXPECT_EQ(g.steps(), 1);
  EXPECT_EQ(g.times, (engine::PlanArray<double>{0.0, 1.5}));
  // The one step carries the whole interval's moments: variance σ²T, drift (r - q - σ²/2)T.
  EXPECT_NEAR(g.step_series(1)[0] * g.step_series(1)[0], 0.04 * 1.5, 1e-14);
  EXPECT_NEAR(g.step_series(0)[0], (0.05 - 0.0 - 0.5 * 0.04) * 1.5, 1e-14);
  ASSERT_EQ(g.observation_runs.size(), 2u); // the terminal observation at step 0, the sentinel
  EXPECT_EQ(g.observation_runs[0].first, 0);
}

TEST(Plan, EventGridOfAnAsianIsItsFixingDates) {
  const std::string instruments =
      "  - {id: a, type: asian, average: geometric, option: call, strike: 100, maturity: 1, "
      "fixings: 12, model: bs}\n"
      "  - {id: f, type: asian, average: arithmetic, option: put, strike: 100, maturity: 1, "
      "fixing_times: [0.1, 0.35, 0.5, 1], model: bs}\n";
  const auto config =
      testing::load(testing::yaml_run({}, instruments, 1000, ", steps_per_year: 0"));
  const auto plan = engine::make_plan(config);
  const auto& g = plan.groups[0];
  // Both schedules merged: 0.5 and 1 are in both, and the loader computes them exactly (6/12 and
  // the maturity itself), so equal values are one grid time.
  engine::PlanArray<double> expected{0.0};
  for (const auto& in : config.instruments)
    expected.insert(expected.end(), in.fixing_times.begin(), in.fixing_times.end());
  std::sort(expected.begin(), expected.end());
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  EXPECT_EQ(g.times, expected);
  EXPECT_EQ(g.steps(), 14);
  ASSERT_EQ(g.observations.size(), 2u); // the log sum and the arithmetic sum
  for (const auto& o : g.observations) {
    EXPECT_EQ(o.count, o.kind == models::ObservationKind::log_sum ? 12 : 4);
  }
}

TEST(Plan, EventGridOfTheGeometricAsianAloneHasTwelveSteps) {
  const auto config = testing::load(
      testing::yaml_run({},
                        "  - {id: a, type: asian, average: geometric, option: call, strike: 100, "
                        "maturity: 1, fixings: 12, model: bs}\n",
                        1000, ", steps_per_year: 0"));
  const auto plan = engine::make_plan(config);
  const auto& g = plan.groups[0];
  ASSERT_EQ(g.steps(), 12);
  EXPECT_EQ(std::vector<double>(g.times.begin() + 1, g.times.end()),
            config.instruments[0].fixing_times);
}

/// A Black-Scholes model and model `name` of `fields` (the rest of its YAML mapping), a call on
/// each, and the simulation on line 10 with steps_per_year's value at column 43.
std::string two_models_yaml(const std::string& name, const std::string& fields,
                            int steps_per_year) {
  return "market:\n"
         "  underlyings: [{name: S, spot: 100}]\n"
         "  rates: {zero_rate: 0.05}\n"
         "models:\n"
         "  - {name: bs, type: black_scholes, underlying: S, volatility: 0.2}\n"
         "  - {name: " +
         name + ", " + fields +
         "}\n"
         "instruments:\n"
         "  - {id: c, type: european, option: call, strike: 100, maturity: 1, model: bs}\n"
         "  - {id: o, type: european, option: call, strike: 100, maturity: 1, model: " +
         name +
         "}\n"
         "simulation: {paths: 1000, steps_per_year: " +
         std::to_string(steps_per_year) + "}\n";
}

TEST(Plan, EventGridIsRefusedForModelsThatNeedADiscretisation) {
  const std::string heston =
      "type: heston, underlying: S, v0: 0.04, kappa: 4, theta: 0.25, xi: 1, rho: -0.5";
  const std::string local_vol = "type: local_vol, underlying: S, surface: {times: [0.5, 1], "
                                "log_moneyness: [-0.5, 0, 0.5], vols: [[0.3, 0.2, 0.25], "
                                "[0.28, 0.2, 0.22]]}";
  try {
    engine::make_plan(testing::load(two_models_yaml("spx_h", heston, 0)));
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(e.what(), "test.yaml:10:43: simulation.steps_per_year: 0 (event grid) is exact "
                           "only for black_scholes and multi_black_scholes; model 'spx_h' "
                           "(heston) needs a discretisation: set steps_per_year > 0");
  }
  try {
    engine::make_plan(testing::load(two_models_yaml("spx_lv", local_vol, 0)));
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.key_path(), "simulation.steps_per_year");
    EXPECT_EQ(e.mark().line, 10);
    EXPECT_EQ(e.mark().column, 43);
    EXPECT_NE(e.message().find("model 'spx_lv' (local_vol)"), std::string::npos) << e.what();
  }
  // Any uniform grid is accepted: the refusal is of the event grid, not of the model.
  EXPECT_EQ(engine::make_plan(testing::load(two_models_yaml("spx_h", heston, 4))).groups[1].steps(),
            4);
}

engine::SimulationPlan three_groups(int steps_per_year) {
  const std::string yaml =
      "market:\n  underlyings: [{name: A, spot: 100}, {name: B, spot: 50}]\n  rates: {zero_rate: "
      "0.01}\n"
      "models: [{name: ma, type: black_scholes, underlying: A, volatility: 0.2},"
      " {name: mb, type: black_scholes, underlying: B, volatility: 0.3},"
      " {name: mc, type: black_scholes, underlying: A, volatility: 0.25}]\n"
      "instruments:\n"
      "  - {id: x, type: european, option: call, strike: 100, maturity: 1, model: ma}\n"
      "  - {id: y, type: european, option: call, strike: 50, maturity: 1, model: mb}\n"
      "  - {id: z, type: european, option: call, strike: 100, maturity: 2, model: mc}\n"
      "simulation: {steps_per_year: " +
      std::to_string(steps_per_year) + "}\n";
  return engine::make_plan(testing::load(yaml));
}

TEST(DrawPlan, SmallGroupsShareBatchesInPlanOrder) {
  const auto plan = three_groups(12); // 12, 12 and 24 steps
  const std::uint64_t paths = 5000;   // 3 draw tiles
  const auto units = engine::plan_draw_units(plan, config::RngType::philox, paths, 8, 1 << 20);
  const std::size_t x = 3 * 12 * 2048, z = 3 * 24 * 2048;
  ASSERT_EQ(engine::group_draw_values(plan.groups[0], paths), x);
  // 1 MiB: the first two groups (589,824 bytes each) do not fit together, the third (1,179,648
  // bytes) not even alone.
  ASSERT_EQ(units.size(), 3u);
  EXPECT_TRUE(units[0].batched);
  EXPECT_TRUE(units[1].batched);
  EXPECT_FALSE(units[2].batched);
  const auto two = engine::plan_draw_units(plan, config::RngType::philox, paths, 8, 4 << 20);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].groups, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(two[0].offsets, (std::vector<std::size_t>{0, x, 2 * x}));
  EXPECT_EQ(two[0].values, 2 * x + z);
}

TEST(DrawPlan, LargeGroupsQuasiRandomAndNoBatchesAreTiled) {
  const auto plan = three_groups(12);
  const auto small_batches =
      engine::plan_draw_units(plan, config::RngType::philox, 5000, 8, 600000);
  ASSERT_EQ(small_batches.size(), 3u);
  EXPECT_TRUE(small_batches[0].batched);  // 589,824 bytes fit
  EXPECT_FALSE(small_batches[2].batched); // 1,179,648 bytes do not: tiled
  for (auto rng : {config::RngType::sobol, config::RngType::scrambled_sobol}) {
    for (const auto& u : engine::plan_draw_units(plan, rng, 5000, 8, 1 << 30)) {
      EXPECT_FALSE(u.batched);
      EXPECT_EQ(u.groups.size(), 1u);
    }
  }
  for (const auto& u : engine::plan_draw_units(plan, config::RngType::philox, 5000, 8, 0)) {
    EXPECT_FALSE(u.batched);
  }
}

TEST(DrawPlan, UnitSizesRampUpAndDownOnLongRuns) {
  using Sizes = std::vector<std::size_t>;
  EXPECT_EQ(engine::unit_sizes(100, 0), Sizes{100});
  EXPECT_EQ(engine::unit_sizes(2048, 2048), Sizes{2048});
  EXPECT_EQ(engine::unit_sizes(2049, 2048), (Sizes{1025, 1024}));
  EXPECT_EQ(engine::unit_sizes(6143, 2048), (Sizes{2048, 2048, 2047}));
  // The 8,192-option book: 512 and 1,024 first and last, the rest as even as can be.
  EXPECT_EQ(engine::unit_sizes(8192, 2048), (Sizes{512, 1024, 1707, 1707, 1706, 1024, 512}));
  EXPECT_EQ(engine::unit_sizes(6144, 2048), (Sizes{512, 1024, 1536, 1536, 1024, 512}));
  EXPECT_EQ(engine::unit_sizes(7, 2), (Sizes{2, 2, 2, 1})); // too small a limit to ramp
  for (std::size_t n : {1u, 5u, 999u, 4096u, 6144u, 10000u, 100000u}) {
    for (std::size_t most : {1u, 3u, 4u, 64u, 2048u}) {
      const Sizes sizes = engine::unit_sizes(n, most);
      std::size_t total = 0;
      for (std::size_t s : sizes) {
        EXPECT_GE(s, 1u) << n << " " << most;
        EXPECT_LE(s, most) << n << " " << most;
        total += s;
      }
      EXPECT_EQ(total, n) << most;
    }
  }
}

TEST(DrawPlan, UnitsThatComputeTheirDrawsHoldAtMostTheUnitGroups) {
  // 4,548 groups of one kernel, all computing their draws: three units of at most
  // config::kDefaultUnitGroups (engine.unit_groups) in plan order (the host stages one while the
  // GPU runs the one before), as even as can be.
  const int n = 2 * config::kDefaultUnitGroups + 452;
  std::string yaml = "market:\n  underlyings:\n";
  for (int i = 0; i < n; ++i)
    yaml += "    - {name: U" + std::to_string(i) + ", spot: 100}\n";
  yaml += "  rates: {zero_rate: 0.01}\nmodels:\n";
  for (int i = 0; i < n; ++i) {
    yaml += "  - {name: m" + std::to_string(i) + ", type: black_scholes, underlying: U" +
            std::to_string(i) + ", volatility: 0.2}\n";
  }
  yaml += "instruments:\n";
  for (int i = 0; i < n; ++i) {
    yaml += "  - {id: c" + std::to_string(i) +
            ", type: european, option: call, strike: 100, maturity: 1, model: m" +
            std::to_string(i) + "}\n";
  }
  yaml += "simulation: {steps_per_year: 0}\n";
  const auto plan = engine::make_plan(testing::load(yaml));
  ASSERT_EQ(plan.groups.size(), static_cast<std::size_t>(n));
  const std::vector<bool> computes(plan.groups.size(), true);
  const auto units =
      engine::plan_draw_units(plan, config::RngType::philox, 5000, 8, 1 << 20, computes);
  ASSERT_EQ(units.size(), 3u);
  int next = 0;
  for (std::size_t u = 0; u < units.size(); ++u) {
    EXPECT_TRUE(units[u].computes_draws);
    EXPECT_EQ(units[u].groups.size(), 1516u);
    for (int g : units[u].groups)
      EXPECT_EQ(g, next++);
  }
  EXPECT_EQ(next, n);
}

TEST(UploadArena, AMeasuringArenaGivesTheSizeAndOffsetsOfTheRealOne) {
  // The unit's device state packs its groups twice, measuring then for real: both must agree,
  // converted arrays and alignment included.
  const std::vector<double> values{1.0, 2.5, -3.0};
  const std::vector<int> counts{7, 8, 9, 10, 11};
  engine::UploadArena measured{engine::UploadArena::Measure{}};
  engine::UploadArena real;
  std::vector<std::size_t> a, b;
  for (auto* arena : {&measured, &real}) {
    auto& at = arena == &measured ? a : b;
    at.push_back(arena->add_as<float>(values));
    at.push_back(arena->add(counts));
    at.push_back(arena->add_as<double>(values));
    at.push_back(arena->add(std::vector<char>{}));
    at.push_back(arena->add_as<float>(values));
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(measured.size(), real.size());
  EXPECT_EQ(a, (std::vector<std::size_t>{0, 16, 48, 80, 80}));
  float f = 0.0F;
  std::memcpy(&f, real.data() + b[4] + sizeof(float), sizeof(float));
  EXPECT_EQ(f, 2.5F);
}

TEST(Chunking, OneChunkWhenItFits) {
  const auto c = engine::plan_chunks(100000, 252, 8, 10, 1ull << 34);
  EXPECT_EQ(c.chunks, 1u);
  EXPECT_EQ(c.chunk_paths, 100000u);
}

TEST(Chunking, WholeTilesUnderTheCap) {
  const std::uint64_t tile = kernels::kTilePaths;
  const auto c = engine::plan_chunks(100000, 252, 8, 10, 3 * tile * 252 * 8 + tile);
  EXPECT_GT(c.chunks, 1u);
  EXPECT_EQ(c.chunk_paths % tile, 0u);
  EXPECT_LE(c.bytes_per_chunk, 3 * tile * 252 * 8 + tile);
  EXPECT_EQ(c.chunks, (100000 + c.chunk_paths - 1) / c.chunk_paths);
}

TEST(Chunking, NotEvenOneTileFits) {
  const auto c = engine::plan_chunks(100000, 252, 8, 10, 1000);
  EXPECT_EQ(c.chunk_paths, 0u);
}

TEST(Chunking, WithoutDrawsOnlyThePartialSumsCount) {
  // A backend that computes its draws (rows 0) needs a few bytes a path: one chunk.
  const auto c = engine::plan_chunks(10'000'000, 0, 4, 4, 64ull << 20);
  EXPECT_EQ(c.chunks, 1u);
  // More paths than an int holds are cut into chunks of whole tiles anyway.
  const auto big = engine::plan_chunks(3ull << 30, 0, 4, 2, ~0ull);
  EXPECT_EQ(big.chunk_paths, engine::kMaxChunkPaths);
  EXPECT_EQ(big.chunks, 3u);
}

TEST(Rounds, LongPathsRunOnePassShortPathsFillTheDeviceThenATile) {
  const auto shape = [](std::uint64_t paths, int steps, int paths_per_thread, int block_size,
                        int values) {
    const engine::RoundShape r =
        engine::round_shape(paths, steps, 1, paths_per_thread, block_size, values, 132);
    return std::make_pair(r.passes, r.rounds);
  };
  using Shape = std::pair<int, int>; // passes, rounds
  // 365 steps: one pass of one round, whatever the paths.
  EXPECT_EQ(shape(8'192'000, 365, 1, 128, 4), Shape(1, 1));
  EXPECT_EQ(shape(8'192'000, 365, 4, 128, 2), Shape(1, 1));
  // One path per thread: one pass, one round.
  EXPECT_EQ(shape(8192ull * 262144, 1, 1, 128, 2), Shape(1, 1));
  // The 8,192-option book: 2^31 paths of one step, one price per group; blocks of 128 threads ×
  // 4 paths: 16 passes, a tile in one round.
  EXPECT_EQ(shape(8192ull * 262144, 1, 4, 128, 2), Shape(16, 1));
  // Blocks of 64: 16 passes (4,096 paths a round), then rounds up to a tile.
  EXPECT_EQ(shape(8192ull * 262144, 1, 4, 64, 2), Shape(16, 2));
  // Blocks of 1,024 threads: 2 passes fill the tile.
  EXPECT_EQ(shape(8192ull * 262144, 1, 4, 1024, 2), Shape(2, 1));
  // More values than one price (a portfolio, Greeks): no passes, rounds only.
  EXPECT_EQ(shape(8192ull * 262144, 1, 4, 128, 4), Shape(1, 16));
  // Few paths: keep 32 blocks per multiprocessor before taking passes or rounds.
  EXPECT_EQ(shape(100'000, 1, 4, 128, 2), Shape(1, 1));
  EXPECT_EQ(shape(4 * 32 * 132 * 512, 1, 4, 128, 2), Shape(4, 1));
  EXPECT_EQ(shape(4 * 32 * 132 * 512, 1, 4, 128, 4), Shape(1, 4));
  // Many values: the rounds' sums stay under kMaxRoundSumsBytes.
  EXPECT_EQ(shape(8192ull * 262144, 1, 4, 128, 1000), Shape(1, 2));
}

} // namespace
} // namespace pfmc
