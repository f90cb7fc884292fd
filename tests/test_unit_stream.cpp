// engine/run/unit_stream.hpp: a run's units finished on a thread of their own once each unit's
// sums are ready, every group once; an error stops the stream and comes back from close().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/run/unit_stream.hpp"

namespace pfmc {
namespace {

/// A gate the stream's thread waits at until the test opens it.
class Gate {
public:
  void open() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
  }

private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

std::vector<int> range_of(int first, int count) {
  std::vector<int> groups(static_cast<std::size_t>(count));
  std::iota(groups.begin(), groups.end(), first);
  return groups;
}

TEST(UnitStream, FinishesEachUnitsGroupsOnceItsSumsAreReady) {
  constexpr int kGroups = 3000; // the second unit (2,000 groups) on several threads
  std::vector<std::atomic<int>> finished(kGroups);
  Gate first, second;
  engine::UnitStream stream([&](std::size_t g) { ++finished[g]; });
  stream.post([&] { first.wait(); }, range_of(0, 1000));
  stream.post([&] { second.wait(); }, range_of(1000, 2000));
  // Nothing is finished before its unit's sums are ready (the stream's thread had time).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int g = 0; g < kGroups; ++g)
    ASSERT_EQ(finished[static_cast<std::size_t>(g)].load(), 0) << g;
  first.open();
  second.open();
  stream.close();
  for (int g = 0; g < kGroups; ++g)
    EXPECT_EQ(finished[static_cast<std::size_t>(g)].load(), 1) << g;
}

TEST(UnitStream, AnErrorStopsTheStreamAndComesBackFromClose) {
  std::vector<std::atomic<int>> finished(30);
  engine::UnitStream stream([&](std::size_t g) {
    if (g == 15)
      throw std::runtime_error("group 15 failed");
    ++finished[g];
  });
  stream.post([] {}, range_of(0, 10));
  stream.post([] {}, range_of(10, 10));
  stream.post([] {}, range_of(20, 10));
  try {
    stream.close();
    FAIL() << "close() did not rethrow the unit's error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "group 15 failed");
  }
  for (int g = 0; g < 10; ++g)
    EXPECT_EQ(finished[static_cast<std::size_t>(g)].load(), 1) << g;
  for (int g = 20; g < 30; ++g) // the unit after the failed one is not finished
    EXPECT_EQ(finished[static_cast<std::size_t>(g)].load(), 0) << g;
  // An error while waiting for a unit's sums (a device fault) comes back the same way.
  engine::UnitStream faulty([](std::size_t) {});
  faulty.post([] { throw std::runtime_error("device fault"); }, range_of(0, 4));
  EXPECT_THROW(faulty.close(), std::runtime_error);
}

TEST(UnitStream, AStreamLeftUnclosedDropsTheUnitsNotStarted) {
  // A run that stops (an interrupt, an error while staging) leaves its stream unclosed: the
  // destructor finishes the unit in hand, drops the rest and throws nothing.
  std::vector<std::atomic<int>> finished(20);
  Gate gate;
  std::atomic<bool> waiting{false};
  std::thread opener;
  {
    engine::UnitStream stream([&](std::size_t g) { ++finished[g]; });
    stream.post(
        [&] {
          waiting = true;
          gate.wait();
        },
        range_of(0, 10));
    stream.post([] {}, range_of(10, 10));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!waiting && std::chrono::steady_clock::now() < deadline) // the first unit is in hand
      std::this_thread::yield();
    EXPECT_TRUE(waiting) << "the stream never waited for the first unit's sums";
    opener = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      gate.open();
    });
  } // the destructor waits for the unit in hand, which waits for the gate
  opener.join();
  for (int g = 0; g < 10; ++g)
    EXPECT_EQ(finished[static_cast<std::size_t>(g)].load(), 1) << g;
  for (int g = 10; g < 20; ++g)
    EXPECT_EQ(finished[static_cast<std::size_t>(g)].load(), 0) << g;
}

} // namespace
} // namespace pfmc
