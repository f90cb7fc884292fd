#pragma once
// Compile on first use (DESIGN.md "Kernels: built ahead where they pay"): a path-kernel
// instantiation the binary lacks, compiled by NVRTC from the kernel headers embedded in the
// binary (kernels/rtc/README.md) with the build's own device options, to a cubin for one
// architecture. No GPU is needed to compile: the CPU test suite compiles a sample this way.

#include <string>
#include <vector>

namespace pfmc::kernels::compile {

/// What NVRTC made of one name expression.
struct Cubin {
  std::string image;        ///< the cubin's bytes
  std::string lowered_name; ///< the kernel's mangled name in it
  double compile_ms = 0.0;
};

/// The options every runtime compilation gets: the build's device options (CMakeLists.txt's
/// PFMC_RTC_OPTIONS, which mirror what nvcc compiles the ahead-of-time kernels with), the
/// embedded headers' and the toolkit's include folders. The architecture is added per call.
const std::vector<std::string>& compile_options();

/// One file NVRTC compiles from: the name an #include asks for, and its text.
struct SourceFile {
  std::string include_name;
  std::string text;
};

/// What NVRTC compiles from: the files embedded in the binary, or, where $PFMC_KERNEL_SOURCES
/// names a source tree (read once), that tree's kernels/ and models/ files in place of the
/// embedded copies (the mutation check's device tier plants a bug there without a rebuild;
/// the built-in kernels are the binary's: set $PFMC_COMPILE_AT_RUNTIME=1 beside it). A file the
/// tree lacks throws pfmc::RuntimeError naming it.
const std::vector<SourceFile>& source_files();

/// A digest of every source file (names and contents) and of the build's options: what changes
/// the code besides the name expression, the architecture and the compiler.
const std::string& source_digest();

/// NVRTC's version, "13.0".
std::string compiler_version();

/// Where the toolkit's headers are looked for (libcu++'s cuda/std, cuda_pipeline_primitives.h):
/// $PFMC_CUDA_INCLUDE, else $CUDA_HOME/include or $CUDA_PATH/include, else the build's toolkit.
std::string toolkit_include_dir();

/// Compiles `name_expression` (e.g. "&pfmc::kernels::path_kernel<...>") for sm_<arch>. Throws
/// pfmc::RuntimeError with NVRTC's log (its first lines) when it does not compile.
Cubin compile_kernel(const std::string& name_expression, int arch);

} // namespace pfmc::kernels::compile
