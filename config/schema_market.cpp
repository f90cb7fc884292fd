// The `market` and `models` sections.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "base/parallel_ranges.hpp"
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

/// The keys a model of each type may have (the union while the type is not known), in the
/// order the error message lists them.
const std::vector<std::string>& model_keys(std::optional<ModelType> type) {
  using Keys = std::array<std::vector<std::string>, spellings::kModelTypes.size() + 1>;
  static const Keys keys = [] {
    Keys k;
    for (std::size_t i = 0; i < spellings::kModelTypes.size(); ++i)
      k[i] = reference::key_names("models[]", reference::Source::yaml,
                                  to_string(spellings::kModelTypes[i]));
    k.back() = reference::key_names("models[]");
    return k;
  }();
  return type ? keys[static_cast<std::size_t>(*type)] : keys.back();
}

/// A volatility, in (0, 5].
double volatility_value(const Reader& reader, const Located& where) {
  const double value = reader.positive(where);
  if (value > 5.0) {
    reader.fail(where, "must be <= 5");
  }
  return value;
}

/// `{tenors: [...], values_key: [...]}` with one value per tenor, each checked by `check`.
template <class Check>
TermStructure pillars(const Reader& reader, const Mapping& m, const char* values_key, Check check) {
  TermStructure curve;
  curve.tenors = reader.increasing_times(m.require("tenors").value, "tenor");
  const auto items =
      reader.sized_list(m.require(values_key).value, curve.tenors.size(), "values, one per tenor");
  for (const auto& item : items) {
    curve.values.push_back(check(item));
  }
  return curve;
}

std::vector<Underlying> underlyings(const Reader& reader, const Located& where) {
  const auto items = reader.non_empty_list(where);
  NameTable names(reader, "name");
  return yaml::read_items<Underlying>(
      items, names, base::threads_for(items.size(), yaml::kItemsPerThread),
      [&reader](const Located& item, yaml::NameSink& name, std::size_t) {
        const Mapping m = reader.mapping(item);
        static const std::vector<std::string> keys = reference::key_names("market.underlyings[]");
        m.allow_only(keys);
        Underlying u;
        u.mark = item.mark;
        const Located& name_at = m.require("name").value;
        u.name = reader.name(name_at);
        name.add(u.name, name_at);
        u.spot = reader.positive(m.require("spot").value);
        if (const Entry* q = m.find("dividend_yield")) {
          u.dividend_yield = reader.at_most_one_in_magnitude(q->value);
        }
        return u;
      });
}

TermStructure rates(const Reader& reader, const Located& where) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("market.rates"));
  const Entry* flat = m.find("zero_rate");
  for (const char* key : {"tenors", "zero_rates"}) {
    m.refuse_both(flat, m.find(key), "give either zero_rate or tenors with zero_rates, not both");
  }
  const auto rate = [&reader](const Located& item) {
    return reader.at_most_one_in_magnitude(item);
  };
  if (flat != nullptr) {
    TermStructure curve;
    curve.values.push_back(rate(flat->value));
    return curve;
  }
  if (m.find("tenors") == nullptr && m.find("zero_rates") == nullptr) {
    reader.fail(where, "missing required key 'zero_rate' (or 'tenors' and 'zero_rates')");
  }
  return pillars(reader, m, "zero_rates", rate);
}

TermStructure volatility(const Reader& reader, const Located& where) {
  const auto vol = [&reader](const Located& item) { return volatility_value(reader, item); };
  if (where.node.IsScalar()) {
    TermStructure flat;
    flat.values.push_back(vol(where));
    return flat;
  }
  if (!where.node.IsMap()) {
    reader.fail(where, "must be a number or a mapping {tenors: [...], vols: [...]}");
  }
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("models[].volatility"));
  TermStructure curve = pillars(reader, m, "vols", vol);
  // Total variance v^2 t must not fall between pillars: the forward variance between them would
  // be negative and the per-step diffusion imaginary. Equal total variance (zero forward
  // variance) is allowed, with a relative tolerance for vols typed to a few digits.
  for (std::size_t i = 1; i < curve.tenors.size(); ++i) {
    const double before = curve.values[i - 1] * curve.values[i - 1] * curve.tenors[i - 1];
    const double after = curve.values[i] * curve.values[i] * curve.tenors[i];
    if (after < before * (1.0 - 1e-12)) {
      reader.fail(reader.list(m.require("vols").value)[i],
                  "total variance decreases between tenors " +
                      yaml::format_number(curve.tenors[i - 1]) + " and " +
                      yaml::format_number(curve.tenors[i]) + " (negative forward variance)");
    }
  }
  return curve;
}

HestonParameters heston(const Reader& reader, const Mapping& m) {
  HestonParameters h;
  h.v0 = reader.non_negative(m.require("v0").value);
  h.kappa = reader.positive(m.require("kappa").value);
  h.theta = reader.positive(m.require("theta").value);
  h.xi = reader.positive(m.require("xi").value);
  h.rho = reader.at_most_one_in_magnitude(m.require("rho").value);
  if (const Entry* scheme = m.find("scheme")) {
    h.scheme = reader.choice(scheme->value, spellings::kHestonSchemes);
  }
  return h;
}

LocalVolSurface surface(const Reader& reader, const Located& where) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("models[].surface"));
  LocalVolSurface s;
  s.times = reader.increasing(m.require("times").value, "time",
                              [&reader](const Located& item) { return reader.non_negative(item); });
  const Located& moneyness_at = m.require("log_moneyness").value;
  s.log_moneyness =
      reader.increasing(moneyness_at, "log_moneyness",
                        [&reader](const Located& item) { return reader.number(item); });
  if (s.log_moneyness.size() > static_cast<std::size_t>(kMaxSurfaceKnots)) {
    reader.fail(moneyness_at, "must have at most " + std::to_string(kMaxSurfaceKnots) +
                                  " values (got " + std::to_string(s.log_moneyness.size()) + ")");
  }
  const Located& vols_at = m.require("vols").value;
  const auto rows = reader.list(vols_at);
  if (rows.size() != s.times.size()) {
    reader.fail(vols_at, "has " + yaml::count_of(rows.size(), "row") + "; times has " +
                             yaml::count_of(s.times.size(), "value") + " (one row per time)");
  }
  for (const auto& row : rows) {
    const auto items = reader.list(row);
    if (items.size() != s.log_moneyness.size()) {
      reader.fail(row, "has " + yaml::count_of(items.size(), "value") + "; log_moneyness has " +
                           std::to_string(s.log_moneyness.size()));
    }
    std::vector<double> vols;
    for (const auto& item : items) {
      vols.push_back(volatility_value(reader, item));
    }
    s.vols.push_back(std::move(vols));
  }
  return s;
}

/// The correlation matrix of `n` underlyings: symmetric, with a unit diagonal and entries in
/// [-1, 1].
std::vector<std::vector<double>> correlation(const Reader& reader, const Located& where,
                                             std::size_t n) {
  const auto rows = reader.sized_list(where, n, "rows, one per underlying");
  std::vector<std::vector<double>> c;
  for (std::size_t i = 0; i < n; ++i) {
    const auto items = reader.sized_list(rows[i], n, "values, one per underlying");
    c.emplace_back();
    for (std::size_t j = 0; j < n; ++j) {
      const double value =
          i == j ? reader.number(items[j]) : reader.at_most_one_in_magnitude(items[j]);
      if (i == j && value != 1.0) {
        reader.fail(items[j], "must be 1 (the diagonal of a correlation matrix)");
      }
      if (j < i && !(std::fabs(value - c[j][i]) <= 1e-12)) {
        reader.fail(items[j], "must equal correlation[" + std::to_string(j) + "][" +
                                  std::to_string(i) + "] = " + yaml::format_number(c[j][i]) +
                                  " (the matrix must be symmetric)");
      }
      c[i].push_back(value);
    }
  }
  return c;
}

/// The lower factor L of L L^T = `c`, refused at `where` when `c` is not positive definite.
std::vector<std::vector<double>> cholesky(const Reader& reader, const Located& where,
                                          const std::vector<std::vector<double>>& c) {
  // Cholesky-Banachiewicz from the lower triangle: L L^T = C exactly when every pivot is > 0.
  const std::size_t n = c.size();
  std::vector<std::vector<double>> l(n, std::vector<double>(n, 0.0));
  for (std::size_t j = 0; j < n; ++j) {
    double pivot = c[j][j];
    for (std::size_t k = 0; k < j; ++k) {
      pivot -= l[j][k] * l[j][k];
    }
    if (!(pivot > 0.0)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", pivot);
      reader.fail(where, "is not positive definite (Cholesky pivot " + std::to_string(j + 1) +
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
  return l;
}

void multi_asset(const Reader& reader, const Mapping& m, const NameTable& underlying_names,
                 ModelConfig& model) {
  const Located& underlyings_at = m.require("underlyings").value;
  const auto names = reader.list(underlyings_at);
  if (names.size() < 2 || names.size() > static_cast<std::size_t>(kMaxBasketAssets)) {
    reader.fail(underlyings_at, "must have 2 to " + std::to_string(kMaxBasketAssets) +
                                    " underlyings (got " + std::to_string(names.size()) + ")");
  }
  NameTable seen(reader, "underlying");
  for (const auto& item : names) {
    model.underlyings.push_back(reader.name(item));
    model.underlying_indices.push_back(
        underlying_names.resolve(model.underlyings.back(), item, "underlying"));
    seen.add(model.underlyings.back(), item);
  }
  const std::size_t n = names.size();
  for (const auto& item :
       reader.sized_list(m.require("volatilities").value, n, "values, one per underlying")) {
    model.volatilities.push_back(volatility_value(reader, item));
  }
  const Located& correlation_at = m.require("correlation").value;
  model.correlation = correlation(reader, correlation_at, n);
  model.cholesky = cholesky(reader, correlation_at, model.correlation);
}

ModelConfig model(const Reader& reader, const Located& where, const NameTable& underlying_names,
                  const Market& market, yaml::NameSink& names) {
  const Mapping m = reader.mapping(where);
  // The valid keys depend on the type; while it is missing, judge keys against all types.
  if (m.find("type") == nullptr) {
    m.allow_only(model_keys(std::nullopt));
  }
  ModelConfig model;
  model.mark = where.mark;
  model.type = reader.choice(m.require("type").value, spellings::kModelTypes);
  m.allow_only(model_keys(model.type));
  const Located& name_at = m.require("name").value;
  model.name = reader.name(name_at);
  names.add(model.name, name_at);
  if (model.type != ModelType::multi_black_scholes) {
    const Located& underlying_at = m.require("underlying").value;
    model.underlying = reader.name(underlying_at);
    model.underlying_index =
        underlying_names.resolve(model.underlying, underlying_at, "underlying");
  }
  switch (model.type) {
  case ModelType::black_scholes:
    model.volatility = volatility(reader, m.require("volatility").value);
    break;
  case ModelType::heston:
    model.heston = heston(reader, m);
    break;
  case ModelType::local_vol: {
    const Located& surface_at = m.require("surface").value;
    if (surface_at.node.IsScalar() && surface_at.node.Scalar() == "implied") {
      // Dupire from the underlying's quotes, built when the run is planned.
      const bool quoted =
          std::any_of(market.implied_vols.begin(), market.implied_vols.end(),
                      [&](const ImpliedVols& q) { return q.underlying == model.underlying; });
      if (!quoted)
        reader.fail(surface_at, "is `implied`, but market.implied_vols has no quotes for '" +
                                    model.underlying + "'");
      model.surface_from_quotes = true;
    } else if (surface_at.node.IsScalar()) {
      reader.fail(surface_at, "must be `implied` (Dupire from market.implied_vols) or a grid "
                              "{times, log_moneyness, vols}");
    } else {
      model.surface = surface(reader, surface_at);
    }
    break;
  }
  case ModelType::multi_black_scholes:
    multi_asset(reader, m, underlying_names, model);
    break;
  }
  return model;
}

} // namespace

Market market(const Reader& reader, const Located& where) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("market"));
  Market market;
  market.underlyings = underlyings(reader, m.require("underlyings").value);
  market.zero_rates = rates(reader, m.require("rates").value);
  if (const Entry* quotes = m.find("implied_vols"))
    market.implied_vols = implied_vols(reader, quotes->value, market.underlyings);
  return market;
}

std::vector<ModelConfig> models(const Reader& reader, const Located& where, const Market& market) {
  NameTable underlying_names(reader, "name");
  for (const auto& u : market.underlyings) {
    underlying_names.add_known(u.name, u.mark);
  }
  const auto items = reader.non_empty_list(where);
  NameTable names(reader, "name");
  return yaml::read_items<ModelConfig>(items, names,
                                       base::threads_for(items.size(), yaml::kItemsPerThread),
                                       [&](const Located& item, yaml::NameSink& name, std::size_t) {
                                         return model(reader, item, underlying_names, market, name);
                                       });
}

} // namespace pfmc::config::schema
