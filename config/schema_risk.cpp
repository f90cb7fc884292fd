// The `risk` block (issue 61): ladders of one kind of move (spot, vol, rate, time) at each of
// their points, a grid of two ladders, named scenarios from a CSV file and a CSV file of dated
// daily moves for historical VaR. Amounts are read as written (basis points for rates, days for
// time) and kept in Move's units (decimal rates, years); names resolve to underlying indices
// (spot) and model indices (vol).

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/fields.hpp"
#include "config/key_reference.hpp"
#include "config/schema.hpp"
#include "config/spellings.hpp"

namespace pfmc::config::schema {

using yaml::Entry;
using yaml::Located;
using yaml::Mapping;
using yaml::NameTable;
using yaml::Reader;

namespace {

/// Most points of one ladder: each is a scenario priced on the base run's draws.
constexpr std::size_t kMaxLadderPoints = 1001;
/// Longest historical horizon, in days (a file needs at least this many days of moves).
constexpr long long kMaxHorizon = 100'000;
constexpr double kBasisPointsPerUnit = 10000.0;
constexpr double kDaysPerYear = 365.0;

/// A move as written (a ladder's point, a file's cell) in Move's units: basis points to a
/// decimal rate, days to years.
double in_move_units(ShiftKind kind, double written) {
  if (kind == ShiftKind::rate)
    return written / kBasisPointsPerUnit;
  if (kind == ShiftKind::time)
    return written / kDaysPerYear;
  return written;
}

/// What is wrong with a move of `written` (as written) of this kind and mode; empty if nothing.
std::string refusal(ShiftKind kind, ShiftMode mode, double written) {
  if (mode == ShiftMode::relative && !(written > -1.0))
    return "must be > -1 (got " + yaml::format_number(written) +
           "): a relative move of -1 or less takes the " + to_string(kind) + " to zero or below";
  if (kind == ShiftKind::time && !(written >= 0.0))
    return "must be >= 0 (got " + yaml::format_number(written) +
           "): days the valuation date moves forward";
  return {};
}

void sort_unique(std::vector<int>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

/// The names a move may target: underlyings (a spot move), models or underlyings (a vol move).
class MoveTargets {
public:
  explicit MoveTargets(const RunConfig& config) : config_(config) {
    for (std::size_t i = 0; i < config.market.underlyings.size(); ++i)
      underlyings_.emplace(config.market.underlyings[i].name, static_cast<int>(i));
    for (std::size_t i = 0; i < config.models.size(); ++i)
      models_.emplace(config.models[i].name, static_cast<int>(i));
  }

  /// Adds what a move of `kind` on `name` moves to `targets`: the underlying `name` (spot); the
  /// model `name`, or every model on the underlying `name`, baskets holding it included (vol).
  /// Returns what is wrong with the name; empty if nothing.
  std::string add(ShiftKind kind, const std::string& name, std::vector<int>& targets) const {
    const auto underlying = underlyings_.find(name);
    if (kind == ShiftKind::spot) {
      if (underlying == underlyings_.end())
        return "unknown underlying '" + name + "' (known: " + known_names(underlyings()) + ")";
      targets.push_back(underlying->second);
      return {};
    }
    const auto model = models_.find(name);
    if (model == models_.end() && underlying == underlyings_.end())
      return "unknown model or underlying '" + name + "' (models: " + known_names(config_.models) +
             "; underlyings: " + known_names(underlyings()) + ")";
    const std::vector<int> on =
        underlying == underlyings_.end() ? std::vector<int>{} : models_on(underlying->second);
    if (model != models_.end() && underlying != underlyings_.end() &&
        on != std::vector<int>{model->second})
      return "'" + name + "' names a model and an underlying that other models are on: rename one";
    if (model != models_.end()) {
      targets.push_back(model->second);
      return {};
    }
    if (on.empty())
      return "no model is on underlying '" + name + "': a vol move needs a model to move";
    targets.insert(targets.end(), on.begin(), on.end());
    return {};
  }

private:
  [[nodiscard]] const std::vector<Underlying>& underlyings() const {
    return config_.market.underlyings;
  }
  /// The models on underlying `index`, in order: its own models and the baskets that hold it.
  [[nodiscard]] std::vector<int> models_on(int index) const {
    std::vector<int> on;
    for (std::size_t m = 0; m < config_.models.size(); ++m) {
      const ModelConfig& model = config_.models[m];
      const auto& held = model.underlying_indices;
      const bool basket = model.type == ModelType::multi_black_scholes &&
                          std::find(held.begin(), held.end(), index) != held.end();
      if (basket ||
          (model.type != ModelType::multi_black_scholes && model.underlying_index == index))
        on.push_back(static_cast<int>(m));
    }
    return on;
  }

  const RunConfig& config_;
  std::unordered_map<std::string, int> underlyings_;
  std::unordered_map<std::string, int> models_;
};

// --- ladders ------------------------------------------------------------------------------------

/// A ladder's `on`: `all` (no targets: every one) or a non-empty list of names, each once;
/// the targets sorted, each once.
std::vector<int> ladder_targets(const Reader& reader, const Located& where, ShiftKind kind,
                                const MoveTargets& targets) {
  if (yaml::is_plain_scalar(where.node) && where.node.Scalar() == "all")
    return {};
  if (!where.node.IsSequence())
    reader.fail(where, "must be all or a list of names");
  std::vector<int> result;
  std::vector<std::string> names;
  for (const Located& item : reader.non_empty_list(where)) {
    const std::string name = reader.name(item);
    if (std::find(names.begin(), names.end(), name) != names.end())
      reader.fail(item, "repeats '" + name + "'");
    names.push_back(name);
    if (const std::string error = targets.add(kind, name, result); !error.empty())
      reader.fail(item, error);
  }
  sort_unique(result);
  return result;
}

/// A rate or time ladder moves every zero rate or the valuation date, by basis points or days:
/// it has neither `on` nor `mode`.
void refuse_for_rate_and_time(const Reader& reader, const Mapping& m, ShiftKind kind) {
  const char* what = kind == ShiftKind::rate ? "a rate ladder adds its basis points to every "
                                               "zero rate"
                                             : "a time ladder moves the valuation date forward "
                                               "by its days";
  for (const char* key : {"on", "mode"}) {
    if (const Entry* e = m.find(key))
      reader.fail(e->value, std::string("only a spot or vol ladder has ") + key + ": " + what);
  }
}

ShiftMode ladder_mode(const Reader& reader, const Mapping& m, ShiftKind kind) {
  if (kind == ShiftKind::rate || kind == ShiftKind::time)
    return ShiftMode::absolute;
  if (const Entry* e = m.find("mode"))
    return reader.choice(e->value, spellings::kLadderModes);
  return kind == ShiftKind::spot ? ShiftMode::relative : ShiftMode::absolute;
}

/// `range: {from, to, step}`: from + i · step for i = 0, 1, ... up to `to` (within 1e-9 of a
/// step: (to - from) / step may round to just under a whole number of steps).
std::vector<double> range_points(const Reader& reader, const Located& where, ShiftKind kind,
                                 ShiftMode mode) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("risk.ladders[].range"));
  const Located& from_at = m.require("from").value;
  const Located& to_at = m.require("to").value;
  const Located& step_at = m.require("step").value;
  const double from = reader.number(from_at);
  const double to = reader.number(to_at);
  const double step = reader.positive(step_at);
  if (!(from <= to))
    reader.fail(to_at, "must be >= from (" + yaml::format_number(from) + ")");
  if (const std::string error = refusal(kind, mode, from); !error.empty())
    reader.fail(from_at, error); // the lowest point
  const double last = std::floor((to - from) / step + 1e-9);
  if (!(last < static_cast<double>(kMaxLadderPoints)))
    reader.fail(step_at, "makes " + yaml::format_number(last + 1) + " points (at most " +
                             std::to_string(kMaxLadderPoints) + "): take a larger step");
  std::vector<double> points;
  for (int i = 0; i <= static_cast<int>(last); ++i)
    points.push_back(from + i * step);
  return points;
}

/// The ladder's points as written: `points` or `range`, each a move the ladder may make.
std::vector<double> ladder_written(const Reader& reader, const Mapping& m, ShiftKind kind,
                                   ShiftMode mode) {
  m.refuse_both(m.find("points"), m.find("range"), "give points or range, not both");
  if (const Entry* e = m.find("range"))
    return range_points(reader, e->value, kind, mode);
  const Entry* e = m.find("points");
  if (e == nullptr)
    reader.fail(m.where(), "missing points (a list) or range ({from, to, step})");
  const std::vector<Located> items = reader.non_empty_list(e->value);
  if (items.size() > kMaxLadderPoints)
    reader.fail(e->value, "has " + std::to_string(items.size()) + " points (at most " +
                              std::to_string(kMaxLadderPoints) + ")");
  std::vector<double> written;
  for (const Located& item : items) {
    const double point = reader.number(item);
    if (const std::string error = refusal(kind, mode, point); !error.empty())
      reader.fail(item, error);
    written.push_back(point);
  }
  return written;
}

RiskLadder ladder(const Reader& reader, const Located& where, const MoveTargets& targets,
                  NameTable& names) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("risk.ladders[]"));
  RiskLadder ladder;
  const Located& name_at = m.require("name").value;
  ladder.name = reader.name(name_at);
  names.add(ladder.name, name_at);
  ladder.kind = reader.choice(m.require("shift").value, spellings::kShiftKinds);
  if (ladder.kind == ShiftKind::rate || ladder.kind == ShiftKind::time)
    refuse_for_rate_and_time(reader, m, ladder.kind);
  ladder.mode = ladder_mode(reader, m, ladder.kind);
  if (const Entry* e = m.find("on"))
    ladder.targets = ladder_targets(reader, e->value, ladder.kind, targets);
  ladder.written = ladder_written(reader, m, ladder.kind, ladder.mode);
  for (const double point : ladder.written)
    ladder.points.push_back(in_move_units(ladder.kind, point));
  ladder.mark = where.mark;
  return ladder;
}

/// `grid: [A, B]`: two different ladders of the block, whose product is priced.
void grid(const Reader& reader, const Located& where, const NameTable& ladder_names,
          RiskConfig& risk) {
  const std::vector<Located> items = reader.sized_list(where, 2, "ladder names");
  if (risk.ladders.empty())
    reader.fail(where, "names two ladders, and the block has none (risk.ladders)");
  risk.grid_first = ladder_names.resolve(reader.name(items[0]), items[0], "ladder");
  risk.grid_second = ladder_names.resolve(reader.name(items[1]), items[1], "ladder");
  if (risk.grid_first == risk.grid_second)
    reader.fail(items[1], "names ladder '" + reader.name(items[1]) +
                              "' twice: a grid is the product of two different ladders");
}

// --- CSV files of moves -------------------------------------------------------------------------

/// A kind of column of a file of moves: `spot:NAME` names its targets, `rate_bp` moves all.
struct ColumnGrammar {
  const char* prefix;
  ShiftKind kind;
  ShiftMode mode;
  bool named;
};

/// risk.scenarios: relative and absolute spot moves, absolute and relative vol moves, bp, days.
const std::vector<ColumnGrammar> kScenarioColumns = {
    {"spot", ShiftKind::spot, ShiftMode::relative, true},
    {"spot_abs", ShiftKind::spot, ShiftMode::absolute, true},
    {"vol", ShiftKind::vol, ShiftMode::absolute, true},
    {"vol_rel", ShiftKind::vol, ShiftMode::relative, true},
    {"rate_bp", ShiftKind::rate, ShiftMode::absolute, false},
    {"days", ShiftKind::time, ShiftMode::absolute, false}};
/// risk.historical: a day's log returns of spots, vol changes, rate changes; no time passes.
const std::vector<ColumnGrammar> kHistoricalColumns = {
    {"spot", ShiftKind::spot, ShiftMode::log, true},
    {"vol", ShiftKind::vol, ShiftMode::absolute, true},
    {"vol_rel", ShiftKind::vol, ShiftMode::relative, true},
    {"rate_bp", ShiftKind::rate, ShiftMode::absolute, false}};

/// "spot:NAME, ..., rate_bp".
std::string spellings(const std::vector<ColumnGrammar>& grammar) {
  std::vector<std::string> words;
  for (const ColumnGrammar& g : grammar)
    words.push_back(std::string(g.prefix) + (g.named ? ":NAME" : ""));
  return yaml::join(words);
}

/// A column of moves, as its header names it: the move of each of its cells but the amount.
struct MoveColumn {
  int column = 0;
  Move move;
};

MoveColumn move_column(const Reader& csv_reader, const csv::Table& table, int column,
                       const std::vector<ColumnGrammar>& grammar, const MoveTargets& targets) {
  const std::string& name = table.columns()[static_cast<std::size_t>(column)];
  const SourceMark at = table.mark(-1, column);
  const std::size_t colon = name.find(':');
  const std::string prefix = name.substr(0, colon);
  const auto g = std::find_if(grammar.begin(), grammar.end(),
                              [&](const ColumnGrammar& c) { return prefix == c.prefix; });
  if (g == grammar.end() || g->named != (colon != std::string::npos))
    csv_reader.fail(at, "",
                    "unknown column '" + name + "' (expected '" + table.columns().front() +
                        "', then some of: " + spellings(grammar) + ")");
  MoveColumn result{column, Move{g->kind, g->mode, {}, 0.0}};
  const std::string target = g->named ? name.substr(colon + 1) : "";
  if (g->named && target.empty())
    csv_reader.fail(at, name,
                    "needs a name after ':' (" + prefix + ":NAME, or " + prefix + ":all)");
  if (!g->named || target == "all")
    return result;
  if (const std::string error = targets.add(g->kind, target, result.move.targets); !error.empty())
    csv_reader.fail(at, name, error);
  sort_unique(result.move.targets);
  return result;
}

/// The header: `first` (the row's name), then one column of moves or more.
std::vector<MoveColumn> move_columns(const Reader& csv_reader, const csv::Table& table,
                                     const std::string& first,
                                     const std::vector<ColumnGrammar>& grammar,
                                     const MoveTargets& targets) {
  const std::vector<std::string>& names = table.columns();
  if (names.front() != first)
    csv_reader.fail(table.mark(-1, 0), "",
                    "the first column must be '" + first + "' (got '" + names.front() + "')");
  if (names.size() == 1)
    csv_reader.fail(table.mark(-1, 0), "",
                    "no columns of moves after '" + first +
                        "' (expected some of: " + spellings(grammar) + ")");
  std::vector<MoveColumn> columns;
  for (std::size_t c = 1; c < names.size(); ++c)
    columns.push_back(move_column(csv_reader, table, static_cast<int>(c), grammar, targets));
  return columns;
}

csv::Cell cell_at(const csv::Table& table, std::size_t row, int column) {
  const double* numbers = table.numbers(column);
  return csv::Cell{table.cell(row, column), column, -1, numbers ? numbers + row : nullptr};
}

/// A cell of a column of moves: its number in Move's units, refused at the cell when it is not
/// a number or not a move of its column's kind.
Move cell_move(const csv::RowFields& f, const csv::Cell& cell, const Move& column) {
  const double written = f.number(cell);
  if (const std::string error = refusal(column.kind, column.mode, written); !error.empty())
    f.fail(cell, error);
  Move move = column;
  move.amount = in_move_units(column.kind, written);
  return move;
}

/// "FILE:LINE" of a row, for errors about the market it makes.
std::string where_of(const csv::Table& table, std::size_t row) {
  return table.file() + ":" + std::to_string(table.mark(static_cast<std::ptrdiff_t>(row), 0).line);
}

/// risk.scenarios: `{csv: FILE}`, a row a scenario: its id, then its moves (an empty cell: none).
std::vector<MarketShift> scenarios(const Reader& reader, const Located& where,
                                   const MoveTargets& targets) {
  if (!where.node.IsMap())
    reader.fail(where, "must be {csv: FILE}");
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("risk.scenarios"));
  const csv::Table table = csv_file(reader, m);
  const Reader csv_reader(table.file());
  const auto columns = move_columns(csv_reader, table, "scenario", kScenarioColumns, targets);
  if (table.rows() == 0)
    csv_reader.fail(table.mark(-1, 0), "", "no scenarios (the file has only a header)");
  NameTable ids(csv_reader, "scenario");
  std::vector<MarketShift> result;
  for (std::size_t row = 0; row < table.rows(); ++row) {
    const csv::RowFields f(table, csv_reader, row);
    const csv::Cell id_at = f.require("scenario");
    MarketShift scenario{f.name(id_at), {}, where_of(table, row)};
    f.add(ids, id_at, scenario.name);
    for (const MoveColumn& column : columns) {
      if (!table.empty(row, column.column))
        scenario.moves.push_back(cell_move(f, cell_at(table, row, column.column), column.move));
    }
    result.push_back(std::move(scenario));
  }
  return result;
}

/// `YYYY-MM-DD`, a day of the (proleptic) Gregorian calendar.
bool is_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-')
    return false;
  for (const std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      return false;
  }
  const auto number = [&](std::size_t at, std::size_t n) {
    return std::stoi(std::string(text.substr(at, n)));
  };
  const int year = number(0, 4);
  const int month = number(5, 2);
  const int day = number(8, 2);
  if (month < 1 || month > 12 || day < 1)
    return false;
  constexpr std::array<int, 12> kDaysInMonth = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDaysInMonth[static_cast<std::size_t>(month - 1)] + (month == 2 && leap ? 1 : 0);
}

/// A row of a historical file: its date, after the previous day's, and a move in every column.
MarketShift historical_day(const csv::Table& table, const csv::RowFields& f, std::size_t row,
                           const std::vector<MoveColumn>& columns, const HistoricalRisk& before) {
  const csv::Cell date_at = f.require("date");
  const std::string date = f.name(date_at);
  if (!is_date(date))
    f.fail(date_at, "must be a date written YYYY-MM-DD (got '" + date + "')");
  if (!before.dates.empty() && !(date > before.dates.back()))
    f.fail(date_at, "must be after the previous day, " + before.dates.back() + " (line " +
                        std::to_string(table.mark(static_cast<std::ptrdiff_t>(row) - 1, 0).line) +
                        "): give the days in increasing order, each once");
  MarketShift day{date, {}, where_of(table, row)};
  for (const MoveColumn& column : columns) {
    const csv::Cell cell = cell_at(table, row, column.column);
    if (table.empty(row, column.column))
      f.fail(cell, "a gap: every day needs every column");
    day.moves.push_back(cell_move(f, cell, column.move));
  }
  return day;
}

/// risk.historical.levels: confidence levels in (0, 1), each once.
std::vector<double> levels(const Reader& reader, const Located& where) {
  std::vector<double> result;
  for (const Located& item : reader.non_empty_list(where)) {
    const double level = reader.number(item);
    if (!(level > 0.0 && level < 1.0))
      reader.fail(item, "must be in (0, 1): a confidence level (0.99: the worst 1% of days)");
    if (std::find(result.begin(), result.end(), level) != result.end())
      reader.fail(item, "repeats level " + yaml::format_number(level));
    result.push_back(level);
  }
  return result;
}

/// risk.historical: `{csv: FILE, levels, horizon}`, a row a day: its date, then its moves.
HistoricalRisk historical(const Reader& reader, const Located& where, const MoveTargets& targets) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("risk.historical"));
  HistoricalRisk result;
  if (const Entry* e = m.find("levels"))
    result.levels = levels(reader, e->value);
  if (const Entry* e = m.find("horizon"))
    result.horizon = static_cast<int>(reader.integer(e->value, 1, kMaxHorizon));
  const csv::Table table = csv_file(reader, m);
  result.file = table.file();
  const Reader csv_reader(table.file());
  const auto columns = move_columns(csv_reader, table, "date", kHistoricalColumns, targets);
  const std::size_t needed = std::max<std::size_t>(2, static_cast<std::size_t>(result.horizon));
  if (table.rows() < needed)
    csv_reader.fail(table.mark(-1, 0), "",
                    "has " + yaml::count_of(table.rows(), "day") + " of moves: needs at least " +
                        std::to_string(needed) + " (2, and a horizon's " +
                        yaml::count_of(static_cast<std::size_t>(result.horizon), "day") + ")");
  for (std::size_t row = 0; row < table.rows(); ++row) {
    const csv::RowFields f(table, csv_reader, row);
    MarketShift day = historical_day(table, f, row, columns, result);
    result.dates.push_back(day.name);
    result.days.push_back(std::move(day));
  }
  return result;
}

} // namespace

RiskConfig risk(const Reader& reader, const Located& where, const RunConfig& config) {
  const char* const empty =
      "needs ladders, scenarios or historical (an empty block prices no risk)";
  if (where.node.IsNull())
    reader.fail(where, empty);
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("risk"));
  if (!m.find("ladders") && !m.find("scenarios") && !m.find("historical"))
    reader.fail(where, empty);
  const MoveTargets targets(config);
  RiskConfig risk;
  risk.present = true;
  risk.mark = where.mark;
  NameTable ladder_names(reader, "ladder");
  if (const Entry* e = m.find("ladders")) {
    for (const Located& item : reader.non_empty_list(e->value))
      risk.ladders.push_back(ladder(reader, item, targets, ladder_names));
  }
  if (const Entry* e = m.find("grid"))
    grid(reader, e->value, ladder_names, risk);
  if (const Entry* e = m.find("scenarios"))
    risk.scenarios = scenarios(reader, e->value, targets);
  if (const Entry* e = m.find("historical")) {
    risk.historical = historical(reader, e->value, targets);
    risk.has_historical = true;
  }
  if (const Entry* e = m.find("per_instrument"))
    risk.per_instrument = reader.boolean(e->value);
  return risk;
}

} // namespace pfmc::config::schema
