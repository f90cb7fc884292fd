#pragma once
// A test of configs read from files: a folder of its own under the temporary folder (removed
// after the test), files written into it, and a load's ConfigError message with that folder
// written as `D/`, so that tests compare whole messages. The CSV books, the implied-vol quotes
// and the risk block's suites derive from it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config_error.hpp"
#include "config/load_config.hpp"

namespace pfmc::testing {

class ConfigFiles : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* unit = ::testing::UnitTest::GetInstance();
    dir_ = std::filesystem::temp_directory_path() /
           ("pfmc_" + std::string(unit->current_test_info()->test_suite_name()) + "_" +
            std::to_string(unit->random_seed()) + "_" + unit->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  /// Writes `text` to the file `name` of the test's folder; its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  /// The ConfigError message of loading `path`, with the test's folder written as `D/`.
  std::string error_of(const std::string& path) const {
    try {
      (void)config::load_run_config(path);
    } catch (const config::ConfigError& e) {
      std::string text = e.what();
      const std::string folder = dir_.string() + "/";
      for (std::size_t at = text.find(folder); at != std::string::npos; at = text.find(folder))
        text.replace(at, folder.size(), "D/");
      return text;
    }
    return "no error";
  }
  std::filesystem::path dir_;
};

} // namespace pfmc::testing
