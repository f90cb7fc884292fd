// The pfmc program as a user meets it: exit statuses, one-line errors, no half-written output,
// the three formats. Runs on the CPU backend (or the GPU where there is one).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status;
  std::string out; ///< stdout and stderr together
};

Outcome run(const std::string& arguments) {
  const std::string command = std::string(PFMC_BINARY) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr)
    return {-1, ""};
  std::string out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr)
    out += buffer;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class Cli : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pfmc_cli_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

const std::string kExample = std::string(PFMC_SOURCE_DIR) + "/config/examples/book.yaml";
const std::string kPortfolio = std::string(PFMC_SOURCE_DIR) + "/config/examples/portfolio.yaml";
const std::string kSmall =
    "market:\n  underlyings: [{name: S, spot: 100}]\n  rates: {zero_rate: 0.05}\n"
    "models: [{name: bs, type: black_scholes, underlying: S, volatility: 0.2}]\n"
    "instruments:\n"
    "  - {id: atm_call, type: european, option: call, strike: 100, maturity: 1.0, model: bs}\n"
    "  - {id: otm_put, type: european, option: put, strike: 90, maturity: 1.0, model: bs}\n"
    "portfolio: [{instrument: atm_call, quantity: 10}, {instrument: otm_put, quantity: -5}]\n"
    "simulation: {paths: 4096, steps_per_year: 12}\nengine: {device: cpu}\n";

TEST_F(Cli, HelpAndVersion) {
  auto r = run("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("price"), std::string::npos) << r.out;
  r = run("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("pfmc 0."), std::string::npos) << r.out;
  r = run("price --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--prefetch-distance"), std::string::npos) << r.out;
  EXPECT_EQ(run("price --version").status, 0);
  EXPECT_EQ(run("backends --help").status, 0);
}

TEST_F(Cli, BenchAndTuneNeedAGpuAndSaySo) {
  if (::getenv("PFMC_HAVE_GPU") != nullptr)
    GTEST_SKIP() << "a GPU is here";
  const auto r = run("tune " + kExample + " --quiet");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("need a GPU"), std::string::npos) << r.out;
  EXPECT_EQ(run("bench " + kExample + " --distances 5").status, 2);
  EXPECT_EQ(run("bench --help").status, 0);
  EXPECT_EQ(run("tune --help").status, 0);
}

TEST_F(Cli, BadUsageExitsTwo) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("frobnicate").status, 2);
  EXPECT_EQ(run("price").status, 2);
  EXPECT_EQ(run("price " + kExample + " --no-such-flag").status, 2);
  EXPECT_EQ(run("price " + kExample + " --format xml").status, 2);
}

TEST_F(Cli, MissingFileIsAConfigError) {
  const auto r = run("price " + path("absent.yaml"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("absent.yaml"), std::string::npos) << r.out;
}

TEST_F(Cli, BadConfigPrintsOneLocatedLineAndWritesNothing) {
  std::string bad = kSmall;
  bad.replace(bad.find("strike: 90"), 10, "strike: -90");
  const std::string file = write("bad.yaml", bad);
  const std::string output = path("out.json");
  const auto r = run("price " + file + " --format json --output " + output);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, file + ":7:56: instruments[1].strike: must be > 0\n");
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(Cli, BadOverrideNamesTheFlag) {
  const std::string file = write("ok.yaml", kSmall);
  auto r = run("price " + file + " --paths 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "--paths: must be >= 1\n");
  r = run("price " + file + " --prefetch-distance 5");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("1, 2, 3, 4, 6, 8, 12, 16"), std::string::npos) << r.out;
}

TEST_F(Cli, EventGridOnHestonIsOneLocatedLineAndExitsTwo) {
  // Loads fine (0 is a valid steps_per_year); planning refuses it for a model that needs a
  // discretisation, and names the line and column of steps_per_year (line 7, column 43).
  const std::string heston =
      "market:\n  underlyings: [{name: SPX, spot: 100}]\n  rates: {zero_rate: 0.05}\n"
      "models: [{name: spx_h, type: heston, underlying: SPX, v0: 0.04, kappa: 4, theta: 0.25,"
      " xi: 1, rho: -0.5}]\n"
      "instruments:\n"
      "  - {id: atm_call, type: european, option: call, strike: 100, maturity: 1.0, model: "
      "spx_h}\n"
      "simulation: {paths: 4096, steps_per_year: 0}\nengine: {device: cpu}\n";
  const std::string file = write("heston.yaml", heston);
  const std::string expected =
      file + ":7:43: simulation.steps_per_year: 0 (event grid) is exact only for black_scholes "
             "and multi_black_scholes; model 'spx_h' (heston) needs a discretisation: set "
             "steps_per_year > 0\n";
  const std::string output = path("out.json");
  auto r = run("price " + file + " --format json --output " + output);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, expected);
  EXPECT_FALSE(fs::exists(output));
  r = run("validate " + file);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, expected);
}

TEST_F(Cli, EventGridPricesEuropeansInOneStep) {
  std::string small = kSmall;
  small.replace(small.find("steps_per_year: 12"), 18, "steps_per_year: 0");
  const auto r = run("price " + write("grid.yaml", small) + " --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["run"]["steps"], 1);
}

TEST_F(Cli, JsonOutputFollowsTheContract) {
  const std::string file = write("ok.yaml", kSmall);
  const std::string output = path("out.json");
  const auto r = run("price " + file + " --format json --output " + output + " --seed 3");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(output);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["instruments"].size(), 2u);
  const auto& call = j["instruments"][0];
  EXPECT_EQ(call["id"], "atm_call");
  EXPECT_EQ(call["paths"], 4096);
  EXPECT_NEAR(call["price"].get<double>(), 10.45, 1.0);
  EXPECT_LT(call["ci95"][0].get<double>(), call["price"].get<double>());
  EXPECT_GT(call["ci95"][1].get<double>(), call["price"].get<double>());
  EXPECT_NEAR(j["portfolio"]["value"].get<double>(),
              10 * call["price"].get<double>() - 5 * j["instruments"][1]["price"].get<double>(),
              1e-9);
  for (const char* key : {"device", "backend", "prefetch_distance", "padding", "precision", "rng",
                          "seed", "paths", "steps", "kernel_ms", "total_ms",
                          "path_steps_per_second", "bytes_loaded", "achieved_gbps"}) {
    EXPECT_TRUE(j["run"].contains(key)) << key;
  }
  EXPECT_EQ(j["run"]["seed"], 3);
  EXPECT_EQ(j["run"]["steps"], 12);
}

TEST_F(Cli, CsvAndTable) {
  const std::string file = write("ok.yaml", kSmall);
  auto r = run("price " + file + " --format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("id,type,price,std_error,ci95_low,ci95_high,paths\natm_call,european,", 0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("\n,portfolio,"), std::string::npos) << r.out;
  r = run("price " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("atm_call"), std::string::npos);
  EXPECT_NE(r.out.find("95% interval"), std::string::npos);
  EXPECT_NE(r.out.find("portfolio value"), std::string::npos);
  EXPECT_NE(r.out.find("path-steps/s"), std::string::npos);
}

TEST_F(Cli, ValidateAndBackends) {
  auto r = run("validate " + kExample);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(": ok: "), std::string::npos) << r.out;
  r = run("backends");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("none"), std::string::npos) << r.out;
  r = run("backends --format json");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
}

TEST_F(Cli, ReferencePortfolioValidatesAndPricesOnTheCpu) {
  auto r = run("validate " + kPortfolio);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("10 underlyings, 10 models, 1000 instruments"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10 simulation groups, up to 252 steps, 100,000 paths"), std::string::npos)
      << r.out;
  r = run("price " + kPortfolio + " --device cpu --paths 500 --format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 1000 + 1); // header, rows, portfolio
}

TEST_F(Cli, ExamplePortfolioPricesOnTheCpu) {
  const auto r = run("price " + kExample + " --device cpu --paths 2000 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["instruments"].size(), 10u);
  for (const auto& in : j["instruments"]) {
    EXPECT_TRUE(in["price"].is_number()) << in;
    EXPECT_GE(in["price"].get<double>(), 0.0) << in;
  }
}

} // namespace
