#pragma once
// Seeds for the config fuzzer (tests/fuzz): with PFMC_FUZZ_CORPUS set to a folder, every config
// a test hands to the YAML loader is also written there, one file per distinct text (named by
// its hash). CI sets it while the suites run, then fuzzes from what they wrote.

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

namespace pfmc::testing {

inline void keep_for_fuzzing(const std::string& yaml) {
  const char* folder = std::getenv("PFMC_FUZZ_CORPUS");
  if (folder == nullptr || *folder == '\0')
    return;
  const std::string name =
      std::string(folder) + "/test-" + std::to_string(std::hash<std::string>{}(yaml)) + ".yaml";
  std::ofstream(name, std::ios::binary) << yaml;
}

} // namespace pfmc::testing
