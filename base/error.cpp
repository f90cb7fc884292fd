#include "base/error.hpp"

#include <string>

namespace pfmc::detail {

namespace {
std::string where(const char* file, int line) {
  std::string f(file);
  // Keep paths short and stable: from the project's top-level folder on.
  for (const char* top :
       {"/engine/", "/kernels/", "/models/", "/config/", "/apps/", "/tests/", "/bench/"}) {
    const auto pos = f.rfind(top);
    if (pos != std::string::npos) {
      f = f.substr(pos + 1);
      break;
    }
  }
  return f + ":" + std::to_string(line);
}

const char* curand_status_name(int code) {
  switch (code) {
  case 101:
    return "CURAND_STATUS_VERSION_MISMATCH";
  case 102:
    return "CURAND_STATUS_NOT_INITIALIZED";
  case 103:
    return "CURAND_STATUS_ALLOCATION_FAILED";
  case 104:
    return "CURAND_STATUS_TYPE_ERROR";
  case 105:
    return "CURAND_STATUS_OUT_OF_RANGE";
  case 106:
    return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
  case 107:
    return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
  case 201:
    return "CURAND_STATUS_LAUNCH_FAILURE";
  case 202:
    return "CURAND_STATUS_PREEXISTING_FAILURE";
  case 203:
    return "CURAND_STATUS_INITIALIZATION_FAILED";
  case 204:
    return "CURAND_STATUS_ARCH_MISMATCH";
  case 999:
    return "CURAND_STATUS_INTERNAL_ERROR";
  default:
    return "unknown cuRAND status";
  }
}
} // namespace

void throw_cuda_error(int code, const char* name, const char* text, const char* call,
                      const char* file, int line) {
  throw CudaError(where(file, line) + ": CUDA error " + std::to_string(code) + " (" + name + ": " +
                  text + ") in " + call);
}

void throw_curand_error(int code, const char* call, const char* file, int line) {
  throw CudaError(where(file, line) + ": cuRAND error " + std::to_string(code) + " (" +
                  curand_status_name(code) + ") in " + call);
}

void throw_logic_error(const char* condition, const std::string& message, const char* file,
                       int line) {
  throw LogicError(where(file, line) + ": " + message + " (expected " + condition + ")");
}

} // namespace pfmc::detail
