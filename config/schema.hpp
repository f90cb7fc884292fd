#pragma once
// The sections of a run's YAML (DESIGN.md's config contract), internal to config/: each reads
// one top-level key with a yaml::Reader and refuses what the contract does not allow.
// load_config.cpp calls them in file order; a later section resolves names from earlier ones.

#include <vector>

#include "config/csv_table.hpp"
#include "config/run_config.hpp"
#include "config/yaml_reader.hpp"

namespace pfmc::config::schema {

// schema_market.cpp
Market market(const yaml::Reader& reader, const yaml::Located& where);
std::vector<ModelConfig> models(const yaml::Reader& reader, const yaml::Located& where,
                                const Market& market);

// schema_products.cpp
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
