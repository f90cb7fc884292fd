// pfmc._pfmc: the engine for Python (pybind11). The same loader, overrides, engine and JSON
// report as the command line; apps/python/pfmc/__init__.py shapes the answers. Pricing runs
// with the GIL released and with SIGINT routed to the engine's stop request, so that Ctrl-C in
// a notebook stops a long run between launches and raises KeyboardInterrupt.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <signal.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/cli.hpp"
#include "apps/report.hpp"
#include "base/error.hpp"
#include "base/trace.hpp"
#include "config/column_reader.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/device_start.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "engine/risk/market_shift.hpp"

namespace py = pybind11;

namespace {

using namespace pfmc;

// The package's exception classes (set by __init__.py before any call).
py::object config_error_class;
py::object runtime_error_class;

/// A config given as a file path (`is_path`) or as YAML text named `name`, with instruments
/// and positions given as columns where `trades` has them.
config::RunConfig load(const std::string& source, bool is_path, const std::string& name,
                       const config::TradeColumns& trades = {}) {
  return is_path ? config::load_run_config(source, trades)
                 : config::parse_run_config(source, name, config::YamlPieces::by_size, trades);
}

/// A number as the shortest text that reads back as the same double (what a CSV file written
/// from it would hold).
std::string number_text(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

/// One cell of a column as text: empty for None and NaN (not given), numbers as number_text,
/// a list, tuple or array as its values separated by spaces (a list field's cell), anything
/// else as str().
std::string cell_text(const py::handle& value) {
  if (PyUnicode_Check(value.ptr())) { // most cells: a str, read as UTF-8 without a copy there
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (text == nullptr)
      throw py::error_already_set();
    return std::string(text, static_cast<std::size_t>(size));
  }
  if (value.is_none())
    return {};
  if (py::isinstance<py::bool_>(value))
    return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value))
    return std::to_string(value.cast<long long>());
  if (py::isinstance<py::float_>(value)) {
    const double x = value.cast<double>();
    return std::isnan(x) ? std::string() : number_text(x);
  }
  if (py::isinstance<py::str>(value))
    return value.cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
      py::isinstance<py::array>(value)) {
    std::string joined;
    for (const py::handle item : py::iter(value))
      joined += (joined.empty() ? "" : " ") + cell_text(item);
    return joined;
  }
  if (py::hasattr(value, "__float__") && !py::hasattr(value, "__len__")) { // numpy scalars, NA
    try {
      const double x = value.attr("__float__")().cast<double>();
      if (std::isnan(x))
        return {};
      if (py::hasattr(value, "is_integer") || !py::hasattr(value, "__index__"))
        return number_text(x);
    } catch (const py::error_already_set&) {
      return {}; // pandas' NA: no number
    }
  }
  return py::str(value).cast<std::string>();
}

/// A cell read without the Python API where it can be: a str of ASCII characters (most cells)
/// straight from its object's memory, a float NaN (pandas' empty cell in a column of text) as
/// empty; false for anything else. Reads only (no reference count is touched), so it may run on
/// a thread without the GIL while the GIL's holder waits and the objects are held alive.
bool plain_cell(PyObject* item, config::ColumnCells& cells) {
  if (PyUnicode_Check(item) && PyUnicode_IS_COMPACT_ASCII(item)) {
    cells.add(std::string_view(static_cast<const char*>(PyUnicode_DATA(item)),
                               static_cast<std::size_t>(PyUnicode_GET_LENGTH(item))));
    return true;
  }
  if (PyFloat_CheckExact(item) && std::isnan(PyFloat_AS_DOUBLE(item))) {
    cells.add({});
    return true;
  }
  return false;
}

/// Any other cell, with the GIL held: a str's UTF-8, else cell_text.
void python_cell(PyObject* item, config::ColumnCells& cells) {
  if (PyUnicode_Check(item)) {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(item, &size);
    if (text == nullptr)
      throw py::error_already_set();
    cells.add(std::string_view(text, static_cast<std::size_t>(size)));
  } else {
    cells.add(cell_text(item));
  }
}

/// The cells of `n` objects held alive by the caller (a numpy array of objects, a list), with
/// the GIL held: the plain cells read on every core (plain_cell), the others then here
/// (config/column_reader.hpp).
config::ColumnCells object_cells(PyObject* const* items, std::size_t n) {
  return config::read_column(
      n,
      [items](std::size_t row, config::ColumnCells& cells) {
        return plain_cell(items[row], cells);
      },
      [items](std::size_t row, config::ColumnCells& cells) { python_cell(items[row], cells); });
}

/// A column's cells as text, without a Python loop: a numpy array of objects or a list read
/// by object_cells, anything else through its iterator. (Numeric arrays: numeric_column.)
config::ColumnCells object_column(const py::handle& values) {
  if (py::isinstance<py::array>(values)) {
    const auto array = py::reinterpret_borrow<py::array>(values);
    if (array.ndim() == 1 && array.dtype().kind() == 'O') { // objects: read from the buffer
      const auto objects = py::array::ensure(array, py::array::c_style);
      return object_cells(static_cast<PyObject* const*>(objects.data()),
                          static_cast<std::size_t>(objects.size()));
    }
  }
  if (PyList_Check(values.ptr())) {
    return object_cells(PySequence_Fast_ITEMS(values.ptr()),
                        static_cast<std::size_t>(PyList_GET_SIZE(values.ptr())));
  }
  config::ColumnCells cells;
  for (const py::handle item : py::iter(values)) {
    if (!plain_cell(item.ptr(), cells))
      python_cell(item.ptr(), cells);
  }
  return cells;
}

/// A one-dimensional numpy array of numbers as a column: floats kept as numbers (NaN: an empty
/// cell), integers as their exact text; nullopt for anything else (read as objects).
std::optional<config::ColumnCells> numeric_column(const py::handle& values) {
  if (!py::isinstance<py::array>(values))
    return std::nullopt;
  const auto array = py::reinterpret_borrow<py::array>(values);
  const char kind = array.dtype().kind();
  if (array.ndim() != 1 || (kind != 'f' && kind != 'i' && kind != 'u'))
    return std::nullopt;
  config::ColumnCells cells;
  if (kind == 'f') {
    const auto a = py::array_t<double, py::array::forcecast>::ensure(array);
    cells.numeric = true;
    cells.numbers.assign(a.data(), a.data() + a.size());
    return cells;
  }
  const auto a = py::array_t<long long, py::array::forcecast>::ensure(array);
  cells.ends.reserve(static_cast<std::size_t>(a.size()));
  char text[24];
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    const long long x = a.data()[i];
    cells.add(std::string_view(text, std::to_chars(text, text + sizeof text, x).ptr - text));
  }
  return cells;
}

/// A mapping of column name to sequence (what pfmc.price makes of a DataFrame) as a table.
std::optional<config::ColumnTable> column_table(const py::object& columns,
                                                const std::string& name) {
  if (columns.is_none())
    return std::nullopt;
  config::ColumnTable table;
  table.name = name;
  const auto mapping = py::reinterpret_borrow<py::dict>(columns);
  table.cells.reserve(mapping.size());
  for (const auto& [key, values] : mapping) {
    table.columns.push_back(py::str(key).cast<std::string>());
    auto numbers = numeric_column(values);
    table.cells.push_back(numbers ? std::move(*numbers) : object_column(values));
  }
  return table;
}

/// The keyword arguments that override the config (config::override_keys()'s names; the package
/// refuses others before calling): a switch's as "true" or "false", any other's as its str().
config::Overrides overrides_from(const py::dict& kw) {
  config::Overrides o;
  for (const config::OverrideKey& k : config::override_keys()) {
    if (!kw.contains(k.name))
      continue;
    const py::object value = kw[k.name];
    o.values[k.name] =
        k.is_switch ? (value.cast<bool>() ? "true" : "false") : py::str(value).cast<std::string>();
  }
  return o;
}

/// SIGINT and SIGTERM ask the engine to stop while it runs; Python's handlers come back after.
class StopOnSignals {
public:
  StopOnSignals() {
    engine::clear_stop_request();
    struct sigaction action {};
    action.sa_handler = [](int signal) { engine::request_stop(signal); };
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopOnSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

/// Runs `work` without the GIL and with signals routed to the engine; C++ errors become the
/// package's exceptions (ConfigError, RuntimeError) or KeyboardInterrupt.
template <class Work>
auto guarded(Work&& work) -> decltype(work()) {
  std::optional<config::ConfigError> config_error;
  std::string runtime_error;
  bool interrupted = false;
  std::optional<decltype(work())> value;
  {
    py::gil_scoped_release release;
    StopOnSignals stop;
    try {
      value.emplace(work());
    } catch (const config::ConfigError& e) {
      config_error.emplace(e);
    } catch (const engine::Interrupted&) {
      interrupted = true;
    } catch (const std::exception& e) {
      runtime_error = e.what();
      if (runtime_error.empty())
        runtime_error = "unknown failure";
    }
  }
  if (config_error) {
    const auto& e = *config_error;
    PyErr_SetObject(config_error_class.ptr(),
                    config_error_class(e.what(), e.file(), e.mark().line, e.mark().column,
                                       e.key_path(), e.message())
                        .ptr());
    throw py::error_already_set();
  }
  if (interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  if (!runtime_error.empty()) {
    PyErr_SetObject(runtime_error_class.ptr(), runtime_error_class(runtime_error).ptr());
    throw py::error_already_set();
  }
  return std::move(*value);
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

/// A JSON value as Python objects (no text in between: a book's 100,000 instruments took 0.34 s
/// to dump and 0.21 s to parse back).
py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
  case nlohmann::json::value_t::object: {
    py::dict d;
    for (const auto& [key, value] : j.items())
      d[py::str(key)] = to_python(value);
    return std::move(d);
  }
  case nlohmann::json::value_t::array: {
    py::list l(j.size());
    for (std::size_t i = 0; i < j.size(); ++i)
      l[i] = to_python(j[i]);
    return std::move(l);
  }
  case nlohmann::json::value_t::string:
    return py::str(j.get_ref<const std::string&>());
  case nlohmann::json::value_t::boolean:
    return py::bool_(j.get<bool>());
  case nlohmann::json::value_t::number_integer:
    return py::int_(j.get<long long>());
  case nlohmann::json::value_t::number_unsigned:
    return py::int_(j.get<unsigned long long>());
  case nlohmann::json::value_t::number_float:
    return py::float_(j.get<double>());
  default:
    return py::none();
  }
}

/// A priced run, kept in C++: the instruments' list is made when Python first asks for it.
struct PricedRun {
  engine::RunResult result;
  /// The portfolio and the run (`pfmc price --format json` without the instruments).
  [[nodiscard]] std::string summary_json() const { return apps::result_json(result, false).dump(); }
  [[nodiscard]] py::object instruments() const {
    nlohmann::json list;
    {
      py::gil_scoped_release release;
      list = apps::instruments_json(result);
    }
    return to_python(list);
  }
  [[nodiscard]] std::size_t instrument_count() const { return result.instruments.size(); }
  /// The instruments as columns, in the book's order: numpy arrays where numpy is installed
  /// (float64 prices, standard errors, intervals and Greeks, int64 paths, object arrays of the
  /// ids and types; each numeric array owns the vector the engine's results were gathered into,
  /// no copy after that), else lists (`lists`: lists in any case). Numbers missing for an
  /// instrument (a quasi-random run's standard error, a Greek it was not asked for) are NaN. A
  /// book of 100,000 instruments makes a few arrays instead of 100,000 dicts.
  [[nodiscard]] py::dict columns(bool lists) const {
    const auto& items = result.instruments;
    const std::size_t n = items.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> price(n), std_error(n), low(n), high(n);
    std::vector<std::int64_t> paths(n);
    py::list id(n), type(n);
    // The Greeks as the CSV report's columns: `delta`, or `delta[A]` for a basket's leg.
    const std::vector<std::string> greek_names = apps::run_greeks(result);
    std::map<std::string, std::size_t> greek_column;
    for (std::size_t k = 0; k < greek_names.size(); ++k)
      greek_column.emplace(greek_names[k], k);
    std::vector<std::vector<double>> greeks(greek_names.size(), std::vector<double>(n, nan));
    std::map<std::string, py::str> types; // a few names, each made once
    for (std::size_t i = 0; i < n; ++i) {
      const auto& in = items[i];
      id[i] = py::str(in.id);
      auto at = types.find(in.type);
      if (at == types.end())
        at = types.emplace(in.type, py::str(in.type)).first;
      type[i] = at->second;
      price[i] = in.price;
      std_error[i] = in.has_std_error ? in.std_error : nan;
      low[i] = in.has_std_error ? in.ci95_low : nan;
      high[i] = in.has_std_error ? in.ci95_high : nan;
      paths[i] = static_cast<std::int64_t>(in.paths);
      for (const auto& g : in.greeks)
        greeks[greek_column.at(apps::greek_column(g))][i] = g.value;
    }
    const bool arrays = !lists && have_numpy();
    py::dict d;
    d["id"] = arrays ? object_array(id) : py::object(id);
    d["type"] = arrays ? object_array(type) : py::object(type);
    d["price"] = column(std::move(price), arrays);
    d["std_error"] = column(std::move(std_error), arrays);
    d["ci95_low"] = column(std::move(low), arrays);
    d["ci95_high"] = column(std::move(high), arrays);
    d["paths"] = column(std::move(paths), arrays);
    for (std::size_t k = 0; k < greek_names.size(); ++k)
      d[py::str(greek_names[k])] = column(std::move(greeks[k]), arrays);
    return d;
  }

private:
  /// Whether `import numpy` works (asked once; pfmc does not need numpy).
  static bool have_numpy() {
    static const bool have = [] {
      try {
        (void)py::module_::import("numpy");
        return true;
      } catch (const py::error_already_set&) {
        return false;
      }
    }();
    return have;
  }
  /// A numeric column: a numpy array that owns `values` (moved to the heap, freed with the
  /// array), or a list.
  template <class T>
  static py::object column(std::vector<T>&& values, bool arrays) {
    if (!arrays)
      return py::cast(values);
    auto* owned = new std::vector<T>(std::move(values));
    const py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
  }
  /// A list of str as a numpy array of objects (what pandas keeps strings in).
  static py::object object_array(const py::list& values) {
    return py::module_::import("numpy").attr("array")(values, py::arg("dtype") = "object");
  }
};

/// How a run from Python starts (engine/device_start.hpp): as the CLI's, but CUDA is never
/// narrowed (this process may price again on other GPUs); a run the keywords or the file put on
/// the CPU starts no context (a dict's device is known only once it is read: the run starts it).
engine::DeviceStartOptions start_options(const std::string& source, bool is_path,
                                         const config::Overrides& overrides) {
  engine::DeviceStartOptions options;
  const auto device = overrides.values.find("device");
  options.on_cpu = device != overrides.values.end()
                       ? device->second == "cpu"
                       : !is_path || config::peek_engine_on_cpu(source);
  return options;
}

PricedRun price(const std::string& source, bool is_path, const std::string& name,
                const py::dict& kw, const std::string& tuning_cache, const py::object& instruments,
                const py::object& positions) {
  const config::Overrides overrides = overrides_from(kw);
  const auto start = std::chrono::steady_clock::now();
  config::TradeColumns trades; // read from Python's objects with the GIL held
  trades.instruments = column_table(instruments, "<instruments>");
  trades.positions = column_table(positions, "<positions>");
  return guarded([&] {
    engine::DeviceStart devices(start_options(source, is_path, overrides));
    config::RunConfig config = load(source, is_path, name, trades);
    config::apply_overrides(config, overrides);
    const double config_ms = ms_since(start);
    const double device_ms = devices.finish(config);
    engine::PriceOptions options;
    options.tuning_cache = tuning_cache;
    engine::RunResult result = engine::price(config, {}, options);
    result.run.config_ms = config_ms;
    result.run.device_ms += device_ms;
    engine::throw_if_stopped();
    return PricedRun{std::move(result)};
  });
}

/// pfmc.load's book: a config read once (its YAML or CSV parsed, its columns converted, its
/// overrides applied) on devices started once, priced as often as asked — under today's
/// market or an updated one (engine/risk/market_shift.hpp's MarketUpdate) and under its risk
/// scenarios. The kernels a run loads stay loaded in the process, so a book's later runs pay
/// neither the parse nor the start nor a kernel's load; each run plans its market afresh.
class LoadedBook {
public:
  LoadedBook(const std::string& source, bool is_path, const std::string& name, const py::dict& kw,
             std::string tuning_cache, const py::object& instruments, const py::object& positions)
      : tuning_cache_(std::move(tuning_cache)) {
    const config::Overrides overrides = overrides_from(kw);
    const auto start = std::chrono::steady_clock::now();
    config::TradeColumns trades;
    trades.instruments = column_table(instruments, "<instruments>");
    trades.positions = column_table(positions, "<positions>");
    guarded([&] {
      engine::DeviceStart devices(start_options(source, is_path, overrides));
      config_ = load(source, is_path, name, trades);
      config::apply_overrides(config_, overrides);
      load_ms_ = ms_since(start);
      device_ms_ = devices.finish(config_);
      return 0;
    });
  }

  /// The book priced: under `market` (an update of today's market; empty: today's) with `kw`
  /// overriding its settings for this run only.
  PricedRun price(const engine::risk::MarketUpdate& market, const py::dict& kw) const {
    const config::Overrides overrides = overrides_from(kw);
    return guarded([&] {
      const auto start = std::chrono::steady_clock::now();
      config::RunConfig config = engine::risk::updated_market(config_, market);
      config::apply_overrides(config, overrides);
      engine::PriceOptions options;
      options.tuning_cache = tuning_cache_;
      const double config_ms = ms_since(start);
      engine::RunResult result = engine::price(config, {}, options);
      result.run.config_ms = config_ms;
      engine::throw_if_stopped();
      return PricedRun{std::move(result)};
    });
  }

  /// `pfmc risk --format json`'s report of the book's risk block (kw may override it).
  std::string risk(const py::dict& kw, bool per_instrument) const {
    const config::Overrides overrides = overrides_from(kw);
    return guarded([&] {
      config::RunConfig config = config_;
      config::apply_overrides(config, overrides);
      const engine::risk::RiskResult result = engine::risk::run_risk(config);
      return apps::risk_report(config, result, per_instrument).dump();
    });
  }

  /// What was loaded, and what loading and starting took.
  py::dict summary() const {
    py::dict d;
    d["file"] = config_.file;
    d["underlyings"] = config_.market.underlyings.size();
    d["models"] = config_.models.size();
    d["instruments"] = config_.instruments.size();
    d["positions"] = config_.portfolio.size();
    d["has_risk"] = config_.risk.present;
    d["load_ms"] = load_ms_;
    d["device_ms"] = device_ms_;
    return d;
  }

private:
  config::RunConfig config_;
  std::string tuning_cache_;
  double load_ms_ = 0.0;
  double device_ms_ = 0.0;
};

/// A market update from Python's dicts (pfmc/__init__.py has checked their shapes).
engine::risk::MarketUpdate market_update(const std::map<std::string, double>& spots,
                                         const std::map<std::string, double>& vols,
                                         const std::map<std::string, double>& vol_moves,
                                         const std::optional<double>& zero_rate) {
  return engine::risk::MarketUpdate{spots, vols, vol_moves, zero_rate};
}

/// The baseline of scripts/python-overhead.py: the same run as price() (the file loaded, the
/// device set, the engine run, its result freed) with no Python objects made, timed in C++;
/// milliseconds.
double time_native_run(const std::string& path, const std::string& device) {
  return guarded([&] {
    const auto start = std::chrono::steady_clock::now();
    {
      config::RunConfig config = config::load_run_config(path);
      config::Overrides overrides;
      if (!device.empty())
        overrides.values["device"] = device;
      config::apply_overrides(config, overrides);
      const engine::RunResult result = engine::price(config);
      engine::throw_if_stopped();
    }
    return ms_since(start);
  });
}

/// What `pfmc validate` prints, as a dict's fields.
py::dict validate(const std::string& source, bool is_path, const std::string& name,
                  const py::dict& kw, const py::object& instruments, const py::object& positions) {
  const config::Overrides overrides = overrides_from(kw);
  config::TradeColumns trades; // read from Python's objects with the GIL held
  base::TraceSpan columns_span("columns to cells");
  trades.instruments = column_table(instruments, "<instruments>");
  trades.positions = column_table(positions, "<positions>");
  columns_span.end();
  struct Summary {
    std::string file;
    std::size_t underlyings, models, instruments, positions, groups;
    int max_steps;
    unsigned long long paths;
  };
  const Summary s = guarded([&] {
    config::RunConfig config = load(source, is_path, name, trades);
    config::apply_overrides(config, overrides);
    const engine::SimulationPlan plan = engine::make_plan(config);
    int max_steps = 0;
    for (const auto& g : plan.groups)
      max_steps = std::max(max_steps, g.steps());
    return Summary{config.file,
                   config.market.underlyings.size(),
                   config.models.size(),
                   config.instruments.size(),
                   config.portfolio.size(),
                   plan.groups.size(),
                   max_steps,
                   static_cast<unsigned long long>(config.simulation.paths)};
  });
  py::dict d;
  d["file"] = s.file;
  d["underlyings"] = s.underlyings;
  d["models"] = s.models;
  d["instruments"] = s.instruments;
  d["positions"] = s.positions;
  d["groups"] = s.groups;
  d["max_steps"] = s.max_steps;
  d["paths"] = s.paths;
  return d;
}

/// The sweep's CSV text (`pfmc bench --csv`).
std::string bench(const std::string& source, bool is_path, const std::string& name,
                  const py::dict& kw, const std::string& backends, const std::string& distances,
                  int repeat) {
  const config::Overrides overrides = overrides_from(kw);
  return guarded([&] {
    config::RunConfig config = load(source, is_path, name);
    config::apply_overrides(config, overrides);
    apps::SweepOptions s;
    s.backends = backends;
    s.distances = distances;
    s.repeat = repeat;
    if (repeat < 1 || repeat > 1000)
      throw config::ConfigError("", {}, "repeat", "must be in 1..1000");
    return apps::bench_csv(config, s, true);
  });
}

/// `pfmc calibrate --format json`'s report as JSON text (apps::calibration_report).
std::string calibrate(const std::string& source, bool is_path, const std::string& name,
                      const std::string& model, bool feller) {
  return guarded([&] {
    const config::RunConfig config = load(source, is_path, name);
    return apps::calibration_report(config, model, feller).dump();
  });
}

/// `pfmc risk --format json`'s report as JSON text (apps::risk_report).
std::string risk(const std::string& source, bool is_path, const std::string& name,
                 const py::dict& kw, bool per_instrument) {
  const config::Overrides overrides = overrides_from(kw);
  return guarded([&] {
    config::RunConfig config = load(source, is_path, name);
    config::apply_overrides(config, overrides);
    const engine::risk::RiskResult result = engine::risk::run_risk(config);
    return apps::risk_report(config, result, per_instrument).dump();
  });
}

std::string backends() {
  return guarded([] { return apps::backends_json(engine::query_device()).dump(); });
}

/// `pfmc kernels`'s report as JSON text (apps::kernels_report).
std::string kernel_report(const std::string& warm, int arch, int jobs, bool clear, bool list,
                          const std::string& cache) {
  return guarded([&] {
    apps::KernelsOptions o;
    o.warm = warm;
    o.arch = arch;
    o.jobs = jobs;
    o.clear = clear;
    o.list = list;
    o.cache = cache;
    o.quiet = true;
    return apps::kernels_report(o).dump();
  });
}

} // namespace

PYBIND11_MODULE(_pfmc, m) {
  m.doc() = "pfmc's engine (use the pfmc package, not this module)";
  m.attr("__version__") = PFMC_VERSION;
  m.def("_set_exceptions", [](py::object config_error, py::object runtime_error) {
    config_error_class = std::move(config_error);
    runtime_error_class = std::move(runtime_error);
  });
  py::class_<PricedRun>(m, "PricedRun")
      .def("summary_json", &PricedRun::summary_json)
      .def("instruments", &PricedRun::instruments)
      .def("instrument_count", &PricedRun::instrument_count)
      .def("columns", &PricedRun::columns, py::arg("lists") = false);
  py::class_<LoadedBook>(m, "LoadedBook")
      .def(py::init<const std::string&, bool, const std::string&, const py::dict&, std::string,
                    const py::object&, const py::object&>(),
           py::arg("source"), py::arg("is_path"), py::arg("name"), py::arg("overrides"),
           py::arg("tuning_cache"), py::arg("instruments") = py::none(),
           py::arg("positions") = py::none())
      .def(
          "price",
          [](const LoadedBook& book, const std::map<std::string, double>& spots,
             const std::map<std::string, double>& vols,
             const std::map<std::string, double>& vol_moves, const std::optional<double>& zero_rate,
             const py::dict& kw) {
            return book.price(market_update(spots, vols, vol_moves, zero_rate), kw);
          },
          py::arg("spots"), py::arg("vols"), py::arg("vol_moves"), py::arg("zero_rate"),
          py::arg("overrides"))
      .def("risk", &LoadedBook::risk, py::arg("overrides"), py::arg("per_instrument"))
      .def("summary", &LoadedBook::summary);
  m.def("price", &price, py::arg("source"), py::arg("is_path"), py::arg("name"),
        py::arg("overrides"), py::arg("tuning_cache"), py::arg("instruments") = py::none(),
        py::arg("positions") = py::none());
  m.def("validate", &validate, py::arg("source"), py::arg("is_path"), py::arg("name"),
        py::arg("overrides"), py::arg("instruments") = py::none(),
        py::arg("positions") = py::none());
  m.def("bench", &bench, py::arg("source"), py::arg("is_path"), py::arg("name"),
        py::arg("overrides"), py::arg("backends"), py::arg("distances"), py::arg("repeat"));
  m.def("risk", &risk, py::arg("source"), py::arg("is_path"), py::arg("name"), py::arg("overrides"),
        py::arg("per_instrument"));
  m.def("backends", &backends);
  m.def("calibrate", &calibrate, py::arg("source"), py::arg("is_path"), py::arg("name"),
        py::arg("model"), py::arg("feller"));
  m.def(
      "override_keys",
      [] {
        std::vector<std::string> names;
        for (const config::OverrideKey& k : config::override_keys())
          names.emplace_back(k.name);
        return names;
      },
      "the names of the keyword arguments that override a config (config/overrides.hpp's list)");
  m.def("kernels", &kernel_report, py::arg("warm"), py::arg("arch"), py::arg("jobs"),
        py::arg("clear"), py::arg("list"), py::arg("cache"));
  m.def("_time_native_run", &time_native_run, py::arg("path"), py::arg("device"));
  // The exception objects must go before the interpreter's teardown, not after it.
  m.add_object("_cleanup", py::capsule([] {
                 config_error_class = py::object();
                 runtime_error_class = py::object();
               }));
}
