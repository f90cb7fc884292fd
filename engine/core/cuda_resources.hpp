#pragma once
// RAII owners of CUDA resources (rmm style): move-only, destructors never throw, every
// asynchronous operation takes a stream. No raw cudaMalloc/cudaFree anywhere else.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace pfmc::engine {

/// `bytes` of device memory from the stream-ordered allocator. Out of memory (a full card, another
/// process holding it, an injected fault: kernels/fault_injection.hpp) throws RuntimeError in one
/// line: the size asked, the card's free and total memory, the setting to lower.
void* allocate_device_bytes(std::size_t bytes, cudaStream_t stream);

/// Device memory from the stream-ordered allocator (cudaMallocAsync): allocation and release are
/// ordered on the buffer's stream and served from the device's memory pool, which
/// retain_device_memory_pool() keeps from shrinking, so a warm process allocates in microseconds.
template <class T>
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, cudaStream_t stream) : size_(count), stream_(stream) {
    if (count > 0) {
      data_ = static_cast<T*>(allocate_device_bytes(count * sizeof(T), stream));
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
        stream_(other.stream_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = other.stream_;
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] const T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t bytes() const { return size_ * sizeof(T); }

  /// Copies host → device on `stream`, then waits for it (the host vector may go away).
  static DeviceBuffer from_host(const std::vector<T>& host, cudaStream_t stream) {
    DeviceBuffer buffer(host.size(), stream);
    if (!host.empty()) {
      PFMC_CUDA_TRY(cudaMemcpyAsync(buffer.data_, host.data(), buffer.bytes(),
                                    cudaMemcpyHostToDevice, stream));
      PFMC_CUDA_TRY(cudaStreamSynchronize(stream));
    }
    return buffer;
  }

  void fill_zero(cudaStream_t stream) {
    if (size_ > 0)
      PFMC_CUDA_TRY(cudaMemsetAsync(data_, 0, bytes(), stream));
  }

  /// Copies device → host on `stream` and waits.
  [[nodiscard]] std::vector<T> to_host(cudaStream_t stream) const {
    std::vector<T> host(size_);
    if (size_ > 0) {
      PFMC_CUDA_TRY(cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream));
      PFMC_CUDA_TRY(cudaStreamSynchronize(stream));
    }
    return host;
  }

private:
  void release() noexcept {
    if (data_ != nullptr)
      (void)cudaFreeAsync(data_, stream_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
};

/// Page-locked host memory, for copies that overlap with the device's work.
template <class T>
class PinnedBuffer {
public:
  explicit PinnedBuffer(std::size_t count) : size_(count) {
    if (count > 0)
      PFMC_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (data_ != nullptr)
      (void)cudaFreeHost(data_);
  }
  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }

private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Keeps freed memory in the current device's default pool instead of returning it to the
/// driver at every synchronisation (call once per process; cheap to repeat).
inline void retain_device_memory_pool() {
  cudaMemPool_t pool = nullptr;
  int device = 0;
  PFMC_CUDA_TRY(cudaGetDevice(&device));
  PFMC_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t threshold = ~std::uint64_t{0};
  PFMC_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

/// A stream of its own. Non-blocking by default (no implicit order with the legacy default
/// stream); `Ordering::with_legacy_stream` keeps that order, for a stream whose work follows a
/// library's calls that may use the legacy stream (cuRAND's host API: CudaStream's users say
/// where).
class CudaStream {
public:
  enum class Ordering { independent, with_legacy_stream };
  explicit CudaStream(Ordering ordering = Ordering::independent) {
    PFMC_CUDA_TRY(cudaStreamCreateWithFlags(
        &stream_, ordering == Ordering::independent ? cudaStreamNonBlocking : cudaStreamDefault));
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() {
    if (stream_ != nullptr)
      (void)cudaStreamDestroy(stream_);
  }
  [[nodiscard]] cudaStream_t get() const { return stream_; }
  void synchronize() const { PFMC_CUDA_TRY(cudaStreamSynchronize(stream_)); }

private:
  cudaStream_t stream_ = nullptr;
};

/// For its scope, the calling thread's current device is `ordinal`; the one before it after
/// (nothing is set where `ordinal` is current already).
class ScopedDevice {
public:
  explicit ScopedDevice(int ordinal) {
    PFMC_CUDA_TRY(cudaGetDevice(&previous_));
    if (ordinal != previous_)
      PFMC_CUDA_TRY(cudaSetDevice(ordinal));
    changed_ = ordinal != previous_;
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;
  ~ScopedDevice() {
    if (changed_)
      (void)cudaSetDevice(previous_);
  }

private:
  int previous_ = 0;
  bool changed_ = false;
};

class CudaEvent {
public:
  CudaEvent() { PFMC_CUDA_TRY(cudaEventCreate(&event_)); }
  /// With cudaEventCreateWithFlags' flags (cudaEventDisableTiming: a mark to wait for only).
  explicit CudaEvent(unsigned flags) { PFMC_CUDA_TRY(cudaEventCreateWithFlags(&event_, flags)); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  ~CudaEvent() {
    if (event_ != nullptr)
      (void)cudaEventDestroy(event_);
  }
  void record(cudaStream_t stream) { PFMC_CUDA_TRY(cudaEventRecord(event_, stream)); }
  [[nodiscard]] cudaEvent_t get() const { return event_; }
  /// Waits on this thread until the work before the event is done.
  void synchronize() const { PFMC_CUDA_TRY(cudaEventSynchronize(event_)); }
  /// Milliseconds from `start` to this event (both must have completed).
  [[nodiscard]] float since(const CudaEvent& start) const {
    float ms = 0.0f;
    PFMC_CUDA_TRY(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

private:
  cudaEvent_t event_ = nullptr;
};

} // namespace pfmc::engine
