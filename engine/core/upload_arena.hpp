#pragma once
// Packs many small host arrays into one buffer so that a launch's group data goes to the
// device in one copy (thousands of groups would otherwise cost thousands of copies).

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

namespace pfmc::engine {

class UploadArena {
public:
  /// A measuring arena: add() and add_as() only count, so that the same packing code, run on
  /// one first, gives the size to reserve() a real arena once (the 8,192-group book's arena
  /// grew 20 times).
  struct Measure {};
  UploadArena() = default;
  explicit UploadArena(Measure) : measuring_(true) {}

  /// Appends the array (aligned to 16 bytes) and returns its byte offset in the arena.
  template <class T>
  std::size_t add(const T* data, std::size_t count) {
    const std::size_t offset = grow(count * sizeof(T));
    if (!measuring_ && count > 0)
      std::memcpy(bytes_.data() + offset, data, count * sizeof(T));
    return offset;
  }
  template <class T, class Allocator> // std::vector and engine::PlanArray
  std::size_t add(const std::vector<T, Allocator>& v) {
    return add(v.data(), v.size());
  }
  /// Appends the values converted to To (aligned to 16 bytes), without a converted copy.
  template <class To, class From, class Allocator>
  std::size_t add_as(const std::vector<From, Allocator>& v) {
    if constexpr (std::is_same_v<To, From>) {
      return add(v);
    } else {
      const std::size_t offset = grow(v.size() * sizeof(To));
      for (std::size_t i = 0; i < v.size() && !measuring_; ++i) {
        const auto value = static_cast<To>(v[i]);
        std::memcpy(bytes_.data() + offset + i * sizeof(To), &value, sizeof(To));
      }
      return offset;
    }
  }
  void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
  /// Overwrites the value at `offset` (from add) — for a value that holds device addresses of
  /// the arena's other arrays, known once the device buffer exists.
  template <class T>
  void set(std::size_t offset, const T& value) {
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
  }
  [[nodiscard]] const unsigned char* data() const { return bytes_.data(); }
  [[nodiscard]] std::size_t size() const { return measuring_ ? measured_ : bytes_.size(); }

private:
  /// Makes room for `bytes` at the next 16-byte boundary and returns where they start.
  std::size_t grow(std::size_t bytes) {
    const std::size_t offset = (size() + 15) / 16 * 16;
    if (measuring_) {
      measured_ = offset + bytes;
    } else {
      bytes_.resize(offset + bytes);
    }
    return offset;
  }

  bool measuring_ = false;
  std::size_t measured_ = 0;
  std::vector<unsigned char> bytes_;
};

} // namespace pfmc::engine
