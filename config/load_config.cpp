#include "config/load_config.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/overrides.hpp"

// yaml-cpp notes (0.7 and 0.8 alike):
// - Iterating a mapping yields every pair, duplicates included: duplicate keys are found here.
// - Node::operator= on a live node rewrites the node it refers to (it does not rebind), so this
//   file only ever copy-constructs YAML::Node and never indexes with operator[] (which inserts
//   zombie nodes on misses).
// - Mark is 0-based; an empty value (`strike:`) is a null node whose mark is that of the next
//   token, possibly lines below, so such values are reported at their key instead.

namespace pfmc::config {

namespace {

SourceMark to_source_mark(const YAML::Mark& mark) {
  if (mark.line < 0 || mark.column < 0) {
    return {};
  }
  return {mark.line + 1, mark.column + 1};
}

/// The shortest text that reads back as `value`, without exponent where that is readable:
/// `105`, `0.25`, `1e-07`.
std::string format_number(double value) {
  char text[64];
  const double magnitude = std::fabs(value);
  const bool plain = magnitude == 0.0 || (magnitude >= 1e-4 && magnitude < 1e15);
  for (int precision = plain ? 0 : 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, plain ? "%.*f" : "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value) {
      break;
    }
  }
  return text;
}

std::string join(const std::vector<std::string>& words) {
  std::string list;
  for (const auto& w : words) {
    list += (list.empty() ? "" : ", ") + w;
  }
  return list;
}

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

/// A YAML node and where it is: key path and 1-based position (for errors about its value).
struct Located {
  YAML::Node node;
  std::string path;
  SourceMark mark;
};

/// One `key: value` pair of a mapping.
struct Entry {
  std::string key;
  SourceMark key_mark; ///< for errors about the key itself
  Located value;
  std::size_t order; ///< position in the mapping
};

constexpr std::array<InstrumentType, 5> instrument_types = {
    InstrumentType::european, InstrumentType::digital, InstrumentType::asian,
    InstrumentType::barrier, InstrumentType::basket};
constexpr std::array<OptionType, 2> option_types = {OptionType::call, OptionType::put};
constexpr std::array<AverageType, 2> average_types = {AverageType::arithmetic,
                                                      AverageType::geometric};
constexpr std::array<BarrierType, 4> barrier_types = {
    BarrierType::up_and_in, BarrierType::up_and_out, BarrierType::down_and_in,
    BarrierType::down_and_out};
constexpr std::array<ModelType, 4> model_types = {ModelType::black_scholes, ModelType::heston,
                                                  ModelType::local_vol,
                                                  ModelType::multi_black_scholes};
constexpr std::array<HestonScheme, 2> heston_schemes = {HestonScheme::qe,
                                                        HestonScheme::full_truncation};
constexpr std::array<BasketPayoff, 3> basket_payoffs = {BasketPayoff::weighted, BasketPayoff::max,
                                                        BasketPayoff::min};
constexpr std::array<Greek, kGreekCount> greek_names = {Greek::delta, Greek::gamma, Greek::vega,
                                                        Greek::rho, Greek::theta};

/// "1 value", "3 values".
std::string count_of(std::size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// The keys a model of each type may have, in the order the error message lists them.
std::vector<std::string> model_keys(std::optional<ModelType> type) {
  std::vector<std::string> keys = {"name", "type"};
  const auto add = [&](std::initializer_list<const char*> more) {
    keys.insert(keys.end(), more.begin(), more.end());
  };
  const bool all = !type.has_value(); // the union, while the type is not known
  if (all || type != ModelType::multi_black_scholes) {
    add({"underlying"});
  }
  if (all || type == ModelType::black_scholes) {
    add({"volatility"});
  }
  if (all || type == ModelType::heston) {
    add({"v0", "kappa", "theta", "xi", "rho", "scheme"});
  }
  if (all || type == ModelType::local_vol) {
    add({"surface"});
  }
  if (all || type == ModelType::multi_black_scholes) {
    add({"underlyings", "volatilities", "correlation"});
  }
  return keys;
}

/// The keys an instrument of each type may have, in the order the error message lists them.
std::vector<std::string> instrument_keys(std::optional<InstrumentType> type) {
  std::vector<std::string> keys = {"id", "type", "option", "strike", "maturity", "model"};
  const auto add = [&](std::initializer_list<const char*> more) {
    keys.insert(keys.end(), more.begin(), more.end());
  };
  const bool all = !type.has_value(); // the union, while the type is not known
  if (all || type == InstrumentType::digital) {
    add({"cash"});
  }
  if (all || type == InstrumentType::asian) {
    add({"average", "fixings", "fixing_times"});
  }
  if (all || type == InstrumentType::barrier) {
    add({"barrier", "barrier_type", "rebate", "monitoring", "monitoring_times"});
  }
  if (all || type == InstrumentType::basket) {
    add({"payoff", "weights"});
  }
  return keys;
}

class Loader;

/// A YAML mapping's entries in document order, duplicate keys refused.
class Mapping {
public:
  Mapping(const Loader& loader, const Located& where);

  /// Refuses the first key not in `keys`, listing `keys`.
  void allow_only(const std::vector<std::string>& keys) const;
  [[nodiscard]] const Entry* find(std::string_view key) const;
  /// Refuses a missing key at the mapping itself: `instruments[2]: missing required key 'x'`.
  [[nodiscard]] const Entry& require(std::string_view key) const;
  [[nodiscard]] const Located& where() const { return where_; }

private:
  const Loader& loader_;
  Located where_;
  std::vector<Entry> entries_;
};

/// Names that must be unique (underlyings, models, instrument ids, portfolio positions), in
/// order, with where each was first given; also resolves references to them.
class NameTable {
public:
  NameTable(const Loader& loader, const char* what) : loader_(loader), what_(what) {}

  /// Adds `name`, refusing a repeat: `duplicate id 'c1' (first at line 12)`.
  int add(const std::string& name, const Located& where);
  /// The index of `name`, refusing an unknown one: `unknown model 'x' (known: a, b)`.
  int resolve(const std::string& name, const Located& where, const char* kind) const;

private:
  const Loader& loader_;
  const char* what_;
  std::vector<std::string> names_; // in order, for the "known: ..." list
  std::vector<SourceMark> marks_;
  // Name -> index: books of thousands of models and instruments must not cost a quadratic scan
  // (measured: 4,096 single-option groups took 76 s to load with linear lookups).
  std::unordered_map<std::string, int> index_;
};

/// How a setting shared with the command line may be written in YAML.
enum class Spelling {
  integer, ///< a plain (unquoted) number
  word,    ///< a string
  any,     ///< either (padding: 4 / auto, max_device_memory: 1073741824 / 4GiB)
};

class Loader {
public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  RunConfig load(const std::string& text) const;

  [[noreturn]] void fail(SourceMark mark, const std::string& path,
                         const std::string& message) const {
    throw ConfigError(file_, mark, path, message);
  }
  [[noreturn]] void fail(const Located& where, const std::string& message) const {
    fail(where.mark, where.path, message);
  }

private:
  [[nodiscard]] YAML::Node root_of(const std::string& text) const;

  Market market(const Located& where) const;
  std::vector<Underlying> underlyings(const Located& where) const;
  TermStructure rates(const Located& where) const;
  std::vector<ModelConfig> models(const Located& where, const Market& market) const;
  TermStructure volatility(const Located& where) const;
  HestonParameters heston(const Mapping& m) const;
  LocalVolSurface surface(const Located& where) const;
  void multi_asset(const Mapping& m, const NameTable& underlying_names, ModelConfig& model) const;
  void basket(const Mapping& m, const ModelConfig& model, InstrumentConfig& inst) const;
  std::vector<InstrumentConfig> instruments(const Located& where, const RunConfig& config) const;
  InstrumentConfig instrument(const Located& where, const RunConfig& config,
                              const NameTable& model_names) const;
  std::vector<Position> portfolio(const Located& where,
                                  const std::vector<InstrumentConfig>& instruments) const;
  SimulationConfig simulation(const Located& where) const;
  EngineConfig engine(const Located& where) const;

  // Readers: each refuses a value of the wrong kind or out of range, at the value.
  [[nodiscard]] Mapping mapping(const Located& where) const;
  [[nodiscard]] std::vector<Located> list(const Located& where) const;
  [[nodiscard]] std::vector<Located> non_empty_list(const Located& where) const;
  [[nodiscard]] std::string name(const Located& where) const;
  [[nodiscard]] double number(const Located& where) const;
  [[nodiscard]] double positive(const Located& where) const;
  [[nodiscard]] double non_negative(const Located& where) const;
  [[nodiscard]] double at_most_one_in_magnitude(const Located& where) const;
  [[nodiscard]] double volatility_value(const Located& where) const; ///< in (0, 5]
  [[nodiscard]] bool boolean(const Located& where) const;
  [[nodiscard]] long long integer(const Located& where, long long lo, long long hi) const;
  template <class Enum, std::size_t N>
  [[nodiscard]] Enum choice(const Located& where, const std::array<Enum, N>& values) const;
  template <class T>
  [[nodiscard]] T setting(const Located& where, detail::Checked<T> (*rule)(std::string_view),
                          Spelling spelling) const;

  /// A strictly increasing, positive list of year fractions (tenors, fixing times).
  std::vector<double> increasing_times(const Located& where, const char* what) const;
  /// A non-empty, strictly increasing list whose values each pass `check`.
  template <class Check>
  std::vector<double> increasing(const Located& where, const char* what, Check check) const;
  /// `count_key: N` (N equally spaced times up to the maturity) or `list_key: [...]`.
  std::vector<double> schedule(const Mapping& m, const char* count_key, const char* list_key,
                               double maturity) const;
  /// `{tenors: [...], values_key: [...]}` with one value per tenor, each checked by `check`.
  template <class Check>
  TermStructure pillars(const Mapping& m, const char* values_key, Check check) const;

  std::string file_;
};

// --- Mapping, NameTable -------------------------------------------------------------------------

Mapping::Mapping(const Loader& loader, const Located& where) : loader_(loader), where_(where) {
  for (auto it = where.node.begin(); it != where.node.end(); ++it) {
    const YAML::Node key(it->first);
    const YAML::Node value(it->second);
    const SourceMark key_mark = to_source_mark(key.Mark());
    if (!key.IsScalar()) {
      loader_.fail(key_mark, where.path, "keys must be strings");
    }
    const std::string& name = key.Scalar();
    if (find(name) != nullptr) {
      loader_.fail(key_mark, where.path, "duplicate key '" + name + "'");
    }
    SourceMark value_mark = to_source_mark(value.Mark());
    if (value.IsNull() && value_mark.line != key_mark.line) {
      value_mark = key_mark; // `key:` with nothing after it: the null's mark is the next token's
    }
    entries_.push_back(Entry{
        name, key_mark, Located{value, child_path(where.path, name), value_mark}, entries_.size()});
  }
}

void Mapping::allow_only(const std::vector<std::string>& keys) const {
  for (const auto& entry : entries_) {
    bool known = false;
    for (const auto& k : keys) {
      known = known || entry.key == k;
    }
    if (!known) {
      loader_.fail(entry.key_mark, where_.path,
                   "unknown key '" + entry.key + "' (expected one of: " + join(keys) + ")");
    }
  }
}

const Entry* Mapping::find(std::string_view key) const {
  for (const auto& entry : entries_) {
    if (entry.key == key) {
      return &entry;
    }
  }
  return nullptr;
}

const Entry& Mapping::require(std::string_view key) const {
  const Entry* entry = find(key);
  if (entry == nullptr) {
    loader_.fail(where_, "missing required key '" + std::string(key) + "'");
  }
  return *entry;
}

int NameTable::add(const std::string& name, const Located& where) {
  const auto [it, inserted] = index_.emplace(name, static_cast<int>(names_.size()));
  if (!inserted) {
    loader_.fail(where, "duplicate " + std::string(what_) + " '" + name + "' (first at line " +
                            std::to_string(marks_[static_cast<std::size_t>(it->second)].line) +
                            ")");
  }
  names_.push_back(name);
  marks_.push_back(where.mark);
  return static_cast<int>(names_.size()) - 1;
}

int NameTable::resolve(const std::string& name, const Located& where, const char* kind) const {
  if (const auto it = index_.find(name); it != index_.end())
    return it->second;
  loader_.fail(where,
               "unknown " + std::string(kind) + " '" + name + "' (known: " + join(names_) + ")");
}

// --- readers ------------------------------------------------------------------------------------

Mapping Loader::mapping(const Located& where) const {
  if (!where.node.IsMap()) {
    fail(where, "must be a mapping");
  }
  return Mapping(*this, where);
}

std::vector<Located> Loader::list(const Located& where) const {
  if (!where.node.IsSequence()) {
    fail(where, "must be a list");
  }
  std::vector<Located> items;
  std::size_t i = 0;
  for (auto it = where.node.begin(); it != where.node.end(); ++it, ++i) {
    const YAML::Node item(*it);
    items.push_back(
        Located{item, where.path + "[" + std::to_string(i) + "]", to_source_mark(item.Mark())});
  }
  return items;
}

std::vector<Located> Loader::non_empty_list(const Located& where) const {
  auto items = list(where);
  if (items.empty()) {
    fail(where, "must not be empty");
  }
  return items;
}

std::string Loader::name(const Located& where) const {
  if (!where.node.IsScalar()) {
    fail(where, "must be a string");
  }
  if (where.node.Scalar().empty()) {
    fail(where, "must not be empty");
  }
  return where.node.Scalar();
}

double Loader::number(const Located& where) const {
  // A quoted scalar ("100") has the non-specific tag "!": it is a string, not a number.
  if (!where.node.IsScalar() || where.node.Tag() == "!") {
    fail(where, "must be a number");
  }
  const auto value = detail::parse_real(where.node.Scalar());
  if (!value) {
    fail(where, "must be a number");
  }
  if (!std::isfinite(*value)) {
    fail(where, "must be finite");
  }
  return *value;
}

double Loader::positive(const Located& where) const {
  const double value = number(where);
  if (!(value > 0.0)) {
    fail(where, "must be > 0");
  }
  return value;
}

double Loader::non_negative(const Located& where) const {
  const double value = number(where);
  if (!(value >= 0.0)) {
    fail(where, "must be >= 0");
  }
  return value;
}

double Loader::at_most_one_in_magnitude(const Located& where) const {
  const double value = number(where);
  if (!(std::fabs(value) <= 1.0)) {
    fail(where, "must be between -1 and 1");
  }
  return value;
}

double Loader::volatility_value(const Located& where) const {
  const double value = positive(where);
  if (value > 5.0) {
    fail(where, "must be <= 5");
  }
  return value;
}

/// A YAML 1.2 core schema boolean, unquoted; nullopt for anything else (`yes` and `on` are strings
/// there, and a quoted "true" is a string everywhere).
std::optional<bool> boolean_of(const YAML::Node& node) {
  if (node.IsScalar() && node.Tag() != "!") {
    const std::string& text = node.Scalar();
    if (text == "true" || text == "True" || text == "TRUE") {
      return true;
    }
    if (text == "false" || text == "False" || text == "FALSE") {
      return false;
    }
  }
  return std::nullopt;
}

bool Loader::boolean(const Located& where) const {
  const auto value = boolean_of(where.node);
  if (!value) {
    fail(where, "must be true or false");
  }
  return *value;
}

long long Loader::integer(const Located& where, long long lo, long long hi) const {
  if (!where.node.IsScalar() || where.node.Tag() == "!") {
    fail(where, "must be an integer");
  }
  const auto checked = detail::check_integer(where.node.Scalar(), lo, hi);
  if (!checked.value) {
    fail(where, checked.error);
  }
  return *checked.value;
}

template <class Enum, std::size_t N>
Enum Loader::choice(const Located& where, const std::array<Enum, N>& values) const {
  if (where.node.IsScalar()) {
    for (Enum v : values) {
      if (where.node.Scalar() == to_string(v)) {
        return v;
      }
    }
  }
  std::vector<std::string> spellings;
  for (Enum v : values) {
    spellings.emplace_back(to_string(v));
  }
  fail(where, "must be one of: " + join(spellings));
}

template <class T>
T Loader::setting(const Located& where, detail::Checked<T> (*rule)(std::string_view),
                  Spelling spelling) const {
  const YAML::Node& node = where.node;
  if (spelling == Spelling::integer && (!node.IsScalar() || node.Tag() == "!")) {
    fail(where, "must be an integer");
  }
  if (spelling == Spelling::word && !node.IsScalar()) {
    fail(where, "must be a string");
  }
  // Spelling::any: a list or mapping is judged as an empty text, which every rule refuses
  // with its own "must be ..." message.
  auto checked = rule(node.IsScalar() ? node.Scalar() : std::string());
  if (!checked.value) {
    fail(where, checked.error);
  }
  return std::move(*checked.value);
}

std::vector<double> Loader::increasing_times(const Located& where, const char* what) const {
  return increasing(where, what, [this](const Located& item) { return positive(item); });
}

template <class Check>
std::vector<double> Loader::increasing(const Located& where, const char* what, Check check) const {
  std::vector<double> values;
  for (const auto& item : non_empty_list(where)) {
    const double v = check(item);
    if (!values.empty() && !(v > values.back())) {
      fail(item,
           "must be > the previous " + std::string(what) + " " + format_number(values.back()));
    }
    values.push_back(v);
  }
  return values;
}

std::vector<double> Loader::schedule(const Mapping& m, const char* count_key, const char* list_key,
                                     double maturity) const {
  const Entry* count = m.find(count_key);
  const Entry* list = m.find(list_key);
  if (count != nullptr && list != nullptr) {
    const Entry& later = count->order > list->order ? *count : *list;
    fail(later.key_mark, m.where().path,
         "give either " + std::string(count_key) + " or " + list_key + ", not both");
  }
  if (count == nullptr && list == nullptr) {
    fail(m.where(),
         "missing required key '" + std::string(count_key) + "' (or '" + list_key + "')");
  }
  if (count != nullptr) {
    const auto n = static_cast<int>(integer(count->value, 1, 100'000));
    std::vector<double> times(n);
    for (int i = 1; i <= n; ++i) {
      // The last time is the maturity itself, not T*n/n rounded: it must land on the grid's end.
      times[i - 1] = i == n ? maturity : maturity * i / n;
    }
    return times;
  }
  std::vector<double> times = increasing_times(list->value, "time");
  const auto items = this->list(list->value);
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i] > maturity) {
      fail(items[i], "must be <= the maturity " + format_number(maturity));
    }
  }
  return times;
}

template <class Check>
TermStructure Loader::pillars(const Mapping& m, const char* values_key, Check check) const {
  TermStructure curve;
  curve.tenors = increasing_times(m.require("tenors").value, "tenor");
  const Located& values = m.require(values_key).value;
  const auto items = list(values);
  if (items.size() != curve.tenors.size()) {
    fail(values, "must have " + std::to_string(curve.tenors.size()) +
                     " values, one per tenor (got " + std::to_string(items.size()) + ")");
  }
  for (const auto& item : items) {
    curve.values.push_back(check(item));
  }
  return curve;
}

// --- sections -----------------------------------------------------------------------------------

YAML::Node Loader::root_of(const std::string& text) const {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    fail(to_source_mark(e.mark), "", "syntax error: " + e.msg);
  }
  // An empty file, or one with only comments, has no document; `---` alone or `~` has a null
  // one. Either way there is nothing to point at but the start.
  if (documents.empty() || documents[0].IsNull()) {
    fail(SourceMark{1, 1}, "", "file is empty");
  }
  if (documents.size() > 1) {
    fail(to_source_mark(documents[1].Mark()), "",
         "only one YAML document is allowed (found a second one)");
  }
  return documents[0];
}

RunConfig Loader::load(const std::string& text) const {
  try {
    const YAML::Node root = root_of(text);
    const Located top_where{root, "", to_source_mark(root.Mark())};
    if (!root.IsMap()) {
      fail(top_where, "top level must be a mapping");
    }
    const Mapping top(*this, top_where);
    top.allow_only({"market", "models", "instruments", "portfolio", "simulation", "engine"});

    RunConfig config;
    config.file = file_;
    config.market = market(top.require("market").value);
    config.models = models(top.require("models").value, config.market);
    config.instruments = instruments(top.require("instruments").value, config);
    // Optional sections may be present but empty (`engine:` with everything commented out).
    if (const Entry* e = top.find("portfolio"); e != nullptr && !e->value.node.IsNull()) {
      config.portfolio = portfolio(e->value, config.instruments);
    }
    if (const Entry* e = top.find("simulation"); e != nullptr && !e->value.node.IsNull()) {
      config.simulation = simulation(e->value);
    }
    if (const Entry* e = top.find("engine"); e != nullptr && !e->value.node.IsNull()) {
      config.engine = engine(e->value);
    }
    return config;
  } catch (const YAML::Exception& e) {
    // Not expected once the text has parsed; kept so that nothing but ConfigError escapes.
    fail(to_source_mark(e.mark), "", "cannot read YAML: " + e.msg);
  }
}

Market Loader::market(const Located& where) const {
  const Mapping m = mapping(where);
  m.allow_only({"underlyings", "rates"});
  Market market;
  market.underlyings = underlyings(m.require("underlyings").value);
  market.zero_rates = rates(m.require("rates").value);
  return market;
}

std::vector<Underlying> Loader::underlyings(const Located& where) const {
  std::vector<Underlying> result;
  NameTable names(*this, "name");
  for (const auto& item : non_empty_list(where)) {
    const Mapping m = mapping(item);
    m.allow_only({"name", "spot", "dividend_yield"});
    Underlying u;
    u.mark = item.mark;
    const Located& name_at = m.require("name").value;
    u.name = name(name_at);
    names.add(u.name, name_at);
    u.spot = positive(m.require("spot").value);
    if (const Entry* q = m.find("dividend_yield")) {
      u.dividend_yield = at_most_one_in_magnitude(q->value);
    }
    result.push_back(std::move(u));
  }
  return result;
}

TermStructure Loader::rates(const Located& where) const {
  const Mapping m = mapping(where);
  m.allow_only({"zero_rate", "tenors", "zero_rates"});
  const Entry* flat = m.find("zero_rate");
  for (const char* key : {"tenors", "zero_rates"}) {
    const Entry* curve_key = m.find(key);
    if (flat != nullptr && curve_key != nullptr) {
      const Entry& later = flat->order > curve_key->order ? *flat : *curve_key;
      fail(later.key_mark, where.path, "give either zero_rate or tenors with zero_rates, not both");
    }
  }
  if (flat != nullptr) {
    TermStructure curve;
    curve.values.push_back(at_most_one_in_magnitude(flat->value));
    return curve;
  }
  if (m.find("tenors") == nullptr && m.find("zero_rates") == nullptr) {
    fail(where, "missing required key 'zero_rate' (or 'tenors' and 'zero_rates')");
  }
  return pillars(m, "zero_rates",
                 [this](const Located& item) { return at_most_one_in_magnitude(item); });
}

std::vector<ModelConfig> Loader::models(const Located& where, const Market& market) const {
  NameTable underlying_names(*this, "name");
  for (const auto& u : market.underlyings) {
    underlying_names.add(u.name, Located{YAML::Node(), "", u.mark});
  }
  std::vector<ModelConfig> result;
  NameTable names(*this, "name");
  for (const auto& item : non_empty_list(where)) {
    const Mapping m = mapping(item);
    // The valid keys depend on the type; while it is missing, judge keys against all types.
    if (m.find("type") == nullptr) {
      m.allow_only(model_keys(std::nullopt));
    }
    ModelConfig model;
    model.mark = item.mark;
    model.type = choice(m.require("type").value, model_types);
    m.allow_only(model_keys(model.type));
    const Located& name_at = m.require("name").value;
    model.name = name(name_at);
    names.add(model.name, name_at);
    if (model.type != ModelType::multi_black_scholes) {
      const Located& underlying_at = m.require("underlying").value;
      model.underlying = name(underlying_at);
      model.underlying_index =
          underlying_names.resolve(model.underlying, underlying_at, "underlying");
    }
    switch (model.type) {
    case ModelType::black_scholes:
      model.volatility = volatility(m.require("volatility").value);
      break;
    case ModelType::heston:
      model.heston = heston(m);
      break;
    case ModelType::local_vol:
      model.surface = surface(m.require("surface").value);
      break;
    case ModelType::multi_black_scholes:
      multi_asset(m, underlying_names, model);
      break;
    }
    result.push_back(std::move(model));
  }
  return result;
}

HestonParameters Loader::heston(const Mapping& m) const {
  HestonParameters h;
  h.v0 = non_negative(m.require("v0").value);
  h.kappa = positive(m.require("kappa").value);
  h.theta = positive(m.require("theta").value);
  h.xi = positive(m.require("xi").value);
  h.rho = at_most_one_in_magnitude(m.require("rho").value);
  if (const Entry* scheme = m.find("scheme")) {
    h.scheme = choice(scheme->value, heston_schemes);
  }
  return h;
}

LocalVolSurface Loader::surface(const Located& where) const {
  const Mapping m = mapping(where);
  m.allow_only({"times", "log_moneyness", "vols"});
  LocalVolSurface s;
  s.times = increasing(m.require("times").value, "time",
                       [this](const Located& item) { return non_negative(item); });
  const Located& moneyness_at = m.require("log_moneyness").value;
  s.log_moneyness = increasing(moneyness_at, "log_moneyness",
                               [this](const Located& item) { return number(item); });
  if (s.log_moneyness.size() > static_cast<std::size_t>(kMaxSurfaceKnots)) {
    fail(moneyness_at, "must have at most " + std::to_string(kMaxSurfaceKnots) + " values (got " +
                           std::to_string(s.log_moneyness.size()) + ")");
  }
  const Located& vols_at = m.require("vols").value;
  const auto rows = list(vols_at);
  if (rows.size() != s.times.size()) {
    fail(vols_at, "has " + count_of(rows.size(), "row") + "; times has " +
                      count_of(s.times.size(), "value") + " (one row per time)");
  }
  for (const auto& row : rows) {
    const auto items = list(row);
    if (items.size() != s.log_moneyness.size()) {
      fail(row, "has " + count_of(items.size(), "value") + "; log_moneyness has " +
                    std::to_string(s.log_moneyness.size()));
    }
    std::vector<double> vols;
    for (const auto& item : items) {
      vols.push_back(volatility_value(item));
    }
    s.vols.push_back(std::move(vols));
  }
  return s;
}

void Loader::multi_asset(const Mapping& m, const NameTable& underlying_names,
                         ModelConfig& model) const {
  const Located& underlyings_at = m.require("underlyings").value;
  const auto names = list(underlyings_at);
  if (names.size() < 2 || names.size() > static_cast<std::size_t>(kMaxBasketAssets)) {
    fail(underlyings_at, "must have 2 to " + std::to_string(kMaxBasketAssets) +
                             " underlyings (got " + std::to_string(names.size()) + ")");
  }
  NameTable seen(*this, "underlying");
  for (const auto& item : names) {
    model.underlyings.push_back(name(item));
    model.underlying_indices.push_back(
        underlying_names.resolve(model.underlyings.back(), item, "underlying"));
    seen.add(model.underlyings.back(), item);
  }
  const std::size_t n = names.size();
  const std::string per_underlying = " values, one per underlying (got ";

  const Located& vols_at = m.require("volatilities").value;
  const auto vols = list(vols_at);
  if (vols.size() != n) {
    fail(vols_at,
         "must have " + std::to_string(n) + per_underlying + std::to_string(vols.size()) + ")");
  }
  for (const auto& item : vols) {
    model.volatilities.push_back(volatility_value(item));
  }

  const Located& correlation_at = m.require("correlation").value;
  const auto rows = list(correlation_at);
  if (rows.size() != n) {
    fail(correlation_at, "must have " + std::to_string(n) + " rows, one per underlying (got " +
                             std::to_string(rows.size()) + ")");
  }
  auto& c = model.correlation;
  for (std::size_t i = 0; i < n; ++i) {
    const auto items = list(rows[i]);
    if (items.size() != n) {
      fail(rows[i],
           "must have " + std::to_string(n) + per_underlying + std::to_string(items.size()) + ")");
    }
    c.emplace_back();
    for (std::size_t j = 0; j < n; ++j) {
      const double value = i == j ? number(items[j]) : at_most_one_in_magnitude(items[j]);
      if (i == j && value != 1.0) {
        fail(items[j], "must be 1 (the diagonal of a correlation matrix)");
      }
      if (j < i && !(std::fabs(value - c[j][i]) <= 1e-12)) {
        fail(items[j], "must equal correlation[" + std::to_string(j) + "][" + std::to_string(i) +
                           "] = " + format_number(c[j][i]) + " (the matrix must be symmetric)");
      }
      c[i].push_back(value);
    }
  }

  // Cholesky-Banachiewicz from the lower triangle: L L^T = C exactly when every pivot is > 0.
  auto& l = model.cholesky;
  l.assign(n, std::vector<double>(n, 0.0));
  for (std::size_t j = 0; j < n; ++j) {
    double pivot = c[j][j];
    for (std::size_t k = 0; k < j; ++k) {
      pivot -= l[j][k] * l[j][k];
    }
    if (!(pivot > 0.0)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", pivot);
      fail(correlation_at, "is not positive definite (Cholesky pivot " + std::to_string(j + 1) +
                               " is " + text + ")");
    }
    l[j][j] = std::sqrt(pivot);
    for (std::size_t i = j + 1; i < n; ++i) {
      double sum = c[i][j];
      for (std::size_t k = 0; k < j; ++k) {
        sum -= l[i][k] * l[j][k];
      }
      l[i][j] = sum / l[j][j];
    }
  }
}

TermStructure Loader::volatility(const Located& where) const {
  const auto vol = [this](const Located& item) { return volatility_value(item); };
  if (where.node.IsScalar()) {
    TermStructure flat;
    flat.values.push_back(vol(where));
    return flat;
  }
  if (!where.node.IsMap()) {
    fail(where, "must be a number or a mapping {tenors: [...], vols: [...]}");
  }
  const Mapping m = mapping(where);
  m.allow_only({"tenors", "vols"});
  TermStructure curve = pillars(m, "vols", vol);
  // Total variance v^2 t must not fall between pillars: the forward variance between them would
  // be negative and the per-step diffusion imaginary. Equal total variance (zero forward
  // variance) is allowed, with a relative tolerance for vols typed to a few digits.
  for (std::size_t i = 1; i < curve.tenors.size(); ++i) {
    const double before = curve.values[i - 1] * curve.values[i - 1] * curve.tenors[i - 1];
    const double after = curve.values[i] * curve.values[i] * curve.tenors[i];
    if (after < before * (1.0 - 1e-12)) {
      fail(list(m.require("vols").value)[i],
           "total variance decreases between tenors " + format_number(curve.tenors[i - 1]) +
               " and " + format_number(curve.tenors[i]) + " (negative forward variance)");
    }
  }
  return curve;
}

std::vector<InstrumentConfig> Loader::instruments(const Located& where,
                                                  const RunConfig& config) const {
  std::vector<InstrumentConfig> result;
  NameTable ids(*this, "id");
  NameTable model_names(*this, "name");
  for (const auto& model : config.models) {
    model_names.add(model.name, Located{YAML::Node(), "", model.mark});
  }
  for (const auto& item : non_empty_list(where)) {
    InstrumentConfig instrument = this->instrument(item, config, model_names);
    const Located id_at = mapping(item).require("id").value;
    ids.add(instrument.id, id_at);
    result.push_back(std::move(instrument));
  }
  return result;
}

InstrumentConfig Loader::instrument(const Located& where, const RunConfig& config,
                                    const NameTable& model_names) const {
  const Mapping m = mapping(where);
  InstrumentConfig inst;
  inst.mark = where.mark;
  // The valid keys depend on the type; while it is missing, judge keys against all types so that
  // a misspelt `tpye` is reported as such.
  if (m.find("type") == nullptr) {
    m.allow_only(instrument_keys(std::nullopt));
  }
  inst.type = choice(m.require("type").value, instrument_types);
  m.allow_only(instrument_keys(inst.type));

  inst.id = name(m.require("id").value);
  inst.option = choice(m.require("option").value, option_types);
  inst.strike = positive(m.require("strike").value);
  const Located& maturity_at = m.require("maturity").value;
  inst.maturity = positive(maturity_at);
  if (inst.maturity > 100.0) {
    fail(maturity_at, "must be <= 100");
  }
  const Located& model_at = m.require("model").value;
  inst.model = name(model_at);
  inst.model_index = model_names.resolve(inst.model, model_at, "model");
  const ModelConfig& model = config.models[inst.model_index];
  const bool multi_asset = model.type == ModelType::multi_black_scholes;
  if (inst.type == InstrumentType::basket && !multi_asset) {
    fail(model_at, "'" + inst.model + "' is a " + to_string(model.type) +
                       " model; basket instruments need a multi_black_scholes model");
  }
  if (inst.type != InstrumentType::basket && multi_asset) {
    fail(model_at, "'" + inst.model +
                       "' is a multi_black_scholes model; only basket instruments price on it");
  }

  switch (inst.type) {
  case InstrumentType::european:
    break;
  case InstrumentType::digital:
    if (const Entry* cash = m.find("cash")) {
      inst.cash = positive(cash->value);
    }
    break;
  case InstrumentType::asian:
    inst.average = choice(m.require("average").value, average_types);
    inst.fixing_times = schedule(m, "fixings", "fixing_times", inst.maturity);
    break;
  case InstrumentType::barrier: {
    const Located& barrier_at = m.require("barrier").value;
    inst.barrier = positive(barrier_at);
    inst.barrier_type = choice(m.require("barrier_type").value, barrier_types);
    if (const Entry* rebate = m.find("rebate")) {
      inst.rebate = non_negative(rebate->value);
    }
    inst.monitoring_times = schedule(m, "monitoring", "monitoring_times", inst.maturity);
    // A barrier already crossed at the start is a different product (knocked at inception).
    const Underlying& underlying = config.market.underlyings[model.underlying_index];
    const bool down = inst.barrier_type == BarrierType::down_and_in ||
                      inst.barrier_type == BarrierType::down_and_out;
    if (down && !(inst.barrier < underlying.spot)) {
      fail(barrier_at, "down barrier " + format_number(inst.barrier) + " must be below the spot " +
                           format_number(underlying.spot) + " of " + underlying.name);
    }
    if (!down && !(inst.barrier > underlying.spot)) {
      fail(barrier_at, "up barrier " + format_number(inst.barrier) + " must be above the spot " +
                           format_number(underlying.spot) + " of " + underlying.name);
    }
    break;
  }
  case InstrumentType::basket:
    basket(m, model, inst);
    break;
  }
  return inst;
}

void Loader::basket(const Mapping& m, const ModelConfig& model, InstrumentConfig& inst) const {
  inst.basket = choice(m.require("payoff").value, basket_payoffs);
  const bool weighted = inst.basket == BasketPayoff::weighted;
  const auto n = static_cast<std::size_t>(model.assets());
  const Entry* weights = m.find("weights");
  if (weights == nullptr) {
    inst.weights.assign(n, weighted ? 1.0 / static_cast<double>(n) : 1.0);
    return;
  }
  const auto items = list(weights->value);
  if (items.size() != n) {
    fail(weights->value, "must have " + std::to_string(n) + " values, one per underlying of '" +
                             model.name + "' (got " + std::to_string(items.size()) + ")");
  }
  bool any_non_zero = false;
  for (const auto& item : items) {
    // A short leg makes sense in a weighted sum (a spread); in a max or min it would make the
    // best of the assets the one that fell the most.
    inst.weights.push_back(weighted ? number(item) : positive(item));
    any_non_zero = any_non_zero || inst.weights.back() != 0.0;
  }
  if (!any_non_zero) {
    fail(weights->value, "must not all be 0");
  }
}

std::vector<Position> Loader::portfolio(const Located& where,
                                        const std::vector<InstrumentConfig>& instruments) const {
  NameTable ids(*this, "id");
  for (const auto& inst : instruments) {
    ids.add(inst.id, Located{YAML::Node(), "", inst.mark});
  }
  std::vector<Position> result;
  NameTable held(*this, "instrument");
  for (const auto& item : list(where)) {
    const Mapping m = mapping(item);
    m.allow_only({"instrument", "quantity"});
    Position position;
    position.mark = item.mark;
    const Located& instrument_at = m.require("instrument").value;
    position.instrument = name(instrument_at);
    position.instrument_index = ids.resolve(position.instrument, instrument_at, "instrument");
    held.add(position.instrument, instrument_at);
    const Located& quantity_at = m.require("quantity").value;
    position.quantity = number(quantity_at);
    if (position.quantity == 0.0) {
      fail(quantity_at, "must not be 0");
    }
    result.push_back(std::move(position));
  }
  return result;
}

SimulationConfig Loader::simulation(const Located& where) const {
  const Mapping m = mapping(where);
  m.allow_only({"paths", "steps_per_year", "seed", "rng", "precision", "antithetic",
                "control_variate", "brownian_bridge", "replicates", "greeks"});
  SimulationConfig sim;
  if (const Entry* e = m.find("paths")) {
    sim.paths = setting(e->value, detail::check_paths, Spelling::integer);
  }
  if (const Entry* e = m.find("steps_per_year")) {
    sim.steps_per_year = setting(e->value, detail::check_steps_per_year, Spelling::integer);
    sim.steps_per_year_mark = e->value.mark;
  }
  if (const Entry* e = m.find("seed")) {
    sim.seed = setting(e->value, detail::check_seed, Spelling::integer);
  }
  if (const Entry* e = m.find("rng")) {
    sim.rng = setting(e->value, detail::check_rng, Spelling::word);
  }
  if (const Entry* e = m.find("precision")) {
    sim.precision = setting(e->value, detail::check_precision, Spelling::word);
  }
  if (const Entry* e = m.find("antithetic")) {
    sim.antithetic = boolean(e->value);
  }
  if (const Entry* e = m.find("control_variate")) {
    sim.control_variate = boolean(e->value);
  }
  if (const Entry* e = m.find("brownian_bridge")) {
    const YAML::Node& node = e->value.node;
    if (const auto on = boolean_of(node)) {
      sim.brownian_bridge = *on ? 1 : 0;
    } else if (node.IsScalar() && node.Tag() != "!" && node.Scalar() == "auto") {
      sim.brownian_bridge = -1;
    } else {
      fail(e->value, "must be true, false or auto");
    }
  }
  if (const Entry* e = m.find("replicates")) {
    sim.replicates = setting(e->value, detail::check_replicates, Spelling::integer);
  }
  if (const Entry* e = m.find("greeks")) {
    std::array<bool, kGreekCount> wanted{};
    for (const auto& item : list(e->value)) {
      const Greek greek = choice(item, greek_names);
      if (wanted[static_cast<std::size_t>(greek)]) {
        fail(item, "duplicate greek '" + std::string(to_string(greek)) + "'");
      }
      wanted[static_cast<std::size_t>(greek)] = true;
    }
    for (Greek greek : greek_names) {
      if (wanted[static_cast<std::size_t>(greek)]) {
        sim.greeks.push_back(greek);
      }
    }
  }
  if (const auto conflict = detail::check_simulation(sim)) {
    // Blame the first key of the rule written in the file (the others took their defaults).
    for (std::size_t k = 0; k < conflict->keys.size(); ++k) {
      if (const Entry* e = m.find(conflict->keys[k])) {
        fail(e->value,
             conflict->message +
                 (k > 0 && !conflict->note.empty() ? " (" + conflict->note + ")" : std::string()));
      }
    }
    fail(where, conflict->message);
  }
  return sim;
}

EngineConfig Loader::engine(const Located& where) const {
  const Mapping m = mapping(where);
  m.allow_only({"device", "backend", "prefetch_distance", "padding", "block_size",
                "max_device_memory", "cpu_threads", "draw_batch_size"});
  EngineConfig engine;
  if (const Entry* e = m.find("device")) {
    engine.device = setting(e->value, detail::check_device, Spelling::word);
  }
  if (const Entry* e = m.find("backend")) {
    engine.backend = setting(e->value, detail::check_backend, Spelling::word);
    engine.backend_mark = e->value.mark;
  }
  if (const Entry* e = m.find("prefetch_distance")) {
    engine.prefetch_distance =
        setting(e->value, detail::check_prefetch_distance, Spelling::integer);
  }
  if (const Entry* e = m.find("padding")) {
    engine.padding = setting(e->value, detail::check_padding, Spelling::any);
  }
  if (const Entry* e = m.find("block_size")) {
    engine.block_size = setting(e->value, detail::check_block_size, Spelling::integer);
  }
  if (const Entry* e = m.find("max_device_memory")) {
    engine.max_device_memory = setting(e->value, detail::check_max_device_memory, Spelling::any);
  }
  if (const Entry* e = m.find("cpu_threads")) {
    engine.cpu_threads = setting(e->value, detail::check_cpu_threads, Spelling::integer);
  }
  if (const Entry* e = m.find("draw_batch_size")) {
    engine.draw_batch_size = setting(e->value, detail::check_draw_batch_size, Spelling::any);
  }
  return engine;
}

} // namespace

RunConfig parse_run_config(const std::string& yaml_text, const std::string& file_name) {
  return Loader(file_name).load(yaml_text);
}

RunConfig load_run_config(const std::string& path) {
  std::FILE* stream = std::fopen(path.c_str(), "rb");
  if (stream == nullptr) {
    throw ConfigError(path, SourceMark{}, "",
                      std::string("cannot open file: ") + std::strerror(errno));
  }
  std::string text;
  char buffer[65536];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, stream)) > 0) {
    text.append(buffer, got);
  }
  // A directory opens fine on Linux and fails on the first read (EISDIR).
  const bool failed = std::ferror(stream) != 0;
  const int read_errno = errno;
  std::fclose(stream);
  if (failed) {
    throw ConfigError(path, SourceMark{}, "",
                      std::string("cannot read file: ") + std::strerror(read_errno));
  }
  return parse_run_config(text, path);
}

} // namespace pfmc::config
