# libFuzzer's targets (PFMC_FUZZ, included by CMakeLists.txt): the YAML loader with the command
# line's overrides and the planner (fuzz_config), and CSV trade lists and positions (fuzz_csv).
# Built in the sanitized build (PFMC_SANITIZE) with clang, whose libFuzzer they link:
#   CXX=clang++ cmake -S . -B build-sanitize -DPFMC_SANITIZE=ON -DPFMC_FUZZ=ON ...
# as scripts/fuzz.sh does. The host-only libraries the fuzzers drive carry libFuzzer's coverage
# hooks; the engine does not (its suite runs in the same build).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "PFMC_FUZZ needs clang (libFuzzer): CXX=clang++ cmake ...")
endif()
if(NOT PFMC_SANITIZE)
  message(FATAL_ERROR "PFMC_FUZZ needs PFMC_SANITIZE=ON (the fuzzers look for sanitizer reports)")
endif()
foreach(library pfmc_base pfmc_common pfmc_config pfmc_plan)
  target_compile_options(${library} PRIVATE -fsanitize=fuzzer-no-link)
endforeach()
foreach(target fuzz_config fuzz_csv)
  add_executable(${target} tests/fuzz/${target}.cpp)
  target_link_libraries(${target} PRIVATE pfmc_plan pfmc_config ${PFMC_YAML_TARGET})
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  target_link_options(${target} PRIVATE -fsanitize=fuzzer)
endforeach()
