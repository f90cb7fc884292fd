// `pfmc kernels`: what is built in, what is cached, what can be compiled; `--warm` compiles ahead
// what a config (or a selection of the model list) will use, in parallel; `--clear`.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "apps/cli.hpp"
#include "base/error.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/run/kernel_inventory.hpp"
#include "kernels/compile/compiled_kernels.hpp"
#include "kernels/compile/kernel_cache.hpp"

namespace pfmc::apps {

namespace {

/// The kernels `target` names: a config file, `all`, or model-list entries (comma-separated).
std::vector<engine::KernelInfo> warm_targets(const std::string& target) {
  if (std::filesystem::is_regular_file(target) || target == "-")
    return engine::config_kernels(config::load_run_config(target));
  const std::vector<engine::KernelInfo> all = engine::kernel_inventory();
  std::vector<engine::KernelInfo> chosen;
  std::set<std::string> entries;
  for (const auto& k : all)
    entries.insert(k.entry);
  std::set<std::string> asked;
  if (target != "all") {
    std::stringstream list(target);
    for (std::string name; std::getline(list, name, ',');) {
      if (entries.count(name) == 0) {
        std::string known;
        for (const auto& e : entries)
          known += (known.empty() ? "" : ", ") + e;
        throw config::ConfigError("", {}, "--warm",
                                  "'" + name +
                                      "' is neither a config file nor a model-list entry; "
                                      "entries: all, " +
                                      known);
      }
      asked.insert(name);
    }
  }
  for (const auto& k : all) {
    if (target == "all" || asked.count(k.entry) > 0)
      chosen.push_back(k);
  }
  return chosen;
}

/// --warm: compiles what o.warm names into the cache; throws for want of a GPU without --arch.
nlohmann::json warm(const KernelsOptions& o) {
  int arch = o.arch;
  if (arch == 0) {
    const engine::DeviceInfo device = engine::query_device();
    if (!device.available) {
      throw config::ConfigError("", {}, "--warm",
                                "no GPU to compile for (" + device.unavailable_reason +
                                    "): name its architecture, e.g. --arch 90");
    }
    arch = device.compute_capability;
  }
  const engine::WarmResult warmed =
      engine::warm_kernels(warm_targets(o.warm), arch, o.jobs, !o.quiet);
  return {{"arch", arch},
          {"kernels", warmed.kernels},
          {"compiled", warmed.compiled},
          {"from_cache", warmed.kernels - warmed.compiled},
          {"seconds", warmed.seconds},
          {"failures", warmed.failures}};
}

/// What is built in, compiled on first use and cached, per model-list entry.
void describe(const KernelsOptions& o, nlohmann::json& out) {
  const std::vector<engine::KernelInfo> all = engine::kernel_inventory();
  const kernels::compile::KernelCache cache(kernels::compile::cache_dir());
  const auto cached = cache.list();
  std::set<std::string> cached_names;
  std::uintmax_t bytes = 0;
  for (const auto& c : cached) {
    cached_names.insert(c.name_expression);
    bytes += c.bytes;
  }
  nlohmann::json entries = nlohmann::json::array();
  std::map<std::string, std::size_t> row_of;
  for (const auto& k : all) {
    if (row_of.count(k.entry) == 0) {
      row_of[k.entry] = entries.size();
      entries.push_back({{"entry", k.entry}, {"built_in", 0}, {"on_first_use", 0}, {"cached", 0}});
    }
    auto& row = entries[row_of[k.entry]];
    row[k.ahead_of_time ? "built_in" : "on_first_use"] =
        row[k.ahead_of_time ? "built_in" : "on_first_use"].get<int>() + 1;
    if (cached_names.count(k.name) > 0)
      row["cached"] = row["cached"].get<int>() + 1;
  }
  out["kernel_set"] = engine::kernel_set();
  out["entries"] = entries;
  out["cached"] = cached.size();
  out["cached_bytes"] = bytes;
  if (o.list) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& c : cached)
      files.push_back({{"arch", c.arch}, {"kernel", c.name_expression}, {"file", c.file}});
    out["cached_kernels"] = files;
  }
}

void print_text(const nlohmann::json& j) {
  if (j.contains("cleared"))
    std::printf("removed %d files from %s\n", j["cleared"].get<int>(),
                j["cache"].get<std::string>().c_str());
  if (j.contains("warmed")) {
    const auto& w = j["warmed"];
    for (const auto& failure : w["failures"])
      std::fprintf(stderr, "pfmc: %s\n", failure.get<std::string>().c_str());
    std::printf("warmed %zu kernels for sm_%d in %.1f s: %zu compiled, %zu from the cache (%s)\n",
                w["kernels"].get<std::size_t>(), w["arch"].get<int>(), w["seconds"].get<double>(),
                w["compiled"].get<std::size_t>(), w["from_cache"].get<std::size_t>(),
                j["cache"].get<std::string>().c_str());
  }
  if (!j.contains("entries"))
    return;
  std::printf("path kernels built in (PFMC_KERNELS=%s) and compiled on first use:\n",
              j["kernel_set"].get<std::string>().c_str());
  int width = 16; // the widest entry's name, so that the columns line up
  for (const auto& row : j["entries"])
    width = std::max(width, static_cast<int>(row["entry"].get<std::string>().size()));
  std::printf("  %-*s %9s %14s %7s\n", width, "model-list entry", "built in", "on first use",
              "cached");
  int ahead = 0, runtime = 0, in_cache = 0;
  for (const auto& row : j["entries"]) {
    std::printf("  %-*s %9d %14d %7d\n", width, row["entry"].get<std::string>().c_str(),
                row["built_in"].get<int>(), row["on_first_use"].get<int>(),
                row["cached"].get<int>());
    ahead += row["built_in"].get<int>();
    runtime += row["on_first_use"].get<int>();
    in_cache += row["cached"].get<int>();
  }
  std::printf("  %-*s %9d %14d %7d\n", width, "total", ahead, runtime, in_cache);
  std::printf("possible kernels: %d (%d built in, %d compiled on first use)\n", ahead + runtime,
              ahead, runtime);
  std::printf("cache: %s (%zu entries, %.1f MB; $PFMC_KERNEL_CACHE or --cache moves it)\n",
              j["cache"].get<std::string>().c_str(), j["cached"].get<std::size_t>(),
              j["cached_bytes"].get<double>() / 1e6);
  if (j.contains("cached_kernels")) {
    for (const auto& c : j["cached_kernels"])
      std::printf("  %s  %s\n", c["arch"].get<std::string>().c_str(),
                  c["kernel"].get<std::string>().c_str());
  }
}

} // namespace

CLI::App* add_kernels_command(CLI::App& app, KernelsOptions& o, const char* version) {
  auto* kernels_command = app.add_subcommand(
      "kernels", "list the path kernels built in, compiled on first use and cached; compile "
                 "ahead what a config will use (--warm); empty the cache (--clear)");
  kernels_command->set_version_flag("--version", version);
  kernels_command->add_option("--warm", o.warm,
                              "compile what CONFIG's groups will launch (backend auto: every "
                              "tuner candidate), or `all`, or model-list entries "
                              "(black_scholes_f32,heston_f64,...), into the cache");
  kernels_command
      ->add_option("--arch", o.arch,
                   "with --warm: compile for sm_N (e.g. 90) instead of this GPU, "
                   "without one")
      ->check(CLI::Range(50, 200));
  kernels_command
      ->add_option("--jobs", o.jobs,
                   "with --warm: parallel compilations (default: the host's threads)")
      ->check(CLI::Range(1, 1024));
  kernels_command->add_option("--cache", o.cache,
                              "the kernel cache folder (default: $PFMC_KERNEL_CACHE, else "
                              "$XDG_CACHE_HOME/pfmc/kernels or ~/.cache/pfmc/kernels)");
  kernels_command->add_flag("--clear", o.clear, "remove every cached kernel");
  kernels_command->add_flag("--list", o.list, "also list each cached kernel");
  kernels_command->add_flag("--quiet", o.quiet, "no progress line on stderr");
  kernels_command->add_flag("--json", o.json, "print the report as JSON");
  return kernels_command;
}

nlohmann::json kernels_report(const KernelsOptions& o) {
  if (!o.cache.empty())
    kernels::compile::set_cache_dir(o.cache);
  nlohmann::json out{{"cache", kernels::compile::cache_dir()}};
  if (o.clear)
    out["cleared"] = kernels::compile::KernelCache(kernels::compile::cache_dir()).clear();
  if (!o.warm.empty())
    out["warmed"] = warm(o);
  if (!o.clear && o.warm.empty())
    describe(o, out);
  return out;
}

int command_kernels(const KernelsOptions& o) {
  const nlohmann::json report = kernels_report(o);
  if (o.json)
    std::printf("%s\n", report.dump(2).c_str());
  else
    print_text(report);
  if (report.contains("warmed") && !report["warmed"]["failures"].empty())
    return kExitRuntime;
  return 0;
}

} // namespace pfmc::apps
