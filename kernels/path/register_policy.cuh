#pragma once
// A path kernel's register cap: its loader's budget, its model's floor, or a variant's own.

namespace pfmc::kernels {

template <class Model>
constexpr auto requires_register_floor(int) -> decltype(Model::register_floor, bool()) {
  return true;
}
template <class Model>
constexpr bool requires_register_floor(...) {
  return false;
}

/// A model may ask for more registers than a loader's budget (Model::register_floor): Heston in
/// double spilled 380 bytes a thread at the 40-register budget of `none` (its floor 64: a
/// 1024-thread block still launches); the pathwise Greeks' models take 128 (blocks of at most 512
/// threads, engine/run/run_setup.cpp checks the setting).
template <class Model>
constexpr int model_register_floor() {
  if constexpr (requires_register_floor<Model>(0))
    return Model::register_floor;
  return 0;
}

/// A path kernel's register cap: its loader's budget or its model's floor, whichever is larger.
/// A diagnostic build sets every kernel's cap instead (CMake PFMC_REGISTER_CAP, e.g. 255: the
/// registers ptxas takes where nothing holds it back, so what each kernel's spills are the
/// price of; scripts/spill-causes.py); its kernels cannot launch 1024-thread blocks.
template <class Model, class Loader, int Registers = 0>
constexpr int register_cap() {
#ifdef PFMC_REGISTER_CAP
  return PFMC_REGISTER_CAP;
#else
  if constexpr (Registers > 0)
    return Registers;
  return Loader::register_budget > model_register_floor<Model>() ? Loader::register_budget
                                                                 : model_register_floor<Model>();
#endif
}

} // namespace pfmc::kernels
