// The `instruments` and `portfolio` sections.

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "config/schema.hpp"

namespace pfmc::config::schema {

using yaml::Entry;
using yaml::Located;
using yaml::Mapping;
using yaml::NameTable;
using yaml::Reader;

namespace {

constexpr std::array<InstrumentType, 5> instrument_types = {
    InstrumentType::european, InstrumentType::digital, InstrumentType::asian,
    InstrumentType::barrier, InstrumentType::basket};
constexpr std::array<OptionType, 2> option_types = {OptionType::call, OptionType::put};
constexpr std::array<AverageType, 2> average_types = {AverageType::arithmetic,
                                                      AverageType::geometric};
constexpr std::array<BarrierType, 4> barrier_types = {
    BarrierType::up_and_in, BarrierType::up_and_out, BarrierType::down_and_in,
    BarrierType::down_and_out};
constexpr std::array<BasketPayoff, 3> basket_payoffs = {BasketPayoff::weighted, BasketPayoff::max,
                                                        BasketPayoff::min};

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

/// `count_key: N` (N equally spaced times up to the maturity) or `list_key: [...]`.
std::vector<double> schedule(const Reader& reader, const Mapping& m, const char* count_key,
                             const char* list_key, double maturity) {
  const Entry* count = m.find(count_key);
  const Entry* list = m.find(list_key);
  m.refuse_both(count, list,
                "give either " + std::string(count_key) + " or " + list_key + ", not both");
  if (count == nullptr && list == nullptr) {
    reader.fail(m.where(),
                "missing required key '" + std::string(count_key) + "' (or '" + list_key + "')");
  }
  if (count != nullptr) {
    const auto n = static_cast<int>(reader.integer(count->value, 1, 100'000));
    std::vector<double> times(n);
    for (int i = 1; i <= n; ++i) {
      // The last time is the maturity itself, not T*n/n rounded: it must land on the grid's end.
      times[i - 1] = i == n ? maturity : maturity * i / n;
    }
    return times;
  }
  std::vector<double> times = reader.increasing_times(list->value, "time");
  const auto items = reader.list(list->value);
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i] > maturity) {
      reader.fail(items[i], "must be <= the maturity " + yaml::format_number(maturity));
    }
  }
  return times;
}

/// The keys of a barrier; the level must be on the far side of the spot from its direction (a
/// barrier already crossed at the start is a different product: knocked at inception).
void barrier(const Reader& reader, const Mapping& m, const Underlying& underlying,
             InstrumentConfig& inst) {
  const Located& barrier_at = m.require("barrier").value;
  inst.barrier = reader.positive(barrier_at);
  inst.barrier_type = reader.choice(m.require("barrier_type").value, barrier_types);
  if (const Entry* rebate = m.find("rebate")) {
    inst.rebate = reader.non_negative(rebate->value);
  }
  inst.monitoring_times = schedule(reader, m, "monitoring", "monitoring_times", inst.maturity);
  const bool down = inst.barrier_type == BarrierType::down_and_in ||
                    inst.barrier_type == BarrierType::down_and_out;
  if (down && !(inst.barrier < underlying.spot)) {
    reader.fail(barrier_at, "down barrier " + yaml::format_number(inst.barrier) +
                                " must be below the spot " + yaml::format_number(underlying.spot) +
                                " of " + underlying.name);
  }
  if (!down && !(inst.barrier > underlying.spot)) {
    reader.fail(barrier_at, "up barrier " + yaml::format_number(inst.barrier) +
                                " must be above the spot " + yaml::format_number(underlying.spot) +
                                " of " + underlying.name);
  }
}

void basket(const Reader& reader, const Mapping& m, const ModelConfig& model,
            InstrumentConfig& inst) {
  inst.basket = reader.choice(m.require("payoff").value, basket_payoffs);
  const bool weighted = inst.basket == BasketPayoff::weighted;
  const auto n = static_cast<std::size_t>(model.assets());
  const Entry* weights = m.find("weights");
  if (weights == nullptr) {
    inst.weights.assign(n, weighted ? 1.0 / static_cast<double>(n) : 1.0);
    return;
  }
  bool any_non_zero = false;
  for (const auto& item :
       reader.sized_list(weights->value, n, "values, one per underlying of '" + model.name + "'")) {
    // A short leg makes sense in a weighted sum (a spread); in a max or min it would make the
    // best of the assets the one that fell the most.
    inst.weights.push_back(weighted ? reader.number(item) : reader.positive(item));
    any_non_zero = any_non_zero || inst.weights.back() != 0.0;
  }
  if (!any_non_zero) {
    reader.fail(weights->value, "must not all be 0");
  }
}

/// The model an instrument prices on: a multi_black_scholes model for a basket, and only then.
int model_of(const Reader& reader, const Located& model_at, const RunConfig& config,
             const NameTable& model_names, InstrumentConfig& inst) {
  inst.model = reader.name(model_at);
  const int index = model_names.resolve(inst.model, model_at, "model");
  const ModelConfig& model = config.models[index];
  const bool multi_asset = model.type == ModelType::multi_black_scholes;
  if (inst.type == InstrumentType::basket && !multi_asset) {
    reader.fail(model_at, "'" + inst.model + "' is a " + to_string(model.type) +
                              " model; basket instruments need a multi_black_scholes model");
  }
  if (inst.type != InstrumentType::basket && multi_asset) {
    reader.fail(model_at, "'" + inst.model +
                              "' is a multi_black_scholes model; only basket instruments price on "
                              "it");
  }
  return index;
}

InstrumentConfig instrument(const Reader& reader, const Located& where, const RunConfig& config,
                            const NameTable& model_names) {
  const Mapping m = reader.mapping(where);
  InstrumentConfig inst;
  inst.mark = where.mark;
  // The valid keys depend on the type; while it is missing, judge keys against all types so that
  // a misspelt `tpye` is reported as such.
  if (m.find("type") == nullptr) {
    m.allow_only(instrument_keys(std::nullopt));
  }
  inst.type = reader.choice(m.require("type").value, instrument_types);
  m.allow_only(instrument_keys(inst.type));

  inst.id = reader.name(m.require("id").value);
  inst.option = reader.choice(m.require("option").value, option_types);
  inst.strike = reader.positive(m.require("strike").value);
  const Located& maturity_at = m.require("maturity").value;
  inst.maturity = reader.positive(maturity_at);
  if (inst.maturity > 100.0) {
    reader.fail(maturity_at, "must be <= 100");
  }
  inst.model_index = model_of(reader, m.require("model").value, config, model_names, inst);
  const ModelConfig& model = config.models[inst.model_index];

  switch (inst.type) {
  case InstrumentType::european:
    break;
  case InstrumentType::digital:
    if (const Entry* cash = m.find("cash")) {
      inst.cash = reader.positive(cash->value);
    }
    break;
  case InstrumentType::asian:
    inst.average = reader.choice(m.require("average").value, average_types);
    inst.fixing_times = schedule(reader, m, "fixings", "fixing_times", inst.maturity);
    break;
  case InstrumentType::barrier:
    barrier(reader, m, config.market.underlyings[model.underlying_index], inst);
    break;
  case InstrumentType::basket:
    basket(reader, m, model, inst);
    break;
  }
  return inst;
}

} // namespace

std::vector<InstrumentConfig> instruments(const Reader& reader, const Located& where,
                                          const RunConfig& config) {
  std::vector<InstrumentConfig> result;
  NameTable ids(reader, "id");
  NameTable model_names(reader, "name");
  for (const auto& model : config.models) {
    model_names.add_known(model.name, model.mark);
  }
  for (const auto& item : reader.non_empty_list(where)) {
    InstrumentConfig instrument = schema::instrument(reader, item, config, model_names);
    ids.add(instrument.id, reader.mapping(item).require("id").value);
    result.push_back(std::move(instrument));
  }
  return result;
}

std::vector<Position> portfolio(const Reader& reader, const Located& where,
                                const std::vector<InstrumentConfig>& instruments) {
  NameTable ids(reader, "id");
  for (const auto& inst : instruments) {
    ids.add_known(inst.id, inst.mark);
  }
  std::vector<Position> result;
  NameTable held(reader, "instrument");
  for (const auto& item : reader.list(where)) {
    const Mapping m = reader.mapping(item);
    m.allow_only({"instrument", "quantity"});
    Position position;
    position.mark = item.mark;
    const Located& instrument_at = m.require("instrument").value;
    position.instrument = reader.name(instrument_at);
    position.instrument_index = ids.resolve(position.instrument, instrument_at, "instrument");
    held.add(position.instrument, instrument_at);
    const Located& quantity_at = m.require("quantity").value;
    position.quantity = reader.number(quantity_at);
    if (position.quantity == 0.0) {
      reader.fail(quantity_at, "must not be 0");
    }
    result.push_back(std::move(position));
  }
  return result;
}

} // namespace pfmc::config::schema
