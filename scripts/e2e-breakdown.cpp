// Breakdown of one warm end-to-end price of a config: load, plan, price (GPU).
#include "config/load_config.hpp"
#include "engine/plan.hpp"
#include "engine/pricer.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
int main(int argc, char** argv) {
  using C = std::chrono::steady_clock;
  auto ms = [](C::time_point a, C::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  const char* file = argc > 1 ? argv[1] : "config/examples/portfolio.yaml";
  auto c0 = pfmc::config::load_run_config(file);
  (void)pfmc::engine::price(c0);
  double ml = 1e9, mp = 1e9, mr = 1e9;
  for (int i = 0; i < 8; ++i) {
    auto t0 = C::now();
    auto c = pfmc::config::load_run_config(file);
    auto t1 = C::now();
    auto p = pfmc::engine::make_plan(c);
    auto t2 = C::now();
    auto r = pfmc::engine::price(c);
    auto t3 = C::now();
    ml = std::min(ml, ms(t0, t1));
    mp = std::min(mp, ms(t1, t2));
    mr = std::min(mr, ms(t2, t3));
    std::printf("load %.1f plan %.1f price %.1f (kernel %.2f rng %.2f total_ms %.1f)\n", ms(t0, t1),
                ms(t1, t2), ms(t2, t3), r.run.kernel_ms, r.run.rng_ms, r.run.total_ms);
  }
  std::printf("min: load %.1f ms, plan %.1f ms, price %.1f ms\n", ml, mp, mr);
}
