#pragma once
// Whole-number settings read from the environment (the launch knobs of kernels/catalog.hpp and
// engine/draws/draw_plan.hpp): one parse and one error text for all of them.

namespace pfmc::base {

/// The value of variable `name` given as `text`: `unset` for null or empty, else a whole number
/// from `low` to `high` (else std::invalid_argument: "NAME must be a whole number from LOW to
/// HIGH, not 'TEXT'").
int parse_whole_number_variable(const char* name, const char* text, long low, long high, int unset);

} // namespace pfmc::base
