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
  /// Appends the array (aligned to 16 bytes) and returns its byte offset in the arena.
  template <class T>
  std::size_t add(const T* data, std::size_t count) {
    const std::size_t offset = (bytes_.size() + 15) / 16 * 16;
    bytes_.resize(offset + count * sizeof(T));
    if (count > 0)
      std::memcpy(bytes_.data() + offset, data, count * sizeof(T));
    return offset;
  }
  template <class T>
  std::size_t add(const std::vector<T>& v) {
    return add(v.data(), v.size());
  }
  /// Appends the values converted to To (aligned to 16 bytes), without a converted copy.
  template <class To, class From>
  std::size_t add_as(const std::vector<From>& v) {
    if constexpr (std::is_same_v<To, From>) {
      return add(v);
    } else {
      const std::size_t offset = (bytes_.size() + 15) / 16 * 16;
      bytes_.resize(offset + v.size() * sizeof(To));
      for (std::size_t i = 0; i < v.size(); ++i) {
        const auto value = static_cast<To>(v[i]);
        std::memcpy(bytes_.data() + offset + i * sizeof(To), &value, sizeof(To));
      }
      return offset;
    }
  }
  /// The bytes `count` values of T take in the arena at most (with their alignment): what a
  /// caller sums to reserve() the arena once.
  template <class T>
  static std::size_t bytes_for(std::size_t count) {
    return (count * sizeof(T) + 15) / 16 * 16;
  }
  void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
  /// Overwrites the value at `offset` (from add) — for a value that holds device addresses of
  /// the arena's other arrays, known once the device buffer exists.
  template <class T>
  void set(std::size_t offset, const T& value) {
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
  }
  [[nodiscard]] const unsigned char* data() const { return bytes_.data(); }
  [[nodiscard]] std::size_t size() const { return bytes_.size(); }

private:
  std::vector<unsigned char> bytes_;
};

} // namespace pfmc::engine
