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

// schema_market.cpp
Market market(const yaml::Reader& reader, const yaml::Located& where);
std::vector<ModelConfig> models(const yaml::Reader& reader, const yaml::Located& where,
                                const Market& market);

// schema_quotes.cpp
/// market.implied_vols: a list of grids (`underlying`, `expiries`, `strikes`, `vols`: a row an
/// expiry, a vol a strike) and `{csv: FILE}` items (columns underlying, expiry, strike, vol).
std::vector<ImpliedVols> implied_vols(const yaml::Reader& reader, const yaml::Located& where,
                                      const std::vector<Underlying>& underlyings);

// schema_products.cpp
/// The CSV file a section names (`instruments: {csv: trades.csv}`), relative to the YAML
/// file's folder; nullopt when the section is a list.
std::optional<csv::Table> csv_section(const yaml::Reader& reader, const yaml::Located& where);
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
