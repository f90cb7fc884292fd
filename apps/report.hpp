#pragma once
// Rendering of a run's results: a table for people, JSON and CSV for programs.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "engine/core/device_info.hpp"
#include "engine/pricer.hpp"

namespace pfmc::apps {

enum class Format { table, json, csv };

std::string render(const engine::RunResult& result, Format format, const std::string& config_file);

/// The run as `pfmc price --format json` writes it (`instruments` an empty list without
/// `with_instruments`: the Python package reads them apart, when asked for).
nlohmann::json result_json(const engine::RunResult& result, bool with_instruments = true);
/// Its `instruments` list.
nlohmann::json instruments_json(const engine::RunResult& result);

/// A Greek's column in the CSV report and Python's columns: "delta", or a basket's "delta[A]".
std::string greek_column(const engine::GreekResult& g);
/// The Greeks' columns of the run, in the order they first appear (the single-asset Greeks,
/// then each basket underlying's).
std::vector<std::string> run_greeks(const engine::RunResult& r);

/// The backends, their needs and whether each runs on `device`, as `pfmc backends --format json`
/// writes them.
nlohmann::json backends_json(const engine::DeviceInfo& device);

/// Thousands separators for counts: 1,234,567.
std::string group_thousands(unsigned long long n);

/// One number through a printf format ("%.3f").
std::string format(const char* fmt, double x);

} // namespace pfmc::apps
