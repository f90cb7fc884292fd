// libFuzzer target: CSV trade lists and positions (`instruments: {csv: FILE}`, `portfolio: {csv:
// FILE}`) on arbitrary bytes. The input is the trades file, optionally followed by a NUL byte and
// the positions file; both are written beside a fixed YAML file (a market of two underlyings, a
// Black-Scholes and a two-asset model) that names them, which is loaded and planned. The contract
// under test, as for the YAML fuzzer (fuzz_config.cpp): the run is accepted or refused with a
// config::ConfigError; any other exception, a crash or a sanitizer report is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/plan/plan.hpp"

namespace {

using namespace pfmc;

const char* const kBook =
    "market:\n"
    "  underlyings: [{name: SPX, spot: 100}, {name: SX5E, spot: 50}]\n"
    "  rates: {zero_rate: 0.05}\n"
    "models:\n"
    "  - {name: spx_bs, type: black_scholes, underlying: SPX, volatility: 0.2}\n"
    "  - {name: pair, type: multi_black_scholes, underlyings: [SPX, SX5E],\n"
    "     volatilities: [0.2, 0.25], correlation: [[1, 0.5], [0.5, 1]]}\n"
    "instruments: {csv: trades.csv}\n"
    "portfolio: {csv: positions.csv}\n"
    "simulation: {paths: 1000, steps_per_year: 52}\n";

/// This process's folder for the two files (made once; libFuzzer's fork mode runs one process
/// per job, each with its own).
const std::string& folder() {
  static const std::string dir = [] {
    char name[] = "/tmp/pfmc_fuzz_csv_XXXXXX";
    if (::mkdtemp(name) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return std::string(name);
  }();
  return dir;
}

void write(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
      std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  write(folder() + "/trades.csv", input.substr(0, nul));
  write(folder() + "/positions.csv",
        nul == std::string::npos ? std::string("instrument,quantity\n") : input.substr(nul + 1));
  try {
    const config::RunConfig run = config::parse_run_config(kBook, folder() + "/book.yaml");
    (void)engine::make_plan(run);
  } catch (const config::ConfigError&) {
    // Refused with FILE:LINE:COLUMN: what a bad trade list must get.
  }
  return 0;
}
