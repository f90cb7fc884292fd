// The options that override a config, shared by `price`, `validate`, `bench` and `tune`.
#include "apps/cli.hpp"
#include "config/setting_rules.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::apps {

void add_override_options(CLI::App* app, RunOptions& o) {
  app->add_option("--device", o.device, "auto | gpu | cpu (overrides engine.device)");
  app->add_option(
      "--devices", o.devices,
      "GPUs to split the paths over: all | N (the first N) | 0,2 (ordinals; 2, is device 2 alone; "
      "overrides engine.devices)");
  app->add_option("--backend", o.backend, "prefetch backend (see `pfmc backends`)");
  app->add_option("--prefetch-distance", o.prefetch_distance,
                  "steps ahead for prefetching backends: " + kernels::prefetch_distance_list());
  app->add_option("--padding", o.padding,
                  "shared-memory ring padding: auto | none | slot_major | N");
  app->add_option("--paths", o.paths, "number of Monte Carlo paths");
  app->add_option("--seed", o.seed, "random seed");
  app->add_option("--precision", o.precision, "double | float");
  app->add_option("--rng", o.rng, "philox | mrg32k3a | sobol | scrambled_sobol");
  app->add_option("--math", o.math,
                  "math profile: accurate (default; Philox4x32-10, accurate transcendentals) or "
                  "fast (opt-in: Philox4x32-7 and the hardware's approximate exp/log in float; "
                  "see README 'Math profiles')");
  app->add_option("--greeks-method", o.greeks_method,
                  "how Greeks are estimated: auto (default: pathwise where every instrument of a "
                  "model's group allows it, else bump; bump for a full-truncation Heston model's "
                  "vega and theta), bump (bump-and-revalue on common random numbers), pathwise "
                  "(forward tangents on every model, a digital's or a knock's jump smoothed, "
                  "early exercise's rule held fixed; refused where an instrument that exercises "
                  "early is asked for gamma)");
  app->add_option("--block-size", o.block_size, "threads per block: a power of two in 32..1024");
  app->add_option("--max-device-memory", o.max_device_memory,
                  "cap on device memory for draws and partial sums, e.g. 4GiB");
  app->add_option("--cpu-threads", o.cpu_threads, "CPU backend threads (0 = all)");
  app->add_option("--draw-batch-size", o.draw_batch_size,
                  "groups whose draws fit share a generation call and a launch up to this size "
                  "(e.g. 256MiB; 0: none)");
  app->add_option("--greeks", o.greeks,
                  "Greeks to report, comma-separated (" + config::greek_spellings() +
                      "), or none (overrides simulation.greeks)");
  app->add_flag("--antithetic", o.antithetic, "antithetic pairs (z, -z); paths must be even");
  app->add_flag("--control-variate", o.control_variate,
                "control variates: geometric Asian for arithmetic Asians, discounted terminal "
                "spot for Europeans");
  app->add_option("--replicates", o.replicates,
                  "randomisations of a scrambled_sobol run, 1..1024 (paths must split evenly)");
  app->add_option("--regression-paths", o.regression_paths,
                  "early exercise: paths of the Longstaff-Schwartz regression (0: as many as "
                  "--paths)");
}

config::Overrides overrides_from(CLI::App* app, const RunOptions& o) {
  config::Overrides ov;
  auto given = [&](const char* flag) { return app->get_option(flag)->count() > 0; };
  if (given("--device"))
    ov.device = o.device;
  if (given("--devices"))
    ov.devices = o.devices;
  if (given("--backend"))
    ov.backend = o.backend;
  if (given("--padding"))
    ov.padding = o.padding;
  if (given("--precision"))
    ov.precision = o.precision;
  if (given("--rng"))
    ov.rng = o.rng;
  if (given("--math"))
    ov.math = o.math;
  if (given("--greeks-method"))
    ov.greeks_method = o.greeks_method;
  if (given("--prefetch-distance"))
    ov.prefetch_distance = o.prefetch_distance;
  if (given("--block-size"))
    ov.block_size = o.block_size;
  if (given("--cpu-threads"))
    ov.cpu_threads = o.cpu_threads;
  if (given("--paths"))
    ov.paths = o.paths;
  if (given("--seed"))
    ov.seed = o.seed;
  if (given("--draw-batch-size"))
    ov.draw_batch_size = o.draw_batch_size;
  if (given("--max-device-memory"))
    ov.max_device_memory = o.max_device_memory;
  if (given("--replicates"))
    ov.replicates = o.replicates;
  if (given("--regression-paths"))
    ov.regression_paths = o.regression_paths;
  if (given("--greeks"))
    ov.greeks = o.greeks;
  if (given("--antithetic"))
    ov.antithetic = true;
  if (given("--control-variate"))
    ov.control_variate = true;
  return ov;
}

} // namespace pfmc::apps
