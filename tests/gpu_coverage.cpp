#include "gpu_coverage.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "kernels/catalog.hpp"

namespace pfmc::testing::coverage {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}
bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Every backend a run may name but `none` (the comparisons' baseline) and the bench-only one.
std::vector<const kernels::BackendInfo*> compared_backends() {
  std::vector<const kernels::BackendInfo*> out;
  for (const auto& b : kernels::backend_catalog()) {
    if (std::string(b.name) != "none" && !b.bench_only)
      out.push_back(&b);
  }
  return out;
}

/// `backends` at each of `distances` (a loader without a compile-time distance once, at 4).
void add_cases(std::vector<LoaderCase>& out, const std::string& entry,
               const std::vector<std::string>& backends, const std::vector<int>& distances) {
  for (const auto& name : backends) {
    const auto* info = kernels::find_backend(name);
    if (info == nullptr)
      throw std::logic_error("tests/gpu_coverage.cpp names an unknown backend: " + name);
    if (!info->uses_prefetch_distance) {
      out.push_back({entry, name, 4});
      continue;
    }
    for (int d : distances)
      out.push_back({entry, name, d});
  }
}

std::vector<std::string> every_backend() {
  std::vector<std::string> names;
  for (const auto* b : compared_backends())
    names.emplace_back(b->name);
  return names;
}

/// The model list's entries (the inventory's names), once each, in the list's order.
const std::vector<std::string>& entries() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& k : engine::kernel_inventory()) {
      if (std::find(out.begin(), out.end(), k.entry) == out.end())
        out.push_back(k.entry);
    }
    return out;
  }();
  return names;
}

bool is_fast(const std::string& e) {
  return ends_with(e, "_fast");
}
bool is_greeks(const std::string& e) {
  return starts_with(e, "greeks_");
}
bool is_pathwise(const std::string& e) {
  return starts_with(e, "pathwise_");
}
int assets_of(const std::string& e) {
  const auto at = e.find("multi");
  return at == std::string::npos ? 1 : e[at + 5] - '0';
}

/// The standard tier's cases of one entry. Why these are enough:
///  - A loader's work is to hand step s's draws to the path. What can make it hand the wrong ones
///    is the distance (its ring's index arithmetic, a batch cut short by the last step, fewer
///    steps than the distance), the element's size (4- or 8-byte copies, the ring's bytes), and
///    the draws a step holds (1 to 4 factors: the [step][factor][path] index). The model never
///    reaches into the loader: it reads draw k of the step, the same call on every loader.
///  - So every loader meets every distance on Black-Scholes in both precisions (one factor), and
///    every loader meets two factors in float (Heston) and in double at distance 8 (Heston),
///    three in double (basket3), four in float (basket4), and local vol's surface reads in
///    double, at distance 4.
///  - The other plain entries run their defaults (`inline`, scalar_batched 4) and one
///    shared-memory ring: what a model's own code could get wrong about its draws shows there.
///  - The Greeks' scenario entries (eight copies of a model on one path's draws) and the pathwise
///    entries (tangents carried beside the values) differ from their models in what they compute,
///    not in how they read: a register ring, a shared-memory cp.async ring and the TMA ring (the
///    Greeks'), and the draw-computing `inline`.
void standard_cases(const std::string& e, std::vector<LoaderCase>& out) {
  const std::vector<int> all(std::begin(kernels::kPrefetchDistances),
                             std::end(kernels::kPrefetchDistances));
  if (is_fast(e)) {
    // The fast profile's draws (Philox4x32-7) on every loader at 4 in float, its target; the
    // double kernels' defaults.
    if (e == "black_scholes_f32_fast")
      add_cases(out, e, every_backend(), {4});
    else if (e == "black_scholes_f64_fast")
      add_cases(out, e, {"inline", "scalar_batched"}, {4});
    return;
  }
  if (is_greeks(e)) {
    if (assets_of(e) == 1)
      add_cases(out, e, {"inline", "scalar_batched", "smem_rolling_async", "tma"}, {4});
    return;
  }
  if (is_pathwise(e)) {
    // The register ring, and `inline` in float: on the baskets' pathwise models these are the
    // slowest kernels to compile (on the 2-core machine, 4 assets: scalar_batched 65 s in double,
    // `inline` 220 s in float; the whole standard list's longest), and each reads as it does on
    // the baskets' plain models and on the single-asset pathwise ones: the exhaustive tier's.
    const bool single = assets_of(e) == 1;
    if (!is_float(e))
      add_cases(out, e, {"inline", "smem_rolling_async"}, {4});
    else if (single)
      add_cases(out, e, {"inline"}, {4});
    if (single)
      add_cases(out, e, {"scalar_batched"}, {4});
    return;
  }
  if (e == "black_scholes_f64" || e == "black_scholes_f32") {
    add_cases(out, e, every_backend(), all);
  } else if (e == "heston_f32" || e == "local_vol_f64" || e == "multi3_f64" || e == "multi4_f32") {
    add_cases(out, e, every_backend(), {4});
  } else if (e == "heston_f64") {
    add_cases(out, e, every_backend(), {8});
  } else {
    add_cases(out, e, {"inline", "scalar_batched", "smem_rolling"}, {4});
  }
}

/// The exhaustive tier's: every loader at every distance the model list names for the entry
/// (kernels/model_list.cuh; the Greeks' at 4), the pathwise entries on every loader at 4 in double
/// and `inline` and scalar_batched in float, the fast profile's as in the standard tier.
void exhaustive_cases(const std::string& e, std::vector<LoaderCase>& out) {
  if (is_fast(e)) {
    standard_cases(e, out);
    return;
  }
  if (is_greeks(e)) {
    if (assets_of(e) == 1)
      add_cases(out, e, every_backend(), {4});
    return;
  }
  if (is_pathwise(e)) {
    if (is_float(e))
      add_cases(out, e, {"inline", "scalar_batched"}, {4});
    else
      add_cases(out, e, every_backend(), {4});
    return;
  }
  std::set<int> listed;
  for (const auto& k : engine::kernel_inventory()) {
    if (k.entry == e && k.tuned && k.distance > 0)
      listed.insert(k.distance);
  }
  add_cases(out, e, every_backend(), std::vector<int>(listed.begin(), listed.end()));
}

/// The inventory's kernel for a case (the narrow one; `wide`: its wide instantiation), or null.
const engine::KernelInfo* find_kernel(const std::vector<engine::KernelInfo>& inventory,
                                      const std::string& entry, const std::string& backend,
                                      int distance, bool wide, bool exercise = false) {
  for (const auto& k : inventory) {
    if (k.entry == entry && k.backend == backend && k.wide == wide && !k.terminal &&
        k.exercise == exercise && (k.distance == distance || k.distance == 0))
      return &k;
  }
  return nullptr;
}

/// A guess of a kernel's compile time, for the order alone (the longest first). On the 2-core
/// development machine: Black-Scholes kernels 2-3.5 s, Heston and local vol 2.5-12 s, the Greeks'
/// 12-23 s, basket kernels in double 15-43 s, a basket's float `inline` 62-79 s, pathwise
/// baskets 35-65 s in double, pathwise Heston's float `inline` 75 s (the registers' rings and
/// `inline`'s several paths a thread in float are unrolled).
double compile_weight(const engine::KernelInfo& k) {
  const std::string kind = model_kind(k.entry);
  const bool heavy_step = kind == "heston" || assets_of(k.entry) > 1;
  double w = kind == "heston" ? 2 : 2 * assets_of(k.entry) - (assets_of(k.entry) == 1);
  if (is_pathwise(k.entry))
    w *= 3;
  if (is_greeks(k.entry))
    w *= 5;
  if (is_float(k.entry) && k.backend == "inline")
    w *= heavy_step ? 6 : 3;
  if (k.backend == "unroll" || k.backend == "scalar_batched" || k.backend == "scalar_rolling" ||
      k.backend == "l2_hint_256b")
    w *= 1.0 + k.distance / 4.0;
  if (k.exercise)
    w *= 2;
  return w;
}

} // namespace

bool runs_inline(const std::string& entry) {
  if (tier() == Tier::exhaustive)
    return true;
  return !(is_pathwise(entry) && is_float(entry) && assets_of(entry) > 1);
}

std::string gpu_engine(const std::string& entry) {
  return runs_inline(entry) ? "{device: gpu}" : "{device: gpu, backend: none}";
}

Tier tier() {
  static const Tier t = [] {
    const char* value = std::getenv("PFMC_GPU_SUITE");
    const std::string v = value == nullptr ? "" : value;
    if (v.empty() || v == "standard")
      return Tier::standard;
    if (v == "exhaustive")
      return Tier::exhaustive;
    throw std::invalid_argument("PFMC_GPU_SUITE is '" + v + "': standard or exhaustive");
  }();
  return t;
}

std::string model_kind(const std::string& entry) {
  std::string e = entry;
  for (const char* prefix : {"greeks_", "pathwise_spot_vol_", "pathwise_"}) {
    if (starts_with(e, prefix)) {
      e = e.substr(std::string(prefix).size());
      break;
    }
  }
  if (is_fast(e))
    e = e.substr(0, e.size() - 5);
  e = e.substr(0, e.size() - 4); // _f32, _f64
  if (starts_with(e, "multi"))
    return "basket" + e.substr(5);
  return e;
}

bool is_float(const std::string& entry) {
  return entry.find("_f32") != std::string::npos;
}

std::vector<LoaderCase> loader_cases(bool (*select)(const std::string& entry)) {
  std::vector<LoaderCase> out;
  for (const auto& e : entries()) {
    if (!select(e))
      continue;
    if (tier() == Tier::exhaustive)
      exhaustive_cases(e, out);
    else
      standard_cases(e, out);
  }
  return out;
}

std::vector<LoaderCase> wide_cases() {
  // The same loader code under another register cap: every loader at 4 (the default distance),
  // the register and shared-memory rings at 6 and 8 too (exhaustive: every loader at 4, 6, 8).
  std::vector<LoaderCase> out;
  add_cases(out, "black_scholes_f64", every_backend(), {4});
  const std::vector<std::string> more =
      tier() == Tier::exhaustive ? every_backend()
                                 : std::vector<std::string>{"scalar_batched", "smem_rolling_async"};
  for (const auto& name : more) {
    if (kernels::find_backend(name)->uses_prefetch_distance)
      add_cases(out, "black_scholes_f64", {name}, {6, 8});
  }
  return out;
}

std::vector<engine::KernelInfo> suite_kernels() {
  const auto inventory = engine::kernel_inventory();
  std::vector<engine::KernelInfo> out;
  std::set<std::string> seen;
  const auto add = [&](const engine::KernelInfo* k, bool even_if_built_in = false) {
    if (k == nullptr || !seen.insert(k->name).second)
      return;
    out.push_back(*k);
    // The runtime-compile test loads the NVRTC twin of a kernel built in.
    if (even_if_built_in)
      out.back().ahead_of_time = false;
  };
  const auto require = [&](const std::string& entry, const std::string& backend, int distance,
                           bool wide, bool exercise = false) {
    const auto* k = find_kernel(inventory, entry, backend, distance, wide, exercise);
    if (k == nullptr && !wide)
      throw std::logic_error("tests/gpu_coverage.cpp: no kernel " + entry + " " + backend + " d" +
                             std::to_string(distance) + (exercise ? " (exercise)" : ""));
    return k;
  };
  // The identity cases, each with its wide kernel: a launch of one wave takes it (Black-Scholes
  // in double at 0, 4, 6 and 8).
  for (const auto& c : loader_cases([](const std::string&) { return true; })) {
    add(require(c.entry, c.backend, c.distance, false));
    add(require(c.entry, c.backend, c.distance, true));
  }
  for (const auto& c : wide_cases())
    add(require(c.entry, c.backend, c.distance, true));
  for (const auto& e : entries()) {
    // `auto`'s default with Philox draws, and the baseline (the fast profile's are not built in).
    if (runs_inline(e)) {
      add(require(e, "inline", 0, false));
      add(require(e, "inline", 0, true));
    }
    add(require(e, "none", 0, false));
    add(require(e, "none", 0, true));
    // Early exercise's kernels: the exercise suite's book has every single-asset model and a
    // two-asset basket, in both precisions, bumped and pathwise (first order, in double); the
    // references' in the fast profile.
    const std::string kind = model_kind(e);
    if (kind != "basket3" && kind != "basket4" && !(is_pathwise(e) && is_float(e)))
      add(require(e, "inline", 0, false, true));
  }
  // The runtime-compile test (tests/test_gpu_runtime.cpp): NVRTC's twins of built-in kernels.
  for (const char* e :
       {"black_scholes_f32", "black_scholes_f64", "heston_f32", "heston_f64", "local_vol_f32",
        "local_vol_f64", "multi3_f32", "multi3_f64", "greeks_heston_f64", "greeks_multi3_f64"}) {
    for (const auto& [backend, distance] :
         {std::pair<const char*, int>{"none", 0}, {"inline", 0}, {"scalar_batched", 8}})
      add(require(e, backend, distance, false), true);
  }
  add(require("black_scholes_f64", "inline", 0, false, true), true);
  add(require("black_scholes_f64", "scalar_batched", 8, true), true);
  // The terminal instantiations (one-step groups; tests/test_gpu_pricing.cpp).
  for (const auto& k : inventory) {
    if (k.terminal)
      add(&k);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return compile_weight(a) > compile_weight(b);
  });
  return out;
}

} // namespace pfmc::testing::coverage
