#include "engine/scale/split_run.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <string>

#include "base/error.hpp"
#include "base/trace.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/visible_devices.hpp"
#include "engine/run/cpu_engine.hpp"
#include "engine/run/exercise.hpp"
#include "engine/run/gpu_engine.hpp"
#include "engine/scale/communicator.hpp"
#include "engine/scale/device_threads.hpp"
#include "engine/scale/partial_sums.hpp"
#include "engine/scale/rank_message.hpp"
#include "engine/scale/work_split.hpp"
#include "kernels/catalog.hpp"
#include "kernels/reduction_shape.cuh"

namespace pfmc::engine {

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// What one worker brings back.
struct WorkerRun {
  std::vector<GroupOutcome> outcomes;
  PlanStats stats;
  WorkerInfo info;
};

} // namespace

std::vector<GroupOutcome> merge_pieces(const SimulationPlan& plan,
                                       const std::vector<std::vector<GroupOutcome>>& pieces) {
  std::vector<GroupOutcome> merged(plan.groups.size());
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const int values = plan.groups[g].reduced_values();
    GroupOutcome& m = merged[g];
    PartialSums sums;
    bool any = false;
    for (const auto& piece : pieces) {
      const GroupOutcome& o = piece[g];
      if (o.paths == 0)
        continue;
      PartialSums part(o.range.first / kernels::kTilePaths, values);
      part.end_tile = kernels::tiles_for_paths(o.range.end);
      part.blocks = o.stack;
      sums.append(part);
      if (!any)
        m.range.first = o.range.first;
      any = true;
      m.range.end = o.range.end;
      m.paths += o.paths;
      m.path_steps += o.path_steps;
      m.kernel_ms += o.kernel_ms;
      m.rng_ms += o.rng_ms;
      m.bytes_loaded += o.bytes_loaded;
      m.chunks += o.chunks;
      m.regression_ms += o.regression_ms;
      m.regression_path_steps += o.regression_path_steps;
    }
    m.totals = any ? sums.totals() : std::vector<double>(static_cast<std::size_t>(values), 0.0);
    m.stack = std::move(sums.blocks);
  }
  return merged;
}

namespace {

/// Thrown in a worker waiting for the others' sums of a date when one of them failed: its own
/// error is the run's.
struct RegressionAbandoned : RuntimeError {
  RegressionAbandoned() : RuntimeError("another worker of the split run failed") {}
};

/// Early exercise's regression pass shared by this process's GPU workers
/// (engine/run/exercise.hpp): the regression paths' tiles cut evenly over them in order, each
/// date's stacks merged in that order by the last worker to give its own.
class SharedRegression {
public:
  explicit SharedRegression(std::size_t workers) : parts_(workers) {}

  class Worker final : public RegressionShare {
  public:
    Worker(SharedRegression& shared, std::size_t index) : shared_(shared), index_(index) {}
    [[nodiscard]] PathRange range(std::uint64_t paths) const override {
      const std::uint64_t tiles = kernels::tiles_for_paths(paths);
      const std::uint64_t workers = shared_.parts_.size();
      const std::uint64_t first = tiles * index_ / workers;
      const std::uint64_t end = tiles * (index_ + 1) / workers;
      return {std::min(first * kernels::kTilePaths, paths),
              std::min(end * kernels::kTilePaths, paths)};
    }
    std::vector<double> combine(std::uint64_t first_tile, std::uint64_t end_tile, int values,
                                std::vector<double> blocks) override {
      PartialSums part(first_tile, values);
      part.end_tile = end_tile;
      part.blocks = std::move(blocks);
      return shared_.combine(index_, std::move(part));
    }

  private:
    SharedRegression& shared_;
    std::size_t index_;
  };

  /// A failed worker lets the others go (they throw RegressionAbandoned).
  void abandon() {
    const std::lock_guard<std::mutex> lock(mutex_);
    failed_ = true;
    arrived_.notify_all();
  }

private:
  std::vector<double> combine(std::size_t index, PartialSums part) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_)
      throw RegressionAbandoned();
    parts_[index] = std::move(part);
    if (++count_ < parts_.size()) {
      const std::uint64_t round = round_;
      arrived_.wait(lock, [&] { return round_ != round || failed_; });
      if (round_ == round)
        throw RegressionAbandoned();
      return totals_;
    }
    // The last to arrive merges every worker's stack, in worker order.
    PartialSums merged(0, parts_.front().values);
    for (const PartialSums& p : parts_)
      merged.append(p);
    totals_ = merged.totals(); // zeros when no worker has a path
    count_ = 0;
    ++round_;
    arrived_.notify_all();
    return totals_;
  }

  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<PartialSums> parts_;
  std::size_t count_ = 0;
  std::uint64_t round_ = 0;
  std::vector<double> totals_;
  bool failed_ = false;
};

/// One worker: its device (its thread has it set: engine/scale/device_threads.hpp) and slot,
/// its share of the groups' paths.
WorkerRun run_worker(const SimulationPlan& plan, const ExecutionSettings& settings,
                     std::vector<ExecutionSettings> group_settings, bool on_gpu, int device,
                     int slot, int sharing, const WorkShare& share, const ProgressFn& progress,
                     int rank, RegressionShare* regression) {
  const auto start = Clock::now();
  const base::TraceSpan span("worker", on_gpu ? device : -1);
  WorkerRun w;
  w.info.rank = rank;
  w.info.device = on_gpu ? physical_ordinal(device) : -1;
  if (share_empty(share)) {
    w.outcomes.resize(plan.groups.size());
    for (std::size_t g = 0; g < plan.groups.size(); ++g)
      w.outcomes[g].totals.assign(static_cast<std::size_t>(plan.groups[g].reduced_values()), 0.0);
  } else if (on_gpu) {
    // Workers on the same device (a test's [0, 0]) share its memory cap.
    for (auto& s : group_settings)
      s.memory_cap /= static_cast<std::uint64_t>(sharing);
    w.outcomes =
        run_plan_on_gpu(plan, group_settings, progress, &w.stats, &share, slot, regression);
  } else {
    w.outcomes = run_plan_on_cpu(plan, settings, progress, &w.stats, &share);
  }
  w.info.name = on_gpu ? device_properties(device).name
                       : "CPU (" + std::to_string(settings.cpu_threads) + " threads)";
  w.info.backend = on_gpu ? backends_summary(group_settings) : "cpu";
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    w.info.paths += w.outcomes[g].paths;
    w.info.path_steps += static_cast<double>(w.outcomes[g].path_steps);
    w.info.kernel_ms += w.outcomes[g].kernel_ms;
    w.info.rng_ms += w.outcomes[g].rng_ms;
  }
  w.info.wall_ms = milliseconds_since(start);
  return w;
}

/// The workers' progress as one: each reports its own paths done, the caller hears their sum
/// (one call at a time), and in an MPI job the other ranks' sums too: the thread that waits for
/// the workers relays them (relay()), rank 0 hearing every rank's, the others posting theirs.
class CombinedProgress {
public:
  /// `inline_relay`: the workers report on the communicator's thread (the CPU backend's one
  /// worker), which relays at once.
  /// `paths`: the whole run's (every rank's), which the sum rises to.
  CombinedProgress(const ProgressFn& progress, std::size_t workers, Communicator* processes,
                   bool inline_relay, std::uint64_t paths)
      : progress_(progress), processes_(processes), inline_relay_(inline_relay), total_(paths),
        done_(workers, 0) {}
  /// Worker k's callback (empty when nobody listens).
  ProgressFn worker(std::size_t k) {
    if (!progress_)
      return {};
    return [this, k](const Progress& p) {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_[k] = p.paths_done;
      last_ = p;
      changed_ = true;
      if (processes_ == nullptr)
        report();
      else if (inline_relay_)
        relay_locked();
    };
  }
  /// In an MPI job, from the communicator's thread while the workers run: rank 0 reads the other
  /// ranks' progress and reports the sum; another rank posts its own when it has changed.
  void relay() {
    if (!progress_ || processes_ == nullptr)
      return;
    const std::lock_guard<std::mutex> lock(mutex_);
    relay_locked();
  }
  [[nodiscard]] bool relays() const { return progress_ && processes_ != nullptr; }

private:
  void relay_locked() {
    if (processes_->rank() != 0) {
      if (changed_)
        processes_->post_progress(sum(done_));
      changed_ = false;
      return;
    }
    const std::vector<std::uint64_t> before = remote_done_;
    processes_->read_progress(remote_done_);
    if (changed_ || remote_done_ != before)
      report();
    changed_ = false;
  }

  static std::uint64_t sum(const std::vector<std::uint64_t>& values) {
    std::uint64_t total = 0;
    for (std::uint64_t v : values)
      total += v;
    return total;
  }
  void report() {
    Progress p = last_;
    // Rank 0's own entry among the ranks' stays 0: its workers' are done_.
    p.paths_done = sum(done_) + sum(remote_done_);
    p.paths = total_;
    p.workers =
        static_cast<int>(done_.size()) + (processes_ != nullptr ? processes_->size() - 1 : 0);
    progress_(p);
  }

  const ProgressFn& progress_;
  Communicator* processes_;
  bool inline_relay_;
  std::uint64_t total_;
  std::mutex mutex_;
  std::vector<std::uint64_t> done_;        ///< this process's workers' paths done
  std::vector<std::uint64_t> remote_done_; ///< rank 0: every rank's, by rank
  Progress last_;
  bool changed_ = false;
};

/// This process's piece of the run over its workers (a thread of each device's, or the CPU
/// backend on the caller's), merged.
std::vector<GroupOutcome> run_local(const SimulationPlan& plan, const ExecutionSettings& settings,
                                    const std::vector<ExecutionSettings>& group_settings,
                                    bool on_gpu, const Placement& placement, const WorkShare& mine,
                                    const ProgressFn& progress, int rank,
                                    std::vector<WorkerInfo>& workers, PlanStats& stats,
                                    Communicator* processes) {
  std::vector<int> steps;
  for (const GroupPlan& g : plan.groups)
    steps.push_back(g.steps());
  const std::vector<int> places = on_gpu ? placement.devices : std::vector<int>{-1};
  const std::vector<int> slots = device_slots(places);
  const std::vector<WorkShare> pieces = split_share(mine, steps, places.size());
  std::vector<WorkerRun> runs(places.size());
  std::uint64_t total_paths = 0; // the whole run's: a path of each group counts once
  for (std::size_t g = 0; g < plan.groups.size(); ++g)
    total_paths += settings.paths;
  CombinedProgress combined(progress, places.size(), processes, !on_gpu, total_paths);
  // Early exercise: the GPU workers that run (a share of paths) fit the rules together.
  const bool exercise = std::any_of(plan.groups.begin(), plan.groups.end(),
                                    [](const GroupPlan& g) { return g.exercise.present(); });
  std::vector<std::size_t> fitting; // the workers that share the regression pass, in order
  for (std::size_t k = 0; k < places.size(); ++k) {
    if (on_gpu && exercise && !share_empty(pieces[k]))
      fitting.push_back(k);
  }
  SharedRegression shared(std::max<std::size_t>(fitting.size(), 1));
  std::vector<std::unique_ptr<SharedRegression::Worker>> handles(places.size());
  for (std::size_t f = 0; f < fitting.size(); ++f)
    handles[fitting[f]] = std::make_unique<SharedRegression::Worker>(shared, f);
  auto work = [&](std::size_t k) {
    try {
      const auto sharing = std::count(places.begin(), places.end(), places[k]);
      const int kind = on_gpu && k < placement.device_kinds.size() ? placement.device_kinds[k] : 0;
      runs[k] =
          run_worker(plan, settings, settings_of_kind(group_settings, placement, kind), on_gpu,
                     places[k], slots[k], static_cast<int>(sharing), pieces[k],
                     places.size() > 1 || processes != nullptr ? combined.worker(k) : progress,
                     rank, handles[k].get());
    } catch (...) {
      shared.abandon();
      throw;
    }
  };
  if (!on_gpu) {
    work(0);
    combined.relay();
  } else {
    std::vector<std::future<void>> done;
    for (std::size_t k = 0; k < places.size(); ++k)
      done.push_back(run_on_device(places[k], slots[k], [&work, k] { work(k); }));
    // This thread relays an MPI job's progress while it waits (the workers never call MPI).
    for (auto& d : done) {
      while (combined.relays() &&
             d.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
        combined.relay();
    }
    combined.relay();
    // Every worker ends before an error is thrown: the first in worker order that is not a
    // worker let go by another's failure.
    std::exception_ptr error, abandoned;
    for (auto& d : done) {
      try {
        d.get();
      } catch (const RegressionAbandoned&) {
        if (!abandoned)
          abandoned = std::current_exception();
      } catch (...) {
        if (!error)
          error = std::current_exception();
      }
    }
    if (error || abandoned)
      std::rethrow_exception(error ? error : abandoned);
  }
  std::vector<std::vector<GroupOutcome>> parts;
  for (WorkerRun& w : runs) {
    parts.push_back(std::move(w.outcomes));
    workers.push_back(w.info);
    add_plan_stats(stats, w.stats);
  }
  return merge_pieces(plan, parts);
}

} // namespace

std::vector<ExecutionSettings>
settings_of_kind(const std::vector<ExecutionSettings>& group_settings, const Placement& placement,
                 int kind) {
  if (kind <= 0 || static_cast<std::size_t>(kind) >= placement.kind_settings.size())
    return group_settings;
  const std::vector<ExecutionSettings>& theirs =
      placement.kind_settings[static_cast<std::size_t>(kind)];
  PFMC_EXPECTS(theirs.size() == group_settings.size(), "a device kind has every group's settings");
  std::vector<ExecutionSettings> mine = group_settings;
  for (std::size_t g = 0; g < mine.size(); ++g) {
    mine[g].backend = theirs[g].backend;
    mine[g].prefetch_distance = theirs[g].prefetch_distance;
    mine[g].padding = theirs[g].padding;
    mine[g].memory_cap = theirs[g].memory_cap;
  }
  return mine;
}

std::string backends_summary(const std::vector<ExecutionSettings>& group_settings) {
  std::vector<std::string> seen;
  for (const ExecutionSettings& s : group_settings) {
    const kernels::BackendInfo* info = kernels::find_backend(s.backend);
    std::string name = s.backend;
    if (info != nullptr && info->uses_prefetch_distance)
      name += " d" + std::to_string(s.prefetch_distance);
    if (std::find(seen.begin(), seen.end(), name) == seen.end())
      seen.push_back(name);
  }
  if (seen.size() == 1)
    return seen.front();
  std::string all = "per group:";
  for (std::size_t k = 0; k < seen.size(); ++k)
    all += (k == 0 ? " " : ", ") + seen[k];
  return all;
}

bool Placement::split(bool on_gpu) const {
  return processes != nullptr ||
         (on_gpu && (devices.size() > 1 || (devices.size() == 1 && devices.front() != 0)));
}

std::vector<GroupOutcome> run_split(const SimulationPlan& plan, const ExecutionSettings& settings,
                                    const std::vector<ExecutionSettings>& group_settings,
                                    bool on_gpu, const Placement& placement,
                                    const ProgressFn& progress, PlanStats& stats, RunInfo& run) {
  PFMC_EXPECTS(settings.rng == config::RngType::philox, "a split run draws counter-based numbers");
  const auto start = Clock::now();
  Communicator* processes = placement.processes;
  const int ranks = processes != nullptr ? processes->size() : 1;
  const int rank = processes != nullptr ? processes->rank() : 0;
  run.processes = ranks;
  run.rank = rank;
  std::vector<int> steps;
  for (const GroupPlan& g : plan.groups)
    steps.push_back(g.steps());
  const WorkShare whole = whole_run(plan.groups.size(), settings.paths);
  std::vector<WorkerInfo> workers;
  if (processes == nullptr) {
    auto outcomes = run_local(plan, settings, group_settings, on_gpu, placement, whole, progress,
                              rank, workers, stats, nullptr);
    run.workers = workers;
    run.split_wall_ms = milliseconds_since(start);
    return outcomes;
  }
  // Ranks: each runs its piece, then one gather to rank 0, errors included.
  std::string message;
  try {
    const WorkShare mine =
        split_share(whole, steps, static_cast<std::size_t>(ranks))[static_cast<std::size_t>(rank)];
    const auto local = run_local(plan, settings, group_settings, on_gpu, placement, mine, progress,
                                 rank, workers, stats, processes);
    for (WorkerInfo& w : workers)
      w.turn_wait_ms = processes->turn_wait_ms();
    message = outcomes_message(local, workers, stats);
  } catch (const std::exception& e) {
    message = std::string(1, kMessageError) + e.what();
  }
  processes->end_turn(); // the host's next rank on this GPU may start
  const auto gather_start = Clock::now();
  const std::vector<std::string> messages = processes->gather(message);
  if (rank != 0) {
    if (message.front() == kMessageError)
      throw RuntimeError(message.substr(1));
    return {};
  }
  for (std::size_t r = 0; r < messages.size(); ++r) {
    if (messages[r].empty() || messages[r].front() != kMessageOutcomes) {
      throw RuntimeError(
          "rank " + std::to_string(r) + ": " +
          (messages[r].empty() ? std::string("sent nothing") : messages[r].substr(1)));
    }
  }
  for (const std::string& m : messages)
    run.gather_bytes += static_cast<double>(m.size());
  std::vector<std::vector<GroupOutcome>> parts(messages.size());
  run.workers.clear();
  stats = PlanStats{};
  for (std::size_t r = 0; r < messages.size(); ++r) {
    PlanStats rank_stats;
    read_outcomes_message(messages[r], plan.groups.size(), parts[r], run.workers, rank_stats);
    add_plan_stats(stats, rank_stats);
  }
  auto outcomes = merge_pieces(plan, parts);
  run.gather_ms = milliseconds_since(gather_start);
  run.split_wall_ms = milliseconds_since(start);
  return outcomes;
}

} // namespace pfmc::engine
