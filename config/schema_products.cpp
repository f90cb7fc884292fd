// The `instruments` and `portfolio` sections.

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "base/parallel_ranges.hpp"
#include "config/csv_table.hpp"
#include "config/fields.hpp"
#include "config/key_reference.hpp"
#include "config/load_config.hpp"
#include "config/schema.hpp"
#include "config/spellings.hpp"

namespace pfmc::config::schema {

using yaml::Located;
using yaml::Mapping;
using yaml::NameTable;
using yaml::Reader;

namespace {

/// The names of a knock's fields: the keys of a YAML `knock` mapping, or a CSV row's columns.
struct KnockKeys {
  const char* type;
  const char* level;
  const char* monitoring;
  const char* monitoring_times;
  const char* rebate;
};
constexpr KnockKeys kNestedKnock = {"type", "level", "monitoring", "monitoring_times", "rebate"};
constexpr KnockKeys kFlatKnock = {"knock_type", "knock_level", "knock_monitoring",
                                  "knock_monitoring_times", "knock_rebate"};

/// The keys an instrument of each type may have (the union while the type is not known), in
/// the order the error message lists them; `flat_knock`: a CSV row's (knock_* columns), else a
/// YAML mapping's (a `knock` mapping).
std::vector<std::string> make_instrument_keys(std::optional<InstrumentType> type, bool flat_knock) {
  return reference::key_names("instruments[]",
                              flat_knock ? reference::Source::csv : reference::Source::yaml,
                              type ? to_string(*type) : "");
}

/// make_instrument_keys, made once per type and source (a book reads it once per instrument).
const std::vector<std::string>& instrument_keys(std::optional<InstrumentType> type,
                                                bool flat_knock) {
  using Keys = std::array<std::vector<std::string>, spellings::kInstrumentTypes.size() + 1>;
  static const std::array<Keys, 2> keys = [] {
    std::array<Keys, 2> k;
    for (int flat = 0; flat < 2; ++flat) {
      for (std::size_t i = 0; i < spellings::kInstrumentTypes.size(); ++i) {
        k[flat][i] = make_instrument_keys(spellings::kInstrumentTypes[i], flat != 0);
      }
      k[flat].back() = make_instrument_keys(std::nullopt, flat != 0);
    }
    return k;
  }();
  const Keys& of_source = keys[flat_knock ? 1 : 0];
  return type ? of_source[static_cast<std::size_t>(*type)] : of_source.back();
}

/// The schedules given by a count (`fixings: N`, `monitoring: N`, `exercise_dates: N`) in one
/// load, by count and maturity: the instruments that have the same one share it
/// (config/schedule.hpp).
using SharedSchedules = std::map<std::pair<int, double>, Schedule>;

/// A CSV book's rows are read in parallel from twice this many (2,000 rows take ~8 ms).
constexpr std::size_t kRowsPerThread = 2'000;

/// `count_key: N` (N equally spaced times up to the maturity) or `list_key: [...]`.
template <class Fields>
Schedule schedule(const Fields& f, const char* count_key, const char* list_key, double maturity,
                  SharedSchedules& shared) {
  const auto count = f.find(count_key);
  const auto list = f.find(list_key);
  f.refuse_both(count_key, list_key,
                "give either " + std::string(count_key) + " or " + list_key + ", not both");
  if (!count && !list) {
    f.fail_here("missing required " + std::string(f.kind_of_key()) + " '" + count_key + "' (or '" +
                list_key + "')");
  }
  if (count) {
    const auto n = static_cast<int>(f.integer(*count, 1, 100'000));
    Schedule& known = shared[{n, maturity}];
    if (known.empty()) {
      std::vector<double> times(static_cast<std::size_t>(n));
      for (int i = 1; i <= n; ++i) {
        // The last time is the maturity itself, not T*n/n rounded: it must land on the grid's end.
        times[static_cast<std::size_t>(i - 1)] = i == n ? maturity : maturity * i / n;
      }
      known = Schedule(std::move(times));
    }
    return known;
  }
  std::vector<double> times = f.increasing_times(*list, "time");
  const auto items = f.list(*list);
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i] > maturity) {
      f.fail(items[i], "must be <= the maturity " + yaml::format_number(maturity));
    }
  }
  return times;
}

/// The level a knock is set against at the start, and what it is called in messages (made only
/// for a message: a book of 100,000 barriers formatted it 100,000 times): the spot of a
/// single-asset model's underlying, or a basket's level as its payoff combines the legs (Σ w S0,
/// max w S0, min w S0).
struct StartLevel {
  double value;
  const Underlying* spot_of; ///< a single asset's underlying; null: a basket's level
  BasketPayoff basket;
  [[nodiscard]] std::string what() const {
    if (spot_of != nullptr)
      return "the spot " + yaml::format_number(spot_of->spot) + " of " + spot_of->name;
    const char* how = basket == BasketPayoff::weighted ? "the weighted sum of the spots"
                      : basket == BasketPayoff::max    ? "the largest weighted spot"
                                                       : "the smallest weighted spot";
    char shown[32]; // a derived figure: six significant digits say which side it is on
    std::snprintf(shown, sizeof shown, "%.6g", value);
    return std::string("the basket's starting level ") + shown + " (" + how + ")";
  }
};

StartLevel start_level(const RunConfig& config, const ModelConfig& model,
                       const InstrumentConfig& inst) {
  const auto& underlyings = config.market.underlyings;
  if (model.type != ModelType::multi_black_scholes) {
    const Underlying& u = underlyings[static_cast<std::size_t>(model.underlying_index)];
    return {u.spot, &u, inst.basket};
  }
  double level = 0.0;
  for (std::size_t a = 0; a < model.underlying_indices.size(); ++a) {
    const double leg =
        inst.weights[a] * underlyings[static_cast<std::size_t>(model.underlying_indices[a])].spot;
    level = a == 0                                  ? leg
            : inst.basket == BasketPayoff::weighted ? level + leg
            : inst.basket == BasketPayoff::max      ? std::max(level, leg)
                                                    : std::min(level, leg);
  }
  return {level, nullptr, inst.basket};
}

/// A knock's fields, named by `keys` in `f` (the barrier type's own keys, a `knock` mapping or
/// knock_* columns). The level must be on the far side of the start from its direction (a
/// barrier already crossed at the start is a different product: knocked at inception).
template <class Fields>
void knock(const Fields& f, const KnockKeys& keys, const StartLevel& start, InstrumentConfig& inst,
           SharedSchedules& shared) {
  inst.knock = true;
  const auto level_at = f.require(keys.level);
  // A basket's level may be <= 0 (a spread), so only a spot's level must be positive.
  const bool on_basket = inst.type == InstrumentType::basket;
  inst.barrier = on_basket ? f.number(level_at) : f.positive(level_at);
  inst.barrier_type = f.choice(f.require(keys.type), spellings::kBarrierTypes);
  if (const auto rebate = f.find(keys.rebate)) {
    inst.rebate = f.non_negative(*rebate);
  }
  inst.monitoring_times =
      schedule(f, keys.monitoring, keys.monitoring_times, inst.maturity, shared);
  const bool down = inst.barrier_type == BarrierType::down_and_in ||
                    inst.barrier_type == BarrierType::down_and_out;
  if (down && !(inst.barrier < start.value)) {
    f.fail(level_at,
           "down barrier " + yaml::format_number(inst.barrier) + " must be below " + start.what());
  }
  if (!down && !(inst.barrier > start.value)) {
    f.fail(level_at,
           "up barrier " + yaml::format_number(inst.barrier) + " must be above " + start.what());
  }
}

/// The `knock` of a non-barrier instrument, if it has one: a mapping in YAML, knock_* columns
/// in a CSV row (there a knock is there when any of its columns is filled).
template <class Fields>
void optional_knock(const Fields& f, const StartLevel& start, InstrumentConfig& inst,
                    SharedSchedules& shared) {
  if constexpr (Fields::flat_knock) {
    const KnockKeys& k = kFlatKnock;
    if (f.find(k.type) || f.find(k.level) || f.find(k.monitoring) || f.find(k.monitoring_times) ||
        f.find(k.rebate)) {
      knock(f, k, start, inst, shared);
    }
  } else if (const auto at = f.find("knock")) {
    const Fields nested = f.nested(*at);
    const KnockKeys& k = kNestedKnock;
    nested.allow_only(reference::key_names("instruments[].knock"));
    knock(nested, k, start, inst, shared);
  }
}

template <class Fields>
void basket(const Fields& f, const ModelConfig& model, InstrumentConfig& inst) {
  inst.basket = f.choice(f.require("payoff"), spellings::kBasketPayoffs);
  const bool weighted = inst.basket == BasketPayoff::weighted;
  const auto n = static_cast<std::size_t>(model.assets());
  const auto weights = f.find("weights");
  if (!weights) {
    inst.weights.assign(n, weighted ? 1.0 / static_cast<double>(n) : 1.0);
    return;
  }
  bool any_non_zero = false;
  for (const auto& item :
       f.sized_list(*weights, n, "values, one per underlying of '" + model.name + "'")) {
    // A short leg makes sense in a weighted sum (a spread); in a max or min it would make the
    // best of the assets the one that fell the most.
    inst.weights.push_back(weighted ? f.number(item) : f.positive(item));
    any_non_zero = any_non_zero || inst.weights.back() != 0.0;
  }
  if (!any_non_zero) {
    f.fail(*weights, "must not all be 0");
  }
}

/// `exercise: american | bermudan` (with `exercise_dates: N` or `exercise_times: [...]`) on a
/// European or a basket; `european`, the default, takes no dates. A bermudan schedule that stops
/// short of the maturity gets it: the holder may always exercise at expiry.
template <class Fields>
void exercise(const Fields& f, InstrumentConfig& inst, SharedSchedules& shared) {
  const auto style_at = f.find("exercise");
  if (style_at) {
    inst.exercise = f.choice(*style_at, spellings::kExerciseStyles);
  }
  if (inst.exercise != ExerciseStyle::bermudan) {
    for (const char* key : {"exercise_dates", "exercise_times"}) {
      if (const auto dates = f.find(key)) {
        f.fail(*dates, inst.exercise == ExerciseStyle::american
                           ? "an american option may be exercised at every step of the grid: "
                             "exercise dates belong to exercise: bermudan"
                           : "exercise dates need exercise: bermudan (or american)");
      }
    }
    if (inst.exercise == ExerciseStyle::european) {
      return;
    }
  } else {
    inst.exercise_times = schedule(f, "exercise_dates", "exercise_times", inst.maturity, shared);
    if (inst.exercise_times.back() < inst.maturity) {
      std::vector<double> times = inst.exercise_times;
      times.push_back(inst.maturity);
      inst.exercise_times = std::move(times);
    }
  }
  if (inst.knock) {
    f.fail(*style_at, "early exercise does not combine with a knock (knock: on a European or "
                      "basket with exercise: european only)");
  }
}

/// The model an instrument prices on: a multi_black_scholes model for a basket, and only then.
template <class Fields>
int model_of(const Fields& f, const RunConfig& config, const NameTable& model_names,
             InstrumentConfig& inst) {
  const auto model_at = f.require("model");
  inst.model = f.name(model_at);
  const int index = f.resolve(model_names, model_at, inst.model, "model");
  const ModelConfig& model = config.models[index];
  const bool multi_asset = model.type == ModelType::multi_black_scholes;
  if (inst.type == InstrumentType::basket && !multi_asset) {
    f.fail(model_at, "'" + inst.model + "' is a " + to_string(model.type) +
                         " model; basket instruments need a multi_black_scholes model");
  }
  if (inst.type != InstrumentType::basket && multi_asset) {
    f.fail(model_at, "'" + inst.model +
                         "' is a multi_black_scholes model; only basket instruments price on it");
  }
  return index;
}

/// One instrument from a YAML mapping or a CSV row (config/fields.hpp).
template <class Fields>
InstrumentConfig instrument(const Fields& f, const RunConfig& config, const NameTable& model_names,
                            SharedSchedules& shared) {
  InstrumentConfig inst;
  inst.mark = f.mark();
  // The valid keys depend on the type; while it is missing, judge keys against all types so that
  // a misspelt `tpye` is reported as such.
  if (!f.find("type")) {
    f.allow_only(instrument_keys(std::nullopt, Fields::flat_knock));
  }
  inst.type = f.choice(f.require("type"), spellings::kInstrumentTypes);
  f.allow_only(instrument_keys(inst.type, Fields::flat_knock));

  inst.id = f.name(f.require("id"));
  inst.option = f.choice(f.require("option"), spellings::kOptionTypes);
  inst.strike = f.positive(f.require("strike"));
  const auto maturity_at = f.require("maturity");
  inst.maturity = f.positive(maturity_at);
  if (inst.maturity > 100.0) {
    f.fail(maturity_at, "must be <= 100");
  }
  inst.model_index = model_of(f, config, model_names, inst);
  const ModelConfig& model = config.models[inst.model_index];

  switch (inst.type) {
  case InstrumentType::european:
    break;
  case InstrumentType::digital:
    if (const auto cash = f.find("cash")) {
      inst.cash = f.positive(*cash);
    }
    break;
  case InstrumentType::asian:
    inst.average = f.choice(f.require("average"), spellings::kAverageTypes);
    inst.fixing_times = schedule(f, "fixings", "fixing_times", inst.maturity, shared);
    break;
  case InstrumentType::barrier:
    knock(f, {"barrier_type", "barrier", "monitoring", "monitoring_times", "rebate"},
          start_level(config, model, inst), inst, shared);
    break;
  case InstrumentType::basket:
    basket(f, model, inst);
    break;
  }
  if (inst.type != InstrumentType::barrier) {
    optional_knock(f, start_level(config, model, inst), inst, shared); // after the weights
  }
  if (inst.type == InstrumentType::european || inst.type == InstrumentType::basket) {
    exercise(f, inst, shared); // after the knock, which it refuses
  }
  return inst;
}

/// Where each instrument is held, by instrument index (line 0: not held yet): an instrument
/// may be held once.
using HeldAt = std::vector<int>;

/// One position from a YAML mapping or a CSV row.
template <class Fields>
Position position(const Fields& f, const NameTable& ids, HeldAt& held_at) {
  static const std::vector<std::string> keys = reference::key_names("portfolio[]");
  f.allow_only(keys);
  Position position;
  position.mark = f.mark();
  const auto instrument_at = f.require("instrument");
  position.instrument = f.name(instrument_at);
  position.instrument_index = f.resolve(ids, instrument_at, position.instrument, "instrument");
  int& first = held_at[static_cast<std::size_t>(position.instrument_index)];
  if (first > 0) {
    f.fail(instrument_at, "duplicate instrument '" + position.instrument + "' (first at line " +
                              std::to_string(first) + ")");
  }
  first = position.mark.line;
  const auto quantity_at = f.require("quantity");
  position.quantity = f.number(quantity_at);
  if (position.quantity == 0.0) {
    f.fail(quantity_at, "must not be 0");
  }
  return position;
}

NameTable known_models(const Reader& reader, const RunConfig& config) {
  NameTable model_names(reader, "name");
  for (const auto& model : config.models) {
    model_names.add_known(model.name, model.mark);
  }
  return model_names;
}

} // namespace

std::optional<csv::Table> csv_section(const Reader& reader, const Located& where) {
  if (where.node.IsSequence()) {
    return std::nullopt;
  }
  const bool names_a_file = where.node.IsMap() && Mapping(reader, where).find("csv") != nullptr;
  if (!names_a_file) {
    reader.fail(where, "must be a list, or {csv: FILE}");
  }
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("csv_file"));
  return csv_file(reader, m);
}

csv::Table csv_file(const Reader& reader, const Mapping& m) {
  const Located& file_at = m.require("csv").value;
  char delimiter = 0; // the file's `sep=` line, else a comma
  if (const yaml::Entry* e = m.find("delimiter")) {
    const std::string text = reader.name(e->value);
    if (text.size() != 1 ||
        std::string_view(csv::Table::kDelimiters).find(text.front()) == std::string_view::npos) {
      reader.fail(e->value, "must be \",\", \";\" or \"\\t\" (a tab, in double quotes)");
    }
    delimiter = text.front();
  }
  const std::string file = reader.name(file_at);
  const std::string& yaml_file = reader.file();
  const std::size_t slash = yaml_file.rfind('/');
  const bool relative =
      file.front() != '/' && slash != std::string::npos && yaml_file != kStandardInputName;
  const std::string path = relative ? yaml_file.substr(0, slash + 1) + file : file;
  try {
    return csv::Table::read(path, path, delimiter);
  } catch (const ConfigError& e) {
    if (e.mark().line > 0) {
      throw; // in the CSV file
    }
    reader.fail(file_at, e.message() + " (" + path + ")"); // it could not be read: say who named it
  }
}

void check_header(const Reader& csv_reader, const csv::Table& table,
                  const std::vector<std::string>& allowed,
                  const std::vector<std::string>& required) {
  for (std::size_t c = 0; c < table.columns().size(); ++c) {
    const std::string& name = table.columns()[c];
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end() &&
        table.columns().size() == 1) {
      // One column holding another delimiter: the file was written with it (Excel writes `;`
      // where the decimal separator is a comma).
      for (const char other : std::string_view(csv::Table::kDelimiters)) {
        if (other == table.delimiter() || name.find(other) == std::string::npos)
          continue;
        const std::string shown = other == '\t' ? "\\t" : std::string(1, other);
        csv_reader.fail(
            table.mark(-1, 0), "",
            "the header is one column, '" + name + "': its cells look separated by " +
                (other == '\t' ? std::string("tabs") : "'" + shown + "'") + ", not " +
                (table.delimiter() == '\t' ? std::string("tabs") : std::string("commas")) +
                ": set {csv: FILE, delimiter: \"" + shown +
                "\"}, or make the file's first line sep=" + shown);
      }
    }
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      csv_reader.fail(table.mark(-1, static_cast<int>(c)), "",
                      "unknown column '" + name + "' (expected some of: " + yaml::join(allowed) +
                          ")");
    }
  }
  for (const auto& name : required) {
    if (table.column(name) < 0) {
      csv_reader.fail(table.mark(-1, 0), "",
                      "missing required column '" + name +
                          "' (the header has: " + yaml::join(table.columns()) + ")");
    }
  }
}

std::vector<InstrumentConfig> instruments(const Reader& reader, const Located& where,
                                          const RunConfig& config, NameTable& ids) {
  if (const auto table = csv_section(reader, where))
    return instruments_from_table(*table, reader, config, ids);
  const NameTable model_names = known_models(reader, config);
  const auto items = reader.non_empty_list(where);
  const unsigned threads = base::threads_for(items.size(), yaml::kItemsPerThread);
  std::vector<SharedSchedules> shared_by_range(threads);
  return yaml::read_items<InstrumentConfig>(
      items, ids, threads, [&](const Located& item, yaml::NameSink& id, std::size_t range) {
        const YamlFields f(reader, item);
        InstrumentConfig in = instrument(f, config, model_names, shared_by_range[range]);
        id.add(in.id, f.require("id"));
        return in;
      });
}

std::vector<InstrumentConfig> instruments_from_table(const csv::Table& table_ref,
                                                     const Reader& reader, const RunConfig& config,
                                                     NameTable& ids) {
  std::vector<InstrumentConfig> result;
  {
    const csv::Table* table = &table_ref;
    const Reader csv_reader(table->file());
    check_header(csv_reader, *table, instrument_keys(std::nullopt, true),
                 {"id", "type", "option", "strike", "maturity", "model"});
    if (table->rows() == 0) {
      csv_reader.fail(table->mark(-1, 0), "", "no instruments (the file has only a header)");
    }
    const NameTable model_names = known_models(csv_reader, config);
    ids.report_with(csv_reader);
    ids.reserve(table->rows());
    // The rows are read on every core (a row depends on the models only) while one more
    // thread adds the ids in order, stopping at the first repeat; then the error of one loop
    // over the rows: the first row that failed or repeats an id (a repeat reported through
    // add(), which refuses it). An id is its cell's text (RowFields::name), checked by its row.
    const std::size_t rows = table->rows();
    result.resize(rows);
    const int id_column = table->column("id");
    std::size_t repeat = rows; // the first row whose id was added before
    std::exception_ptr ids_error;
    const unsigned threads = base::threads_for(rows, kRowsPerThread);
    std::vector<SharedSchedules> shared_by_range(threads);
    std::thread id_pass([&] {
      try {
        std::string written; // an id given as a number
        for (std::size_t row = 0; row < rows && repeat == rows; ++row) {
          if (!ids.try_add(table->text(row, id_column, written), table->mark(row, id_column)))
            repeat = row;
        }
      } catch (...) {
        ids_error = std::current_exception();
      }
    });
    // Joined on every way out (parallel_ranges throws only if a thread cannot start).
    const struct Joiner {
      std::thread& thread;
      ~Joiner() {
        if (thread.joinable())
          thread.join();
      }
    } joiner{id_pass};
    const base::FirstFailure failed =
        base::parallel_ranges(rows, threads, [&](std::size_t row, std::size_t r) {
          result[row] = instrument(csv::RowFields(*table, csv_reader, row), config, model_names,
                                   shared_by_range[r]);
        });
    id_pass.join();
    if (ids_error)
      std::rethrow_exception(ids_error);
    if (repeat < failed.index) {
      const csv::RowFields f(*table, csv_reader, repeat);
      f.add(ids, f.require("id"), result[repeat].id); // refuses the repeat
    }
    if (failed.error)
      std::rethrow_exception(failed.error);
    ids.report_with(reader); // csv_reader ends here
    return result;
  }
}

std::vector<Position> portfolio(const Reader& reader, const Located& where, NameTable& ids,
                                std::size_t instruments) {
  if (const auto table = csv_section(reader, where))
    return portfolio_from_table(*table, reader, ids, instruments);
  std::vector<Position> result;
  HeldAt held_at(instruments, 0);
  ids.report_with(reader);
  for (const auto& item : reader.list(where)) {
    result.push_back(position(YamlFields(reader, item), ids, held_at));
  }
  return result;
}

std::vector<Position> portfolio_from_table(const csv::Table& table, const Reader& reader,
                                           NameTable& ids, std::size_t instruments) {
  std::vector<Position> result;
  HeldAt held_at(instruments, 0);
  const Reader csv_reader(table.file());
  check_header(csv_reader, table, {"instrument", "quantity"}, {"instrument", "quantity"});
  ids.report_with(csv_reader);
  result.reserve(table.rows());
  for (std::size_t row = 0; row < table.rows(); ++row)
    result.push_back(position(csv::RowFields(table, csv_reader, row), ids, held_at));
  ids.report_with(reader);
  return result;
}

} // namespace pfmc::config::schema
