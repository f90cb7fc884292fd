# The host-only libraries: plain C++ (the base layer, the config loader, the analytic formulas,
# the planner), with the packages they need; the fuzzers (tests/fuzz/fuzz_targets.cmake) drive
# them. The includer sets PFMC_SOURCE_ROOT, PFMC_DEPS_ROOT and PFMC_WARNINGS.

find_package(yaml-cpp REQUIRED)
# yaml-cpp 0.7 (Debian 12) exports `yaml-cpp`; 0.8 exports `yaml-cpp::yaml-cpp`.
if(TARGET yaml-cpp::yaml-cpp)
  set(PFMC_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(PFMC_YAML_TARGET yaml-cpp)
endif()
# Random123 (header-only; Debian librandom123-dev): the counter-based Philox generator, the same
# code on the host and the device.
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h HINTS "${PFMC_DEPS_ROOT}/usr/include")
if(NOT RANDOM123_INCLUDE_DIR)
  message(FATAL_ERROR "RANDOM123_INCLUDE_DIR not found: run scripts/install-deps.sh (Random123 "
                      "comes from Debian's librandom123-dev)")
endif()
# libcsv (Debian libcsv-dev): the RFC 4180 reader behind `instruments: {csv: FILE}` and
# `portfolio: {csv: FILE}` (config/csv_table.cpp).
find_path(CSV_INCLUDE_DIR csv.h HINTS "${PFMC_DEPS_ROOT}/usr/include")
find_library(CSV_LIBRARY NAMES csv HINTS "${PFMC_DEPS_ROOT}/usr/lib/x86_64-linux-gnu")
if(NOT CSV_INCLUDE_DIR OR NOT CSV_LIBRARY)
  message(FATAL_ERROR "libcsv not found: run scripts/install-deps.sh (Debian's libcsv-dev)")
endif()

# pfmc_add_host_library(NAME SOURCES...): a static library of sources named from the root.
function(pfmc_add_host_library name)
  list(TRANSFORM ARGN PREPEND "${PFMC_SOURCE_ROOT}/")
  add_library(${name} STATIC ${ARGN})
  target_compile_options(${name} PRIVATE ${PFMC_WARNINGS})
endfunction()

find_package(Threads REQUIRED) # base/parallel_ranges: large books on every core

# The base layer beneath kernels/, config/ and engine/ (base/): the error vocabulary, atomic
# files, file locks and cache folders, parallel ranges, the trace. It includes nothing of pfmc's above it.
pfmc_add_host_library(pfmc_base base/error.cpp base/atomic_file.cpp
                      base/file_lock.cpp base/cache_folder.cpp base/parallel_ranges.cpp
                      base/trace.cpp)
target_include_directories(pfmc_base PUBLIC ${PFMC_SOURCE_ROOT})
target_link_libraries(pfmc_base PUBLIC Threads::Threads)

# The GPU fault hook of the reliability tests, and the catalogue of backends and distances (host
# data).
pfmc_add_host_library(pfmc_common kernels/catalog.cpp kernels/fault_injection.cpp)
target_link_libraries(pfmc_common PUBLIC pfmc_base)
target_include_directories(pfmc_common SYSTEM PUBLIC ${RANDOM123_INCLUDE_DIR})

# The value rules shared by the YAML and the command line (number_syntax, setting_rules,
# overrides); the loader: a generic YAML reader, the schema by section, the entry point.
pfmc_add_host_library(pfmc_config
  config/config_error.cpp config/run_config.cpp
  config/number_syntax.cpp config/setting_rules.cpp config/overrides.cpp
  config/yaml_reader.cpp config/yaml_pieces.cpp config/schema_market.cpp config/schema_quotes.cpp config/schema_products.cpp
  config/schema_run.cpp config/schema_risk.cpp config/load_config.cpp config/csv_table.cpp config/fields.cpp
  config/column_reader.cpp config/key_reference.cpp)
target_link_libraries(pfmc_config PUBLIC pfmc_common PRIVATE ${PFMC_YAML_TARGET} ${CSV_LIBRARY})
target_include_directories(pfmc_config SYSTEM PRIVATE ${CSV_INCLUDE_DIR})

# Closed-form prices: the tests' references and the planner's control-variate means.
pfmc_add_host_library(pfmc_analytic
  engine/analytic/checks.cpp engine/analytic/quadrature.cpp engine/analytic/normal.cpp
  engine/analytic/black_scholes.cpp engine/analytic/asian.cpp engine/analytic/barrier.cpp
  engine/analytic/heston.cpp engine/analytic/two_asset.cpp)
target_include_directories(pfmc_analytic PUBLIC ${PFMC_SOURCE_ROOT})

# Eigen (header-only; Debian libeigen3-dev): the Levenberg-Marquardt of the calibrations
# (engine/market/).
find_path(EIGEN3_INCLUDE_DIR Eigen/Core HINTS "${PFMC_DEPS_ROOT}/usr/include/eigen3"
          PATHS /usr/include/eigen3)
if(NOT EIGEN3_INCLUDE_DIR)
  message(FATAL_ERROR "Eigen not found: run scripts/install-deps.sh (Debian's libeigen3-dev)")
endif()

# The planner (config → simulation groups): host C++ over the models' headers.
pfmc_add_host_library(pfmc_plan
  engine/plan/plan.cpp engine/plan/time_grid.cpp engine/plan/scenarios.cpp engine/plan/pathwise.cpp
  engine/plan/step_data.cpp engine/plan/instruments.cpp engine/plan/controls.cpp
  engine/plan/observations.cpp engine/plan/exercise.cpp engine/plan/group_plans.cpp
  # Market data to models (engine/market/: implied vols, the quotes' arbitrage checks, SSVI,
  # Dupire, Heston fitted to quotes), in the planner's library: it builds a `surface: implied`
  # local vol, and the fits read its curves.
  engine/market/implied_vol.cpp engine/market/heston_calibration.cpp engine/market/arbitrage.cpp
  engine/market/ssvi.cpp engine/market/dupire.cpp
  # A risk scenario's market (engine/risk/market_shift.hpp): the planner prices shifts beside
  # the base market on its draws.
  engine/risk/market_shift.cpp)
target_link_libraries(pfmc_plan PUBLIC pfmc_config pfmc_analytic)
target_include_directories(pfmc_plan SYSTEM PRIVATE ${EIGEN3_INCLUDE_DIR})

