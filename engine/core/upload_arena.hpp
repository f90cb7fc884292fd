#pragma once
// Packs many small host arrays into one buffer so that a launch's group data goes to the
// device in one copy (thousands of groups would otherwise cost thousands of copies).

#include <cstddef>
#include <cstring>
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
