#include "engine/scale/rank_message.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/error.hpp"
#include "engine/scale/communicator.hpp"

namespace pfmc::engine {

namespace {

/// The messages between ranks: the values' bytes as they are in memory (the ranks of a job run
/// the same build on the same kind of host).
class MessageWriter {
public:
  explicit MessageWriter(char kind) : bytes_(1, kind) {}
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes_ += text;
  }
  void put(const std::vector<double>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  }
  template <class T>
  void operator()(const T& value) {
    put(value);
  }
  [[nodiscard]] const std::string& bytes() const { return bytes_; }

private:
  std::string bytes_;
};

class MessageReader {
public:
  explicit MessageReader(const std::string& bytes) : bytes_(bytes), at_(1) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string get_string() {
    const auto size = static_cast<std::size_t>(get<std::uint64_t>());
    need(size);
    std::string text = bytes_.substr(at_, size);
    at_ += size;
    return text;
  }
  std::vector<double> get_doubles() {
    const auto size = static_cast<std::size_t>(get<std::uint64_t>());
    need(size * sizeof(double));
    std::vector<double> values(size);
    std::memcpy(values.data(), bytes_.data() + at_, size * sizeof(double));
    at_ += size * sizeof(double);
    return values;
  }
  template <class T>
  void operator()(T& value) {
    if constexpr (std::is_same_v<T, std::string>)
      value = get_string();
    else if constexpr (std::is_same_v<T, std::vector<double>>)
      value = get_doubles();
    else
      value = get<T>();
  }

private:
  void need(std::size_t size) const {
    if (at_ + size > bytes_.size())
      throw RuntimeError("a rank's message is truncated");
  }
  const std::string& bytes_;
  std::size_t at_;
};

// Each message field once, for both directions: `message(field)` writes it (MessageWriter) or
// reads it into the field (MessageReader).
template <class Message, class Outcome>
void outcome_fields(Message& message, Outcome& o) {
  message(o.paths);
  message(o.range.first);
  message(o.range.end);
  message(o.stack);
  message(o.path_steps);
  message(o.kernel_ms);
  message(o.rng_ms);
  message(o.bytes_loaded);
  message(o.chunks);
  message(o.regression_ms);
  message(o.regression_path_steps);
}

template <class Message, class Info>
void worker_fields(Message& message, Info& info) {
  message(info.rank);
  message(info.device);
  message(info.name);
  message(info.backend);
  message(info.paths);
  message(info.path_steps);
  message(info.kernel_ms);
  message(info.rng_ms);
  message(info.wall_ms);
  message(info.turn_wait_ms);
}

} // namespace

std::string outcomes_message(const std::vector<GroupOutcome>& outcomes,
                             const std::vector<WorkerInfo>& workers, const PlanStats& stats) {
  MessageWriter w(kMessageOutcomes);
  w.put(static_cast<std::uint64_t>(workers.size()));
  for (const WorkerInfo& info : workers)
    worker_fields(w, info);
  w.put(stats);
  w.put(static_cast<std::uint64_t>(outcomes.size()));
  for (const GroupOutcome& o : outcomes)
    outcome_fields(w, o);
  return w.bytes();
}

void read_outcomes_message(const std::string& message, std::size_t groups,
                           std::vector<GroupOutcome>& outcomes, std::vector<WorkerInfo>& workers,
                           PlanStats& stats) {
  MessageReader r(message);
  const auto count = r.get<std::uint64_t>();
  for (std::uint64_t k = 0; k < count; ++k) {
    WorkerInfo info;
    worker_fields(r, info);
    workers.push_back(info);
  }
  stats = r.get<PlanStats>();
  if (r.get<std::uint64_t>() != groups)
    throw RuntimeError("a rank's message has another number of simulation groups");
  for (std::size_t g = 0; g < groups; ++g)
    outcome_fields(r, outcomes.emplace_back());
}

} // namespace pfmc::engine
