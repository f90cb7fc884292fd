#pragma once
// The files NVRTC compiles from, embedded in the binary at build time (CMakeLists.txt generates
// their definitions, cmake/embed_rtc_sources.cmake).

#include <cstddef>

namespace pfmc::kernels::compile {

struct EmbeddedFile {
  const char* include_name; ///< the name an #include asks for
  const char* text;
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;
/// The build's device options for NVRTC (PFMC_RTC_OPTIONS), null-terminated.
extern const char* const kBuildOptions[];
/// The toolkit's include folder at build time.
extern const char* const kBuildToolkitInclude;

} // namespace pfmc::kernels::compile
