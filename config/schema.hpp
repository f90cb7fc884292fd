#pragma once
// The sections of a run's YAML (DESIGN.md's config contract), internal to config/: each reads
// one top-level key with a yaml::Reader and refuses what the contract does not allow.
// load_config.cpp calls them in file order; a later section resolves names from earlier ones.

#include <optional>
#include <string>
#include <vector>

#include "config/csv_table.hpp"
#include "config/run_config.hpp"
#include "config/yaml_reader.hpp"

namespace pfmc::config::schema {

/// "SPX, SX5E": the names of `named` (underlyings, models), for a message about an unknown one;
/// the first kListedNames of a long list and how many more, as NameTable lists its names.
template <class Named>
std::string known_names(const std::vector<Named>& named) {
  std::string names;
  for (std::size_t i = 0; i < named.size() && i < yaml::kListedNames; ++i)
    names += (names.empty() ? "" : ", ") + named[i].name;
  if (named.size() > yaml::kListedNames)
    names += ", and " + std::to_string(named.size() - yaml::kListedNames) + " more";
  return names;
}

// schema_market.cpp
Market market(const yaml::Reader& reader, const yaml::Located& where);
std::vector<ModelConfig> models(const yaml::Reader& reader, const yaml::Located& where,
                                const Market& market);

// schema_quotes.cpp
/// market.implied_vols: a list of grids (`underlying`, `expiries`, `strikes`, `vols`: a row an
/// expiry, a vol a strike) and `{csv: FILE}` items (columns underlying, expiry, strike, vol).
std::vector<ImpliedVols> implied_vols(const yaml::Reader& reader, const yaml::Located& where,
                                      const std::vector<Underlying>& underlyings);

// schema_risk.cpp
/// The `risk` block: ladders of one kind of move, a grid of two of them, named scenarios
/// (`{csv: FILE}`) and historical daily moves (`{csv: FILE, levels, horizon}`); names resolve
/// against the market's underlyings and `config`'s models.
RiskConfig risk(const yaml::Reader& reader, const yaml::Located& where, const RunConfig& config);

// schema_products.cpp
/// The CSV file a section names (`instruments: {csv: trades.csv}`), relative to the YAML
/// file's folder; nullopt when the section is a list.
std::optional<csv::Table> csv_section(const yaml::Reader& reader, const yaml::Located& where);
/// The CSV file that the mapping's `csv` key names, read with its `delimiter` if it has one
/// (a section with keys of its own beside them: `historical: {csv: FILE, horizon: 10}`).
csv::Table csv_file(const yaml::Reader& reader, const yaml::Mapping& m);
/// Refuses a header that lacks a required column or has one no record may have.
void check_header(const yaml::Reader& csv_reader, const csv::Table& table,
                  const std::vector<std::string>& allowed,
                  const std::vector<std::string>& required);
/// The instruments, from a YAML list or `{csv: FILE}`; `ids` (empty) is filled with their ids.
std::vector<InstrumentConfig> instruments(const yaml::Reader& reader, const yaml::Located& where,
                                          const RunConfig& config, yaml::NameTable& ids);
/// The positions, from a YAML list or `{csv: FILE}`; `ids` are the `instruments` instruments'.
std::vector<Position> portfolio(const yaml::Reader& reader, const yaml::Located& where,
                                yaml::NameTable& ids, std::size_t instruments);

/// The same from a table of cells given in memory (load_config.hpp's TradeColumns).
std::vector<InstrumentConfig> instruments_from_table(const csv::Table& table,
                                                     const yaml::Reader& reader,
                                                     const RunConfig& config, yaml::NameTable& ids);
std::vector<Position> portfolio_from_table(const csv::Table& table, const yaml::Reader& reader,
                                           yaml::NameTable& ids, std::size_t instruments);

// schema_run.cpp
SimulationConfig simulation(const yaml::Reader& reader, const yaml::Located& where);
EngineConfig engine(const yaml::Reader& reader, const yaml::Located& where);

} // namespace pfmc::config::schema
