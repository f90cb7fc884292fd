#include "kernels/compile/runtime_compiler.hpp"

#include <nvrtc.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kernels/compile/embedded_sources.hpp"
#include "kernels/compile/kernel_cache.hpp"
#include "base/error.hpp"

namespace pfmc::kernels::compile {

namespace {

/// The source NVRTC compiles: the prelude, then what every path kernel is made of.
constexpr const char* kSource = "#include \"kernels/rtc/prelude.h\"\n"
                                "#include \"kernels/kernel_sources.cuh\"\n";

void check(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS)
    throw RuntimeError(std::string("NVRTC: ") + call + ": " + nvrtcGetErrorString(result));
}

/// The first `lines` lines of a compile log.
std::string head(const std::string& log, int lines) {
  std::size_t at = 0;
  for (int i = 0; i < lines && at != std::string::npos; ++i) {
    at = log.find('\n', at);
    if (at != std::string::npos)
      ++at;
  }
  return at == std::string::npos ? log : log.substr(0, at) + "...\n";
}

/// An NVRTC program, destroyed on every path.
struct Program {
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle != nullptr)
      nvrtcDestroyProgram(&handle);
  }
};

} // namespace

std::string toolkit_include_dir() {
  if (const char* dir = std::getenv("PFMC_CUDA_INCLUDE"); dir != nullptr && *dir != '\0')
    return dir;
  for (const char* home : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* dir = std::getenv(home); dir != nullptr && *dir != '\0')
      return std::string(dir) + "/include";
  }
  return kBuildToolkitInclude;
}

const std::vector<std::string>& compile_options() {
  static const std::vector<std::string> options = [] {
    std::vector<std::string> all;
    for (const char* const* option = kBuildOptions; *option != nullptr; ++option)
      all.emplace_back(*option);
    // Line tables only where asked (a profiler's source view): NVRTC embeds the PTX's text with
    // them, which every cache read and module load paid (black_scholes_f32's 72 kernels: 884 KB
    // an entry with them, 274 KB without; 10% less compile time), and they change no code.
    if (const char* lines = std::getenv("PFMC_KERNEL_LINEINFO");
        lines != nullptr && std::string(lines) == "1")
      all.emplace_back("-lineinfo");
    const std::string include = toolkit_include_dir();
    all.push_back("-I" + include + "/cccl");
    all.push_back("-I" + include);
    return all;
  }();
  return options;
}

const std::vector<SourceFile>& source_files() {
  static const std::vector<SourceFile> files = [] {
    const char* tree = std::getenv("PFMC_KERNEL_SOURCES");
    std::vector<SourceFile> out;
    for (std::size_t i = 0; i < kEmbeddedFileCount; ++i) {
      SourceFile file{kEmbeddedFiles[i].include_name, kEmbeddedFiles[i].text};
      const bool ours =
          file.include_name.rfind("kernels/", 0) == 0 || file.include_name.rfind("models/", 0) == 0;
      if (tree != nullptr && *tree != '\0' && ours) {
        const std::string path = std::string(tree) + "/" + file.include_name;
        std::ifstream in(path, std::ios::binary);
        if (!in)
          throw RuntimeError("PFMC_KERNEL_SOURCES: cannot read " + path);
        std::ostringstream text;
        text << in.rdbuf();
        file.text = text.str();
      }
      out.push_back(std::move(file));
    }
    return out;
  }();
  return files;
}

const std::string& source_digest() {
  static const std::string digest = [] {
    Fingerprint fingerprint;
    for (const SourceFile& file : source_files()) {
      fingerprint.add(file.include_name);
      fingerprint.add(file.text);
    }
    for (const std::string& option : compile_options())
      fingerprint.add(option);
    return fingerprint.hex();
  }();
  return digest;
}

std::string compiler_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

Cubin compile_kernel(const std::string& name_expression, int arch) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const char*> names, texts;
  for (const SourceFile& file : source_files()) {
    names.push_back(file.include_name.c_str());
    texts.push_back(file.text.c_str());
  }
  Program program;
  check(nvrtcCreateProgram(&program.handle, kSource, "pfmc_path_kernel.cu",
                           static_cast<int>(texts.size()), texts.data(), names.data()),
        "nvrtcCreateProgram");
  check(nvrtcAddNameExpression(program.handle, name_expression.c_str()), "nvrtcAddNameExpression");
  const std::string architecture = "-arch=sm_" + std::to_string(arch);
  std::vector<const char*> options{architecture.c_str()};
  for (const std::string& option : compile_options())
    options.push_back(option.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(program.handle, static_cast<int>(options.size()), options.data());
  std::size_t log_size = 0;
  check(nvrtcGetProgramLogSize(program.handle, &log_size), "nvrtcGetProgramLogSize");
  std::string log(log_size, '\0');
  if (log_size > 0)
    check(nvrtcGetProgramLog(program.handle, log.data()), "nvrtcGetProgramLog");
  if (compiled != NVRTC_SUCCESS) {
    throw RuntimeError("NVRTC could not compile " + name_expression + " for sm_" +
                       std::to_string(arch) + " (" + nvrtcGetErrorString(compiled) +
                       "; headers from " + toolkit_include_dir() + "):\n" + head(log, 20));
  }
  const char* lowered = nullptr;
  check(nvrtcGetLoweredName(program.handle, name_expression.c_str(), &lowered),
        "nvrtcGetLoweredName");
  Cubin cubin;
  cubin.lowered_name = lowered;
  std::size_t size = 0;
  check(nvrtcGetCUBINSize(program.handle, &size), "nvrtcGetCUBINSize");
  cubin.image.resize(size);
  check(nvrtcGetCUBIN(program.handle, cubin.image.data()), "nvrtcGetCUBIN");
  cubin.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return cubin;
}

} // namespace pfmc::kernels::compile
