// `pfmc calibrate CONFIG --model NAME`: a Heston model of the config fitted to its underlying's
// implied-vol quotes (market.implied_vols; engine/market/heston_calibration.hpp), the fit and
// each quote's error printed, the fitted model block written where --output says.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/cli.hpp"
#include "apps/sweep_plot.hpp"
#include "base/atomic_file.hpp"
#include "base/error.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/market/arbitrage.hpp"
#include "engine/market/heston_calibration.hpp"
#include "engine/market/ssvi.hpp"

namespace pfmc::apps {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

/// The fitted model as the config's `models:` list holds it.
std::string model_block(const config::ModelConfig& model, const config::HestonParameters& p) {
  return "  - {name: " + model.name + ", type: heston, underlying: " + model.underlying +
         ", v0: " + number(p.v0) + ", kappa: " + number(p.kappa) + ", theta: " + number(p.theta) +
         ", xi: " + number(p.xi) + ", rho: " + number(p.rho) +
         ", scheme: " + config::to_string(p.scheme) + "}\n";
}

/// Strikes a smile's curve is drawn at: evenly between the expiry's lowest and highest quoted
/// strikes.
constexpr int kSmilePoints = 61;

/// The SSVI surface fitted to the quotes (engine/market/ssvi.hpp): its parameters, its error,
/// and each quoted expiry's smile at kSmilePoints strikes, for the report and its plot; null
/// where the quotes are too few for its parameters.
nlohmann::json ssvi_report(const std::vector<market::VolQuote>& quotes,
                           const market::QuoteMarket& on, market::SsviFit& fit) {
  try {
    fit = market::fit_ssvi(quotes, on);
  } catch (const std::invalid_argument& e) {
    return {{"error", e.what()}};
  }
  const market::SsviSurface& surface = fit.surface;
  nlohmann::json r = {{"rho", surface.rho},
                      {"eta", surface.eta},
                      {"gamma", surface.gamma},
                      {"expiries", surface.expiries},
                      {"theta", surface.theta},
                      {"rmse_vol_points", fit.rmse_vol_points},
                      {"max_error_vol_points", fit.max_error_vol_points},
                      {"evaluations", fit.evaluations},
                      {"smiles", nlohmann::json::array()}};
  for (const double T : surface.expiries) {
    double low = 0.0, high = 0.0;
    for (const auto& q : quotes) {
      if (q.expiry != T)
        continue;
      low = low == 0.0 ? q.strike : std::min(low, q.strike);
      high = std::max(high, q.strike);
    }
    const double forward = market::forward_of(on, T);
    nlohmann::json strikes = nlohmann::json::array(), vols = nlohmann::json::array();
    for (int i = 0; i < kSmilePoints; ++i) {
      const double K = low + (high - low) * i / (kSmilePoints - 1);
      strikes.push_back(K);
      vols.push_back(surface.vol(T, std::log(K / forward)));
    }
    r["smiles"].push_back({{"expiry", T}, {"strikes", strikes}, {"vols", vols}});
  }
  return r;
}

} // namespace

CLI::App* add_calibrate_command(CLI::App& app, CalibrateOptions& options, const char* config_help,
                                const char* version) {
  auto* calibrate = app.add_subcommand(
      "calibrate", "fit a heston model of CONFIG to its underlying's implied-vol quotes "
                   "(market.implied_vols); print the quotes' arbitrage checks, the fit and each "
                   "quote's error");
  calibrate->set_version_flag("--version", version);
  calibrate->add_option("config", options.config_file, config_help)->required();
  calibrate
      ->add_option("--model", options.model,
                   "the heston model to fit (its parameters are the first guess)")
      ->required();
  calibrate->add_flag("--feller", options.feller,
                      "impose the Feller condition 2 kappa theta >= xi^2 (else only reported)");
  calibrate->add_option("--output,-o", options.output,
                        "write the fitted model block (YAML) to this file");
  calibrate->add_option("--format", options.format, "table | json")
      ->check(CLI::IsMember({"table", "json"}));
  calibrate->add_option("--plot", options.plot,
                        "write a PNG of each expiry's smile: the quotes, the SSVI surface fitted "
                        "to them and the Heston fit (drawn by bench/plot_smiles.py with "
                        "matplotlib)");
  return calibrate;
}

nlohmann::json calibration_report(const config::RunConfig& config, const std::string& name,
                                  bool feller) {
  const auto model = std::find_if(config.models.begin(), config.models.end(),
                                  [&](const config::ModelConfig& m) { return m.name == name; });
  std::string names;
  for (const auto& m : config.models)
    names += (names.empty() ? "" : ", ") + m.name;
  if (model == config.models.end())
    throw config::ConfigError(config.file, {}, "models",
                              "no model named '" + name + "' (the config has: " + names + ")");
  if (model->type != config::ModelType::heston)
    throw config::ConfigError(config.file, model->mark, "models." + name,
                              "is a " + std::string(config::to_string(model->type)) +
                                  " model: `pfmc calibrate` fits heston models");
  const auto quotes =
      std::find_if(config.market.implied_vols.begin(), config.market.implied_vols.end(),
                   [&](const config::ImpliedVols& q) { return q.underlying == model->underlying; });
  if (quotes == config.market.implied_vols.end())
    throw config::ConfigError(config.file, model->mark, "models." + name,
                              "its underlying '" + model->underlying +
                                  "' has no quotes in market.implied_vols");
  const config::Underlying& underlying =
      config.market.underlyings[static_cast<std::size_t>(model->underlying_index)];
  const market::QuoteMarket on = market::quote_market(underlying, config.market.zero_rates);
  const std::vector<market::VolQuote> fitted_to = market::vol_quotes(*quotes, on);

  nlohmann::json report;
  report["model"] = model->name;
  report["underlying"] = model->underlying;
  report["quotes_file"] = quotes->file;
  report["quotes_by"] = config::to_string(quotes->coordinate); // strike, log_moneyness, delta
  report["feller_imposed"] = feller;
  // The quotes' static arbitrage first: a model cannot fit it, and the user should know whose.
  report["arbitrage"] = nlohmann::json::array();
  for (const auto& v : market::find_arbitrage(fitted_to, on)) {
    nlohmann::json lines = nlohmann::json::array();
    for (const std::size_t i : v.quotes)
      lines.push_back(quotes->quotes[i].mark.line);
    report["arbitrage"].push_back(
        {{"kind", market::to_string(v.kind)}, {"what", v.what}, {"lines", lines}});
  }
  market::HestonCalibrationOptions options;
  options.start = model->heston; // the config's parameters are the first guess
  options.impose_feller = feller;
  const auto start = std::chrono::steady_clock::now();
  const market::HestonCalibration fit = market::calibrate_heston(fitted_to, on, options);
  const auto& p = fit.parameters;
  report["seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report["parameters"] = {
      {"v0", p.v0}, {"kappa", p.kappa}, {"theta", p.theta}, {"xi", p.xi}, {"rho", p.rho}};
  report["feller"] = fit.feller();
  report["rmse_vol_points"] = fit.rmse_vol_points;
  report["max_error_vol_points"] = fit.max_error_vol_points;
  report["evaluations"] = fit.evaluations;
  report["stop"] = fit.stop;
  market::SsviFit ssvi;
  report["ssvi"] = ssvi_report(fitted_to, on, ssvi);
  report["quotes"] = nlohmann::json::array();
  for (std::size_t i = 0; i < fitted_to.size(); ++i) {
    const auto& q = quotes->quotes[i];
    nlohmann::json quote = {{"expiry", q.expiry},
                            {"strike", fitted_to[i].strike},
                            {"quote", q.vol},
                            {"model", fit.model_vols[i]},
                            {"error_vol_points", 100.0 * (fit.model_vols[i] - q.vol)},
                            {"line", q.mark.line}};
    if (i < ssvi.model_vols.size()) {
      quote["ssvi"] = ssvi.model_vols[i];
      quote["ssvi_error_vol_points"] = 100.0 * (ssvi.model_vols[i] - q.vol);
    }
    report["quotes"].push_back(std::move(quote));
  }
  report["model_block"] = model_block(*model, p);
  return report;
}

int command_calibrate(const CalibrateOptions& o) {
  // Without a Python that draws, say so before the fit, not after it.
  const std::optional<std::string> python = o.plot.empty() ? std::nullopt : find_plot_python();
  if (!o.plot.empty() && !python)
    throw RuntimeError(std::string("--plot needs matplotlib: ") + kPlotInstallHint + " (tried " +
                       kPlotPythons + ")");
  const config::RunConfig config = config::load_run_config(o.config_file);
  const nlohmann::json r = calibration_report(config, o.model, o.feller);
  if (o.format == "json") {
    std::cout << r.dump(2) << "\n";
  } else {
    std::ostringstream out;
    out << "calibrate: heston model '" << r["model"].get<std::string>() << "' of "
        << r["underlying"].get<std::string>() << " to " << r["quotes"].size() << " quotes ("
        << r["quotes_file"].get<std::string>() << ")" << (o.feller ? ", Feller imposed" : "")
        << "\n";
    if (r["arbitrage"].empty())
      out << "quotes: no calendar, butterfly or vertical-spread arbitrage\n";
    for (const auto& v : r["arbitrage"]) {
      out << "quotes: " << v["kind"].get<std::string>()
          << " arbitrage: " << v["what"].get<std::string>() << " (lines";
      for (const auto& line : v["lines"])
        out << " " << line.get<int>();
      out << ")\n";
    }
    const auto& p = r["parameters"];
    const double kappa = p["kappa"], theta = p["theta"], xi = p["xi"];
    char line[256];
    std::snprintf(line, sizeof line,
                  "fit: v0 %.6g, kappa %.6g, theta %.6g, xi %.6g, rho %.6g; Feller (2 kappa "
                  "theta >= xi^2): %s (%.4g %s %.4g)\n",
                  p["v0"].get<double>(), kappa, theta, xi, p["rho"].get<double>(),
                  r["feller"].get<bool>() ? "holds" : "does not hold", 2.0 * kappa * theta,
                  r["feller"].get<bool>() ? ">=" : "<", xi * xi);
    out << line;
    std::snprintf(line, sizeof line,
                  "error: %.4g vol points root mean square, %.4g at most; %d evaluations in "
                  "%.3f s (%s)\n\n",
                  r["rmse_vol_points"].get<double>(), r["max_error_vol_points"].get<double>(),
                  r["evaluations"].get<int>(), r["seconds"].get<double>(),
                  r["stop"].get<std::string>().c_str());
    out << line;
    const auto& ssvi = r["ssvi"];
    if (ssvi.contains("rho")) {
      std::snprintf(line, sizeof line,
                    "ssvi: rho %.6g, eta %.6g, gamma %.6g; error %.4g vol points root mean "
                    "square, %.4g at most\n\n",
                    ssvi["rho"].get<double>(), ssvi["eta"].get<double>(),
                    ssvi["gamma"].get<double>(), ssvi["rmse_vol_points"].get<double>(),
                    ssvi["max_error_vol_points"].get<double>());
      out << line;
    }
    out << "  expiry    strike   quote %   heston %   error (vol points)   ssvi %   ssvi error"
           "   line\n";
    for (const auto& q : r["quotes"]) {
      std::snprintf(line, sizeof line, "  %6.4g  %8.6g  %8.4f  %9.4f  %19.4f  %7.4f  %11.4f   %d\n",
                    q["expiry"].get<double>(), q["strike"].get<double>(),
                    100.0 * q["quote"].get<double>(), 100.0 * q["model"].get<double>(),
                    q["error_vol_points"].get<double>(), 100.0 * q.value("ssvi", 0.0),
                    q.value("ssvi_error_vol_points", 0.0), q["line"].get<int>());
      out << line;
    }
    out << "\nthe fitted model, for the config's models:\n" << r["model_block"].get<std::string>();
    std::cout << out.str();
  }
  if (!o.output.empty())
    base::write_file_atomically(o.output, "models:\n" + r["model_block"].get<std::string>());
  if (python)
    draw_plot(*python, "plot_smiles.py", o.plot, "", r.dump(), ".json");
  return 0;
}

} // namespace pfmc::apps
