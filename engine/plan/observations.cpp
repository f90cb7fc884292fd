// The group's observations: which ones the instruments read, their numbering (register slots
// first), and the runs of steps that observe the same ones.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.hpp"
#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine::plan_detail {

namespace {

/// f(o) for each of a view's moved observations (models::InstrumentView::moved_level and
/// moved_knock) that it reads.
template <class View, class F>
void for_each_moved(View& v, F&& f) {
  for (auto* moved : {&v.moved_level, &v.moved_knock}) {
    for (auto& sides : *moved) {
      for (auto& o : sides) {
        if (o >= 0)
          f(o);
      }
    }
  }
}

/// Which observations some instrument reads.
std::vector<int> used_observations(const ObservationSet& observations, const GroupPlan& group) {
  std::vector<int> used(observations.keys().size(), 0);
  for (const auto& v : group.instruments) {
    if (v.kind == models::PayoffKind::exercised)
      continue; // its cash flow's slot comes after the observations (plan_exercise)
    used[static_cast<std::size_t>(v.underlying_observation)] = 1;
    if (v.knock_observation >= 0)
      used[static_cast<std::size_t>(v.knock_observation)] = 1;
    if (v.control_observation >= 0)
      used[static_cast<std::size_t>(v.control_observation)] = 1;
    for_each_moved(v, [&](std::int16_t o) { used[static_cast<std::size_t>(o)] = 1; });
  }
  return used;
}

/// The instruments' observation references, through `renumber`.
void renumber_instruments(const std::vector<int>& renumber, GroupPlan& group) {
  for (auto& v : group.instruments) {
    if (v.kind == models::PayoffKind::exercised)
      continue;
    v.underlying_observation = renumber[static_cast<std::size_t>(v.underlying_observation)];
    if (v.knock_observation >= 0) {
      v.knock_observation = renumber[static_cast<std::size_t>(v.knock_observation)];
    }
    if (v.control_observation >= 0) {
      v.control_observation = renumber[static_cast<std::size_t>(v.control_observation)];
    }
    for_each_moved(v, [&](std::int16_t& o) {
      o = static_cast<std::int16_t>(renumber[static_cast<std::size_t>(o)]);
    });
  }
}

} // namespace

int ObservationSet::add(models::ObservationKind kind, int asset, std::vector<int> steps,
                        BasketLevel level) {
  const auto [it, added] =
      index_.try_emplace(ObservationKey{kind, asset, std::move(steps), std::move(level)},
                         static_cast<int>(keys_.size()));
  if (added)
    keys_.push_back(&it->first);
  return it->second;
}

const std::vector<int>& ObservationSet::steps(const config::Schedule& times) {
  const auto it = steps_.find(times.identity());
  if (it != steps_.end())
    return it->second;
  return steps_.emplace(times.identity(), steps_of(*grid_, times)).first->second;
}

int ObservationSet::add(models::ObservationKind kind, int asset, const config::Schedule& times) {
  const auto key = std::make_tuple(kind, asset, times.identity());
  const auto it = scheduled_.find(key);
  if (it != scheduled_.end())
    return it->second;
  const int id = add(kind, asset, steps(times));
  scheduled_.emplace(key, id);
  return id;
}

std::vector<const std::vector<int>*> number_observations(const config::RunConfig& config,
                                                         int model_index,
                                                         const ObservationSet& observations,
                                                         GroupPlan& group) {
  // Asians that are not priced off the terminal spot leave an unused terminal observation;
  // drop observations nobody reads so the per-path state stays minimal.
  std::vector<int> used = used_observations(observations, group);
  // Number the observations in use, the most frequently observed first: they get the register
  // slots of models/path.cuh. Ties keep the order of first use.
  std::vector<std::size_t> order;
  order.reserve(used.size());
  for (std::size_t o = 0; o < used.size(); ++o) {
    if (used[o])
      order.push_back(o);
  }
  if (order.size() > 1) { // (a sort's buffer is an allocation)
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return observations.keys()[a]->steps.size() > observations.keys()[b]->steps.size();
    });
  }
  const int kept = static_cast<int>(order.size());
  if (kept > models::kMaxObservations) {
    const int S = group.scenarios;
    int moved = 0; // a max, min or knocked basket's gamma observes its level on moved paths too
    for (const auto& v : group.instruments)
      for_each_moved(v, [&](std::int16_t) { ++moved; });
    throw config::ConfigError(
        config.file, config.models[static_cast<std::size_t>(model_index)].mark,
        "models[" + std::to_string(model_index) + "]",
        "its instruments need " + std::to_string(kept) +
            " distinct observation schedules (maturities, fixing and monitoring schedules" +
            (S > 1 ? ", for each of the " + std::to_string(S) + " scenarios of the Greeks" : "") +
            (moved > 0 ? ", and for the gammas of max, min and knocked baskets each schedule "
                         "again with each underlying's spot moved up and down"
                       : "") +
            "); at most " + std::to_string(models::kMaxObservations) + " are supported per model" +
            (moved > 0 ? ": ask for no gamma, or split the baskets over more models" : ""));
  }
  std::vector<int>& renumber = used; // its marks are read: it becomes the new numbers
  std::fill(renumber.begin(), renumber.end(), -1);
  for (std::size_t n = 0; n < order.size(); ++n)
    renumber[order[n]] = static_cast<int>(n);
  renumber_instruments(renumber, group);
  std::vector<const std::vector<int>*> observation_steps;
  observation_steps.reserve(order.size());
  group.observations.reserve(order.size());
  for (std::size_t o : order) {
    const auto& key = *observations.keys()[o];
    models::ObservationView view{};
    view.kind = key.kind;
    view.asset = key.asset;
    view.count = static_cast<int>(key.steps.size());
    view.legs = static_cast<int>(key.level.weights.size());
    view.basket = key.level.basket;
    for (int a = 0; a < view.legs; ++a)
      view.weights[a] = key.level.weights[static_cast<std::size_t>(a)];
    view.shifted_leg = key.level.shifted_leg;
    view.leg_scale = key.level.leg_scale;
    group.observations.push_back(view);
    observation_steps.push_back(&key.steps);
  }
  return observation_steps;
}

void plan_observation_runs(const std::vector<const std::vector<int>*>& observation_steps,
                           GroupPlan& group) {
  const int steps = group.steps();
  // The observations at each grid index, in increasing number: grid index s holds
  // events[first[s] .. first[s + 1]) (one array, not a vector per step: a book of 1,000 groups
  // of daily steps grew 250,000 of them).
  // A counting sort in place: counts at s + 2, their prefix sums put grid index s's start at
  // s + 1, and placing each event moves it to s, where the next grid index starts.
  // One array: the grid's starts, then the events.
  std::size_t total = 0;
  for (const auto* at : observation_steps)
    total += at->size();
  const std::size_t starts = static_cast<std::size_t>(steps) + 3;
  std::vector<std::size_t> buffer(starts + total, 0);
  std::size_t* first = buffer.data();
  std::size_t* events = first + starts;
  for (const auto* at : observation_steps) {
    for (int s : *at)
      ++first[static_cast<std::size_t>(s) + 2];
  }
  for (std::size_t s = 1; s < starts; ++s)
    first[s] += first[s - 1];
  for (std::size_t o = 0; o < observation_steps.size(); ++o) {
    for (int s : *observation_steps[o])
      events[first[static_cast<std::size_t>(s) + 1]++] = o;
  }
  std::size_t observed_steps = 0;
  for (int s = 0; s < steps; ++s)
    observed_steps +=
        first[static_cast<std::size_t>(s) + 1] != first[static_cast<std::size_t>(s) + 2];
  // At most one run a step, and the sentinel (a few reserved: a long grid's runs merge).
  group.observation_runs.reserve(std::min<std::size_t>(observed_steps, 7) + 1);
  // Kernel step s moves the path from times[s] to times[s + 1]; its observations are those at
  // grid index s + 1.
  // Consecutive steps with the same register-slot observations and none beyond the slots
  // merge into one run.
  for (int s = 0; s < steps; ++s) {
    const auto grid_index = static_cast<std::size_t>(s) + 1;
    if (first[grid_index] == first[grid_index + 1])
      continue;
    models::ObservationRun run{s, s, 0u, -1};
    const int spill_begin = static_cast<int>(group.spill_events.size());
    for (std::size_t e = first[grid_index]; e < first[grid_index + 1]; ++e) {
      const int o = static_cast<int>(events[e]);
      const auto& view = group.observations[static_cast<std::size_t>(o)];
      if (o < models::kRegisterObservations) {
        run.masks |= 1u << (static_cast<int>(view.kind) * models::kRegisterObservations + o);
      } else {
        group.spill_events.push_back(models::EventCode{static_cast<unsigned char>(o),
                                                       static_cast<unsigned char>(view.kind),
                                                       static_cast<unsigned char>(view.asset), 0});
      }
    }
    const int spill_end = static_cast<int>(group.spill_events.size());
    if (spill_end > spill_begin) {
      run.spill = static_cast<int>(group.spill_ranges.size());
      group.spill_ranges.push_back(models::SpillRange{spill_begin, spill_end});
    }
    auto& runs = group.observation_runs;
    if (!runs.empty() && run.spill < 0 && runs.back().spill < 0 && runs.back().last == s - 1 &&
        runs.back().masks == run.masks) {
      runs.back().last = s;
    } else {
      runs.push_back(run);
    }
  }
  group.observation_runs.push_back(models::ObservationRun{INT_MAX, INT_MAX, 0u, -1});
}

} // namespace pfmc::engine::plan_detail
