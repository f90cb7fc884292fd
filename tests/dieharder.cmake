# dieharder on the draws' generator (Debian's dieharder; scripts/install-deps.sh): a stream of
# the raw generator words (tests/philox_stream.cpp) and a short battery on the Fast profile's
# Philox4x32-7, with 2 rounds as the control that must fail (tests/dieharder_battery.sh). Skipped
# (77) where dieharder is not installed. The full `dieharder -a` run is in
# docs/decisions.md#fast-math.
add_executable(pfmc_philox_stream tests/philox_stream.cpp)
# Only kernels/counter_draws.cuh's header code: pfmc_common carries the include directories (the
# source root, Random123) without building the kernels and the engine.
target_link_libraries(pfmc_philox_stream PRIVATE pfmc_common)
target_compile_options(pfmc_philox_stream PRIVATE ${PFMC_WARNINGS})
add_test(NAME test_dieharder
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/dieharder_battery.sh
                 $<TARGET_FILE:pfmc_philox_stream>)
set_tests_properties(test_dieharder PROPERTIES SKIP_RETURN_CODE 77)
