#pragma once
// Typed exceptions with file and line, and the macros that throw them (rmm/raft style).
// Destructors never throw: they use PFMC_CUDA_ASSERT_NOEXCEPT-style logging instead.

#include <stdexcept>
#include <string>

namespace pfmc {

/// A failure of the CUDA runtime or of a CUDA library (exit status 1 in the CLI).
class CudaError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A violated precondition: a caller asked for something that cannot be done.
class LogicError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// The run cannot go on (no device, a backend this device cannot run, out of memory...).
class RuntimeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {
[[noreturn]] void throw_cuda_error(int code, const char* name, const char* text, const char* call,
                                   const char* file, int line);
[[noreturn]] void throw_curand_error(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_logic_error(const char* condition, const std::string& message,
                                    const char* file, int line);
} // namespace detail

} // namespace pfmc

/// Throws pfmc::CudaError with the error's name, text, the call, file and line.
#define PFMC_CUDA_TRY(call)                                                                        \
  do {                                                                                             \
    const cudaError_t pfmc_status_ = (call);                                                       \
    if (pfmc_status_ != cudaSuccess) {                                                             \
      ::pfmc::detail::throw_cuda_error(                                                            \
          static_cast<int>(pfmc_status_), cudaGetErrorName(pfmc_status_),                          \
          cudaGetErrorString(pfmc_status_), #call, __FILE__, __LINE__);                            \
    }                                                                                              \
  } while (0)

/// Throws pfmc::CudaError naming the cuRAND status.
#define PFMC_CURAND_TRY(call)                                                                      \
  do {                                                                                             \
    const curandStatus_t pfmc_status_ = (call);                                                    \
    if (pfmc_status_ != CURAND_STATUS_SUCCESS) {                                                   \
      ::pfmc::detail::throw_curand_error(static_cast<int>(pfmc_status_), #call, __FILE__,          \
                                         __LINE__);                                                \
    }                                                                                              \
  } while (0)

/// Throws pfmc::LogicError("file:line: message (condition)") when cond is false.
#define PFMC_EXPECTS(cond, message)                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      ::pfmc::detail::throw_logic_error(#cond, (message), __FILE__, __LINE__);                     \
    }                                                                                              \
  } while (0)
