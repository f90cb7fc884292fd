#pragma once
// Rendering of a run's results: a table for people, JSON and CSV for programs.

#include <string>

#include "engine/pricer.hpp"

namespace pfmc::apps {

enum class Format { table, json, csv };

std::string render(const engine::RunResult& result, Format format, const std::string& config_file);

/// Thousands separators for counts: 1,234,567.
std::string group_thousands(unsigned long long n);

/// One number through a printf format ("%.3f").
std::string format(const char* fmt, double x);

} // namespace pfmc::apps
