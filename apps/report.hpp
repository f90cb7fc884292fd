#pragma once
// Rendering of a run's results: a table for people, JSON and CSV for programs.

#include <string>

#include "engine/pricer.hpp"

namespace pfmc::apps {

enum class Format { table, json, csv };

std::string render(const engine::RunResult& result, Format format, const std::string& config_file);

/// "8.13e+10"-style compact figure, and thousands separators for counts.
std::string group_thousands(unsigned long long n);

} // namespace pfmc::apps
