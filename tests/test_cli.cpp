// The pfmc program as a user meets it: exit statuses, one-line errors, no half-written output,
// the three formats. Runs on the CPU backend (or the GPU where there is one).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "apps/sweep_plot.hpp"
#include "config/load_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/pricer.hpp"

namespace {

/// Whether the pfmc under test can run on a GPU: the same question it asks (this build's kernel
/// set, then device 0).
bool have_gpu() {
  return pfmc::engine::query_device().available;
}

namespace fs = std::filesystem;

struct Outcome {
  int status;
  std::string out; ///< stdout and stderr together
};

Outcome run_command(const std::string& shell_command) {
  const std::string command = shell_command + " 2>&1";
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

Outcome run(const std::string& arguments) {
  return run_command(std::string(PFMC_BINARY) + " " + arguments);
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

/// kSmall's call and put by Black-Scholes (tests/references/refclosed.py): exact for pfmc's log
/// steps on any grid, so a price is within kSigmas of its standard errors (4, as in
/// tests/test_support.hpp) of them.
constexpr double kSmallClosedForms[2] = {10.450584, 2.310097};
constexpr double kSigmas = 4.0;

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

TEST_F(Cli, TraceWritesEveryPhaseFromTheProcessStart) {
  // PFMC_TRACE=FILE (base/trace.hpp): Chrome's trace format, spans from the process's
  // start (main, the config, the run), %p the process id; unset, no file.
  const std::string config = write("small.yaml", kSmall);
  const std::string pattern = path("trace_%p.json");
  const auto r = run_command("PFMC_TRACE=" + pattern + " " + PFMC_BINARY + " price " + config +
                             " --format csv --quiet");
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<fs::path> traces;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().filename().string().rfind("trace_", 0) == 0)
      traces.push_back(entry.path());
  }
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_EQ(traces.front().filename().string().find("%p"), std::string::npos);
  std::ifstream in(traces.front());
  const auto trace = nlohmann::json::parse(in);
  std::map<std::string, double> starts;
  for (const auto& e : trace.at("traceEvents")) {
    EXPECT_EQ(e.at("ph"), "X");
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    starts.emplace(e.at("name").get<std::string>(), e.at("ts").get<double>());
  }
  for (const char* name : {"main", "config", "price", "plan"})
    EXPECT_EQ(starts.count(name), 1u) << name;
  EXPECT_LE(starts["main"], starts["config"]);
  EXPECT_LE(starts["config"], starts["price"]);
  fs::remove(traces.front());
  ASSERT_EQ(run("price " + config + " --format csv --quiet").status, 0);
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_NE(entry.path().filename().string().rfind("trace_", 0), 0u) << entry.path();
}

TEST_F(Cli, BenchAndTuneNeedAGpuAndSaySo) {
  if (have_gpu())
    GTEST_SKIP() << "a GPU is here";
  const auto r = run("tune " + kExample + " --quiet");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("need a GPU"), std::string::npos) << r.out;
  EXPECT_EQ(run("bench " + kExample + " --distances 5").status, 2);
  EXPECT_EQ(run("bench --help").status, 0);
  EXPECT_EQ(run("tune --help").status, 0);
}

TEST_F(Cli, TheIdealIsBenchOnly) {
  // Checked before any GPU is looked for: the same answer with or without one.
  auto r = run("tune " + kExample + " --quiet --backends none,ideal");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "--backends: 'ideal' is measured by `pfmc bench` only, never chosen\n");
  r = run("price " + kExample + " --backend ideal --device cpu");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("'ideal' is a diagnostic of `pfmc bench`"), std::string::npos) << r.out;
  r = run("backends");
  EXPECT_NE(r.out.find("`pfmc bench` only"), std::string::npos) << r.out;
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
  const auto r = run("price " + write("grid.yaml", small) + " --format json --paths 262144");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["run"]["steps"], 1);
  // One exact step to the maturity: the closed forms within kSigmas standard errors (about 0.03
  // each at these paths).
  for (int k = 0; k < 2; ++k) {
    const auto& in = j["instruments"][k];
    EXPECT_NEAR(in["price"].get<double>(), kSmallClosedForms[k],
                kSigmas * in["std_error"].get<double>())
        << in["id"];
  }
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
  for (int k = 0; k < 2; ++k) {
    const auto& in = j["instruments"][k];
    EXPECT_NEAR(in["price"].get<double>(), kSmallClosedForms[k],
                kSigmas * in["std_error"].get<double>())
        << in["id"];
  }
  EXPECT_LT(call["ci95"][0].get<double>(), call["price"].get<double>());
  EXPECT_GT(call["ci95"][1].get<double>(), call["price"].get<double>());
  EXPECT_NEAR(j["portfolio"]["value"].get<double>(),
              10 * call["price"].get<double>() - 5 * j["instruments"][1]["price"].get<double>(),
              1e-9);
  for (const char* key : {"device", "backend", "prefetch_distance", "padding", "precision", "rng",
                          "math", "seed", "paths", "steps", "kernel_ms", "total_ms",
                          "path_steps_per_second", "bytes_loaded", "achieved_gbps"}) {
    EXPECT_TRUE(j["run"].contains(key)) << key;
  }
  EXPECT_EQ(j["run"]["seed"], 3);
  EXPECT_EQ(j["run"]["steps"], 12);
}

TEST_F(Cli, MathProfileIsCarriedToTheReport) {
  // The setting travels from the flag to the report; what it changes in the numbers is the
  // engine's (tests of the kernels).
  const std::string file = write("ok.yaml", kSmall);
  const std::string price = "price " + file + " --device cpu --paths 1024";
  // The JSON run object of a run that must succeed.
  const auto run_object = [&](const std::string& flags) {
    const auto r = run(price + " --format json" + flags);
    EXPECT_EQ(r.status, 0) << r.out;
    return r.status == 0 ? nlohmann::json::parse(r.out)["run"] : nlohmann::json();
  };
  EXPECT_EQ(run_object("")["math"], "accurate");
  EXPECT_EQ(run_object(" --math fast")["math"], "fast");
  auto r = run(price + " --math fast");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(" | math fast | "), std::string::npos) << r.out;
  // The Greeks' method, as set, in the run (null without Greeks) and on its line.
  EXPECT_TRUE(run_object("")["greeks_method"].is_null());
  EXPECT_EQ(run_object(" --greeks delta")["greeks_method"], "auto");
  r = run(price + " --greeks delta --greeks-method bump");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(", Greeks bump"), std::string::npos) << r.out;
  const std::string output = path("out.json");
  r = run("price " + file + " --device cpu --math approximate --format json --output " + output);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "--math: must be one of: accurate, fast\n");
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(Cli, GreeksMethodIsCarriedToTheReport) {
  // The flag reaches the engine: each Greek's method is in the instruments' JSON. Vega, as auto
  // would take it pathwise on these Black-Scholes Europeans (a delta of theirs is pathwise under
  // bump too). Which groups may be pathwise is the planner's to test (test_pathwise).
  const std::string file = write("ok.yaml", kSmall);
  auto r = run("price " + file + " --paths 1024 --greeks vega --greeks-method bump --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["instruments"].size(), 2u);
  for (const auto& in : j["instruments"])
    EXPECT_EQ(in["greeks_method"]["vega"], "bump") << in["id"];
  const std::string output = path("out.json");
  r = run("price " + file + " --greeks vega --greeks-method adjoint --format json --output " +
          output);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "--greeks-method: must be one of: auto, bump, pathwise\n");
  EXPECT_FALSE(fs::exists(output));
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

TEST_F(Cli, OutputDashIsStandardOutput) {
  const std::string file = write("ok.yaml", kSmall);
  const auto r = run("price " + file + " --device cpu --format csv --output -");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("id,type,price,std_error,ci95_low,ci95_high,paths\natm_call,european,", 0),
            0u)
      << r.out;
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(Cli, OutputToAFolderIsAnErrorAndCreatesNothing) {
  const std::string file = write("ok.yaml", kSmall);
  const std::string folder = path("results");
  fs::create_directories(folder);
  const auto r = run("price " + file + " --device cpu --output " + folder);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(r.out, "pfmc: error: cannot write " + folder + ": it is a directory\n");
  EXPECT_TRUE(fs::is_empty(folder));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

TEST_F(Cli, OutputToAFullDeviceNamesThePathAndTheReason) {
  // A link made here to /dev/full: the device is written to (and refuses), never renamed over.
  const std::string file = write("ok.yaml", kSmall);
  const std::string link = path("full.json");
  fs::create_symlink("/dev/full", link);
  const auto r = run("price " + file + " --device cpu --format json --output " + link);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cannot write " + link + " (-> /dev/full): writing failed: No space left"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // Standard output behind the full device: a failed write is exit status 1, not 0.
  EXPECT_EQ(run("price " + file + " --device cpu > " + link).status, 1);
}

TEST_F(Cli, SignalsStopTheRunWriteNothingAndExit128PlusTheSignal) {
  // A CPU run of about a minute on two cores, asked to stop a second after it started.
  using Clock = std::chrono::steady_clock;
  for (const int signal : {SIGINT, SIGTERM}) {
    const std::string out = path("big.json");
    const std::string err = path("stderr.txt");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0)
        ::dup2(fd, STDERR_FILENO);
      ::execl(PFMC_BINARY, PFMC_BINARY, "price", kExample.c_str(), "--device", "cpu", "--paths",
              "2000000", "--output", out.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ASSERT_EQ(::kill(pid, signal), 0);
    const auto sent = Clock::now();
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 &&
           Clock::now() - sent < std::chrono::seconds(20)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
    if (done == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL() << "signal " << signal << ": still running after 20 s";
    }
    EXPECT_LT(seconds, 2.0) << "signal " << signal;
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << signal << ": ended by a signal";
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    EXPECT_FALSE(fs::exists(out));
    std::ifstream stream(err);
    const std::string message((std::istreambuf_iterator<char>(stream)),
                              std::istreambuf_iterator<char>());
    const std::string expected =
        signal == SIGINT ? "pfmc: interrupted (SIGINT): " : "pfmc: terminated (SIGTERM): ";
    EXPECT_EQ(message, expected + "the run stopped, nothing was written\n");
    // Nothing else in the folder: no output, no temporary file.
    fs::remove(err);
    EXPECT_TRUE(fs::is_empty(dir_)) << "signal " << signal;
  }
}

TEST_F(Cli, ConfigFromStandardInput) {
  const std::string file = write("ok.yaml", kSmall);
  auto r = run("validate - < " + file);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("<stdin>: ok: 1 underlyings, 1 models, 2 instruments", 0), 0u) << r.out;
  r = run("price - --device cpu --format csv < " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("id,type,price,std_error,ci95_low,ci95_high,paths\natm_call,european,", 0),
            0u)
      << r.out;
  r = run("price - --device cpu < " + file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("pfmc: <stdin>\n", 0), 0u) << r.out;

  std::string bad = kSmall;
  bad.replace(bad.find("strike: 90"), 10, "strike: -90");
  r = run("price - --device cpu < " + write("bad.yaml", bad));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "<stdin>:7:56: instruments[1].strike: must be > 0\n");
  r = run("validate - < " + write("broken.yaml", "market: [1,\n"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out.rfind("<stdin>:", 0), 0u) << r.out;
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

TEST_F(Cli, CalibrateFitsTheSmileAndWritesTheModel) {
  // The shipped smile (70 quotes of an SSVI surface): the quotes' checks, the fit, every quote's
  // line, and the fitted block, which a config then loads.
  const std::string smile = std::string(PFMC_SOURCE_DIR) + "/config/examples/smile.yaml";
  const std::string fitted = path("fitted.yaml");
  auto r = run("calibrate " + smile + " --model spx_heston -o " + fitted);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("to 70 quotes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("quotes: no calendar, butterfly or vertical-spread arbitrage"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vol points root mean square"), std::string::npos) << r.out;
  std::ifstream in(fitted);
  const std::string block((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(block.rfind("models:\n  - {name: spx_heston, type: heston, underlying: SPX, v0: ", 0),
            0u)
      << block;
  // The fitted block in a config: it prices.
  const std::string config = write(
      "priced.yaml", "market:\n  underlyings: [{name: SPX, spot: 100, dividend_yield: 0.015}]\n"
                     "  rates: {zero_rate: 0.03}\n" +
                         block +
                         "instruments:\n  - {id: c, type: european, option: call, strike: 100, "
                         "maturity: 1, model: spx_heston}\n"
                         "simulation: {paths: 20000, steps_per_year: 50}\n");
  r = run("validate " + config);
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(Cli, CalibrateRefusesWhatItCannotFit) {
  const std::string smile = std::string(PFMC_SOURCE_DIR) + "/config/examples/smile.yaml";
  auto r = run("calibrate " + smile + " --model nope");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no model named 'nope' (the config has: spx_local_vol, spx_heston)"),
            std::string::npos)
      << r.out;
  r = run("calibrate " + kExample + " --model " + "spx_bs");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("`pfmc calibrate` fits heston models"), std::string::npos) << r.out;
  // A heston model whose underlying has no quotes.
  const std::string heston = std::string(PFMC_SOURCE_DIR) + "/config/examples/heston.yaml";
  r = run("calibrate " + heston + " --model spx_heston");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("has no quotes in market.implied_vols"), std::string::npos) << r.out;
  r = run("calibrate " + smile);
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST_F(Cli, RiskPricesTheExamplesScenariosAsTableCsvAndJson) {
  const std::string example = std::string(PFMC_SOURCE_DIR) + "/config/examples/risk.yaml";
  const std::string small = " --paths 2000 --device cpu --quiet";
  auto r = run("risk " + example + small);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("risk: 358 scenarios of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("historical 1-day VaR 99.0%: "), std::string::npos) << r.out;
  const std::string csv = path("risk.csv");
  r = run("risk " + example + small + " --format csv --per-instrument -o " + csv);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "scenario,set,instrument,value,pnl,pnl_std_error");
  std::size_t rows = 0;
  while (std::getline(in, line))
    ++rows;
  EXPECT_EQ(rows, 358u * 11u); // the portfolio, its SPX and SX5E parts, its 8 instruments
  r = run("risk " + example + small + " --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["scenarios"].size(), 358u);
  EXPECT_EQ(report["tail"].size(), 2u);
  EXPECT_EQ(report["taylor"][0]["ladder"], "spot");
  // The portfolio's P&L is the sum of its parts by underlying.
  for (const auto& s : report["scenarios"]) {
    double parts = 0.0;
    for (const auto& f : s["factors"])
      parts += f["pnl"].get<double>();
    EXPECT_NEAR(parts, s["pnl"].get<double>(), 1e-9 * (1 + std::abs(parts))) << s["name"];
  }
  // A config without a risk block: refused, nothing printed but the reason.
  r = run("risk " + kExample + small);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no `risk:` block"), std::string::npos) << r.out;
}

TEST_F(Cli, KernelsListsWarmsAndClears) {
  const fs::path cache =
      fs::temp_directory_path() / ("pfmc-cli-kernels-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  const std::string at = " --cache " + cache.string();
  auto r = run("kernels" + at);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("heston_f32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 entries"), std::string::npos) << r.out;
  r = run("kernels --json" + at);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["entries"].size(), 44u); // kernels/model_list.cuh: 18 accurate, 12 fast, 14 pathwise
  // Bad targets are usage errors naming the option; without a GPU the architecture is asked for.
  r = run("kernels --warm no_such_entry --arch 90" + at);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--warm: 'no_such_entry' is neither a config file"), std::string::npos)
      << r.out;
  r = run("kernels --warm heston_f32 --arch 7" + at);
  EXPECT_EQ(r.status, 2) << r.out;
  r = run("kernels --clear" + at);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("removed 0 files"), std::string::npos) << r.out;
  fs::remove_all(cache);
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
  // Each row holds the library's price of the same run (CSV writes 10 significant digits).
  auto config = pfmc::config::load_run_config(kPortfolio);
  config.simulation.paths = 500;
  config.engine.device = pfmc::config::DeviceChoice::cpu;
  const auto expected = pfmc::engine::price(config);
  std::istringstream rows(r.out);
  std::string line;
  std::getline(rows, line); // the header
  for (const auto& in : expected.instruments) {
    ASSERT_TRUE(std::getline(rows, line));
    EXPECT_EQ(line.substr(0, line.find(',')), in.id);
    const auto price_at = line.find(',', line.find(',') + 1) + 1;
    EXPECT_NEAR(std::stod(line.substr(price_at)), in.price, 1e-9 * std::fabs(in.price) + 1e-300)
        << line;
  }
}

// --- the plot: bench/plot_sweep.py, run by `pfmc bench --plot` ---------------------------------

const std::string kPlotScript = std::string(PFMC_SOURCE_DIR) + "/bench/plot_sweep.py";

int exit_status_of(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The Pythons `pfmc bench --plot` tries, in its order.
std::vector<std::string> plot_pythons() {
  std::vector<std::string> pythons;
  if (const char* chosen = std::getenv("PFMC_PYTHON"); chosen != nullptr && *chosen != '\0')
    pythons.emplace_back(chosen);
  pythons.emplace_back("python3");
  pythons.emplace_back("/usr/bin/python3");
  return pythons;
}

/// The one pfmc would draw with: the first that imports matplotlib; empty when none does (CI
/// may or may not have python3-matplotlib).
std::string python_with_matplotlib() {
  for (const auto& python : plot_pythons()) {
    if (exit_status_of(python + " -c 'import matplotlib'") == 0)
      return python;
  }
  return {};
}

/// Any that runs: the script checks its arguments and the CSV before it imports matplotlib.
std::string any_python() {
  for (const auto& python : plot_pythons()) {
    if (exit_status_of(python + " -c pass") == 0)
      return python;
  }
  return {};
}

bool starts_with_png_signature(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(8, '\0');
  in.read(head.data(), 8);
  return in && head == "\x89PNG\r\n\x1a\n";
}

/// Width and height from the PNG's IHDR chunk (big-endian, bytes 16..23).
std::pair<unsigned, unsigned> png_size(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char head[24] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const auto at = [&](int i) {
    return (unsigned{head[i]} << 24) | (unsigned{head[i + 1]} << 16) |
           (unsigned{head[i + 2]} << 8) | unsigned{head[i + 3]};
  };
  return {at(16), at(20)};
}

// Two groups as `pfmc bench --csv` writes them: `none` and `inline` (no distance), a backend
// with a distance, and one with a shared-memory ring at every padding.
const std::string kSweepCsv =
    "model,steps,backend,prefetch_distance,padding,median_ms,min_ms,max_ms,speedup,gbps,"
    "copy_fraction,generation_ms,total_ms,total_speedup\n"
    "bs,12,none,0,auto,2,2,2,1,10,0.1,0.5,2.5,1\n"
    "bs,12,inline,0,auto,1.5,1.5,1.5,1.33,0,0,0,1.5,1.66\n"
    "bs,12,unroll,2,auto,1.8,1.8,1.8,1.11,11,0.11,0.5,2.3,1.08\n"
    "bs,12,unroll,4,auto,1.6,1.6,1.6,1.25,12,0.12,0.5,2.1,1.19\n"
    "bs,12,smem_batched,4,auto,1.7,1.7,1.7,1.18,12,0.12,0.5,2.2,1.14\n"
    "bs,12,smem_batched,4,none,1.9,1.9,1.9,1.05,11,0.11,0.5,2.4,1.04\n"
    "bs,12,smem_batched,4,slot_major,1.7,1.7,1.7,1.18,12,0.12,0.5,2.2,1.14\n"
    "heston,252,none,0,auto,20,20,20,1,10,0.1,5,25,1\n"
    "heston,252,unroll,2,auto,18,18,18,1.11,11,0.11,5,23,1.09\n"
    "heston,252,unroll,4,auto,16,16,16,1.25,12,0.12,5,21,1.19\n";

TEST_F(Cli, PlotScriptSaysWhatIsWrongWithItsInput) {
  const std::string python = any_python();
  if (python.empty())
    GTEST_SKIP() << "no Python 3 here";
  const std::string script = python + " " + kPlotScript + " ";
  auto r = run_command(script + "--help");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--output"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("python3-matplotlib"), std::string::npos) << r.out;

  const std::string png = path("plot.png");
  r = run_command(script + path("absent.csv") + " --output " + png);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(path("absent.csv") + ": cannot read"), std::string::npos) << r.out;

  const std::string no_speedup = write("no_speedup.csv", "model,steps,backend\nbs,12,none\n");
  r = run_command(script + no_speedup + " --output " + png);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(no_speedup + ":1: missing columns prefetch_distance, padding, speedup"),
            std::string::npos)
      << r.out;

  std::string bad_number = kSweepCsv;
  bad_number.replace(bad_number.find("bs,12,inline"), 5, "bs,x");
  const std::string bad = write("bad.csv", bad_number);
  r = run_command(script + bad + " --output " + png);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(bad + ":3: steps: 'x' is not a number"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(png));
}

TEST_F(Cli, PlotScriptDrawsOnePanelPerGroup) {
  const std::string python = python_with_matplotlib();
  if (python.empty())
    GTEST_SKIP() << "no Python with matplotlib (sudo apt-get install python3-matplotlib)";
  const std::string png = path("plot.png");
  auto r = run_command(python + " " + kPlotScript + " " + write("sweep.csv", kSweepCsv) +
                       " --output " + png);
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_TRUE(starts_with_png_signature(png));
  EXPECT_EQ(png_size(png), std::make_pair(900u, 2u * 560u)); // 900 x 560 pixels a panel
  // A CSV of an older pfmc (no generation columns): bench/results/.
  r = run_command(python + " " + kPlotScript + " " + PFMC_SOURCE_DIR +
                  "/bench/results/bench_latency_bound.csv --output " + png);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(starts_with_png_signature(png));
  EXPECT_EQ(png_size(png), std::make_pair(900u, 560u));
}

TEST_F(Cli, BenchPlotDrawsThePngOrSaysHowToGetMatplotlib) {
  if (!have_gpu())
    GTEST_SKIP() << "bench needs a GPU: " << pfmc::engine::query_device().unavailable_reason;
  std::string gpu = kSmall;
  gpu.replace(gpu.find("{device: cpu}"), 13, "{device: gpu}");
  const std::string csv = path("sweep.csv"), png = path("sweep.png");
  const std::string bench = "bench " + write("gpu.yaml", gpu) +
                            " --quiet --backends unroll --distances 2,4 --repeat 1 --plot " + png;
  // With --csv the plot is drawn from that file; without, from a temporary one.
  for (const std::string& extra : {" --csv " + csv, std::string()}) {
    fs::remove(png);
    const auto r = run(bench + extra);
    EXPECT_NE(r.out.find("configuration"), std::string::npos) << r.out; // the table
    if (!extra.empty()) {
      std::ifstream in(csv);
      std::string header;
      std::getline(in, header);
      EXPECT_EQ(header.rfind("model,steps,backend,prefetch_distance,padding,", 0), 0u) << header;
    }
    if (python_with_matplotlib().empty()) {
      EXPECT_EQ(r.status, 1) << r.out;
      EXPECT_NE(r.out.find("no plot written to " + png), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("sudo apt-get install python3-matplotlib"), std::string::npos) << r.out;
      EXPECT_FALSE(fs::exists(png));
    } else {
      EXPECT_EQ(r.status, 0) << r.out;
      EXPECT_TRUE(starts_with_png_signature(png)) << r.out;
    }
  }
}

TEST_F(Cli, CalibrateFitsSsviAndPlotsEachSmile) {
  // The shipped smile's quotes are an SSVI surface's vols rounded to 0.01 vol points
  // (scripts/make-smile-quotes.py): the fit's rms error is at most the rounding's half-width
  // (0.005), and a quote's error at most that half-width plus as much again for the fitted
  // parameters' own move under the rounding; its smiles are drawn at 61 strikes an expiry.
  const std::string smile = std::string(PFMC_SOURCE_DIR) + "/config/examples/smile.yaml";
  auto r = run("calibrate " + smile + " --model spx_heston --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_LE(j["ssvi"]["rmse_vol_points"].get<double>(), 0.005) << j["ssvi"].dump();
  ASSERT_EQ(j["ssvi"]["smiles"].size(), 5u);
  for (const auto& s : j["ssvi"]["smiles"]) {
    ASSERT_EQ(s["strikes"].size(), 61u);
    // Its ends are the expiry's lowest and highest quotes: there the curve is the fit's vol.
    for (const auto& q : j["quotes"]) {
      for (const std::size_t end : {std::size_t{0}, std::size_t{60}}) {
        if (q["expiry"] == s["expiry"] && q["strike"] == s["strikes"][end])
          EXPECT_NEAR(s["vols"][end].get<double>(), q["ssvi"].get<double>(), 1e-12) << q.dump();
      }
    }
  }
  for (const auto& q : j["quotes"])
    EXPECT_LE(std::abs(q["ssvi_error_vol_points"].get<double>()), 0.0105) << q.dump();
  const std::string png = path("smiles.png");
  r = run("calibrate " + smile + " --model spx_heston --plot " + png);
  if (python_with_matplotlib().empty()) {
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("--plot needs matplotlib"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(starts_with_png_signature(png)) << r.out;
  }
}

// The PNG goes through pfmc's one writer as every other output: a link is followed and kept (the
// script's own save had replaced the link with a file), and no temporary is left beside it.
TEST_F(Cli, PlotFollowsALinkAndLeavesNoTemporary) {
  const std::string python = python_with_matplotlib();
  if (python.empty())
    GTEST_SKIP() << "no Python with matplotlib";
  std::ifstream in(std::string(PFMC_SOURCE_DIR) + "/bench/results/bench_latency_bound.csv");
  std::stringstream csv;
  csv << in.rdbuf();
  fs::create_directories(path("charts"));
  const std::string target = path("charts/latency.png"), link = path("latency.png");
  fs::create_symlink(target, link);
  pfmc::apps::draw_sweep_plot(python, link, "", csv.str());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(starts_with_png_signature(target));
  EXPECT_EQ(png_size(target), std::make_pair(900u, 560u));
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(path("charts")))
    left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"latency.png"});
}

TEST_F(Cli, ExamplePortfolioPricesOnTheCpu) {
  const auto r = run("price " + kExample + " --device cpu --paths 2000 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["instruments"].size(), 10u);
  // The JSON holds the library's bits for the same run (doubles round-trip), instrument by
  // instrument and for the portfolio.
  auto config = pfmc::config::load_run_config(kExample);
  config.simulation.paths = 2000;
  config.engine.device = pfmc::config::DeviceChoice::cpu;
  const auto expected = pfmc::engine::price(config);
  ASSERT_EQ(j["instruments"].size(), expected.instruments.size());
  for (std::size_t k = 0; k < expected.instruments.size(); ++k) {
    const auto& in = j["instruments"][k];
    EXPECT_EQ(in["id"], expected.instruments[k].id);
    EXPECT_EQ(in["price"].get<double>(), expected.instruments[k].price) << in["id"];
    EXPECT_EQ(in["std_error"].get<double>(), expected.instruments[k].std_error) << in["id"];
  }
  EXPECT_EQ(j["portfolio"]["value"].get<double>(), expected.portfolio.value);
}

} // namespace
