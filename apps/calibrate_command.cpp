// `pfmc calibrate CONFIG --model NAME`: a Heston model of the config fitted to its underlying's
// implied-vol quotes (market.implied_vols; engine/market/heston_calibration.hpp), the fit and
// each quote's error printed, the fitted model block written where --output says.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "apps/cli.hpp"
#include "base/atomic_file.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/market/arbitrage.hpp"
#include "engine/market/heston_calibration.hpp"

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
         ", v0: " + number(p.v0) + ", kappa: " + number(p.kappa) + ", theta: " +
         number(p.theta) + ", xi: " + number(p.xi) + ", rho: " + number(p.rho) +
         ", scheme: " + config::to_string(p.scheme) + "}\n";
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
  return calibrate;
}

int command_calibrate(const CalibrateOptions& o) {
  const config::RunConfig config = config::load_run_config(o.config_file);
  const auto model = std::find_if(config.models.begin(), config.models.end(),
                                  [&](const config::ModelConfig& m) { return m.name == o.model; });
  std::string names;
  for (const auto& m : config.models)
    names += (names.empty() ? "" : ", ") + m.name;
  if (model == config.models.end())
    throw config::ConfigError(config.file, {}, "models",
                              "no model named '" + o.model + "' (the config has: " + names + ")");
  if (model->type != config::ModelType::heston)
    throw config::ConfigError(config.file, model->mark, "models." + o.model,
                              "is a " + std::string(config::to_string(model->type)) +
                                  " model: `pfmc calibrate` fits heston models");
  const auto quotes =
      std::find_if(config.market.implied_vols.begin(), config.market.implied_vols.end(),
                   [&](const config::ImpliedVols& q) { return q.underlying == model->underlying; });
  if (quotes == config.market.implied_vols.end())
    throw config::ConfigError(config.file, model->mark, "models." + o.model,
                              "its underlying '" + model->underlying +
                                  "' has no quotes in market.implied_vols");
  const config::Underlying& underlying =
      config.market.underlyings[static_cast<std::size_t>(model->underlying_index)];
  market::QuoteMarket on;
  on.spot = underlying.spot;
  on.dividend_yield = underlying.dividend_yield;
  on.zero_rates = config.market.zero_rates;
  std::vector<market::VolQuote> fitted_to;
  for (const auto& q : quotes->quotes)
    fitted_to.push_back({q.expiry, q.strike, q.vol});
  market::HestonCalibrationOptions options;
  options.start = model->heston; // the config's parameters are the first guess
  options.impose_feller = o.feller;

  // The quotes' static arbitrage first: a model cannot fit it, and the user should know whose.
  const auto violations = market::find_arbitrage(fitted_to, on);
  std::ostringstream checks;
  if (violations.empty())
    checks << "quotes: no calendar, butterfly or vertical-spread arbitrage\n";
  for (const auto& v : violations) {
    checks << "quotes: " << market::to_string(v.kind) << " arbitrage: " << v.what << " (lines";
    for (const std::size_t i : v.quotes)
      checks << " " << quotes->quotes[i].mark.line;
    checks << ")\n";
  }

  const auto start = std::chrono::steady_clock::now();
  const market::HestonCalibration fit = market::calibrate_heston(fitted_to, on, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const auto& p = fit.parameters;
  std::ostringstream out;
  out << "calibrate: heston model '" << model->name << "' of " << model->underlying << " to "
      << fitted_to.size() << " quotes (" << quotes->file << ")"
      << (o.feller ? ", Feller imposed" : "") << "\n"
      << checks.str();
  char line[256];
  std::snprintf(line, sizeof line,
                "fit: v0 %.6g, kappa %.6g, theta %.6g, xi %.6g, rho %.6g; Feller (2 kappa theta "
                ">= xi^2): %s (%.4g %s %.4g)\n",
                p.v0, p.kappa, p.theta, p.xi, p.rho, fit.feller() ? "holds" : "does not hold",
                2.0 * p.kappa * p.theta, fit.feller() ? ">=" : "<", p.xi * p.xi);
  out << line;
  std::snprintf(line, sizeof line,
                "error: %.4g vol points root mean square, %.4g at most; %d evaluations in %.3f "
                "s (%s)\n\n",
                fit.rmse_vol_points, fit.max_error_vol_points, fit.evaluations, seconds,
                fit.stop.c_str());
  out << line;
  out << "  expiry    strike   quote %   model %   error (vol points)   line\n";
  for (std::size_t i = 0; i < fitted_to.size(); ++i) {
    const auto& q = quotes->quotes[i];
    std::snprintf(line, sizeof line, "  %6.4g  %8.6g  %8.4f  %8.4f  %19.4f   %d\n", q.expiry,
                  q.strike, 100.0 * q.vol, 100.0 * fit.model_vols[i],
                  100.0 * (fit.model_vols[i] - q.vol), q.mark.line);
    out << line;
  }
  const std::string block = model_block(*model, p);
  out << "\nthe fitted model, for the config's models:\n" << block;
  std::cout << out.str();
  if (!o.output.empty())
    base::write_file_atomically(o.output, "models:\n" + block);
  return 0;
}

} // namespace pfmc::apps
