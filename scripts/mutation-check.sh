#!/usr/bin/env bash
# The mutation check (issue 33): plants, one at a time, the bugs the reference tests exist to
# catch into a copy of the tree, rebuilds the CPU suites there and runs them; a mutation is
# caught when at least one test fails. Prints which tests caught each one and exits 1 if any
# mutation survived (or did not build, or the unmutated copy fails).
#
#   scripts/mutation-check.sh [--only NAME,...] [WORK_DIR]   (default WORK_DIR: /tmp/pfmc-mutants)
#
# The copy is a CPU build (PFMC_KERNELS=none): the mutated code (models/, engine/plan/) is what
# the GPU kernels share, and the GPU suites run the same reference cases (test_gpu_references).
# About 25 minutes on 2 cores: a build, then per mutation an incremental rebuild and the
# test_engine_cpu suite (~35 s).
set -euo pipefail
cd "$(dirname "$0")/.."
only=""
case "${1:-}" in
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
--only) only="$2"; shift 2 ;;
esac
work="${1:-/tmp/pfmc-mutants}"
src="$work/src"
build="$work/build"
mkdir -p "$src" "$build"
# The tree as it is (tracked and untracked files that git does not ignore), every file newer than
# the copy's objects (a mutant's object must never stand for the original).
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$src" --touch
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DPFMC_KERNELS=none -DPFMC_BUILD_BENCH=OFF \
  -DPFMC_PYTHON=OFF -DPFMC_MPI=OFF >"$work/configure.log" 2>&1 || {
  echo "configure failed: $work/configure.log"; exit 1; }
build_suite() { cmake --build "$build" --target test_engine_cpu -j "$(nproc)" >"$work/build.log" 2>&1; }
run_suite() { # prints the failed tests' names, one a line (a crash is one too)
  # The reference cases first, in a process of their own: a mutation that makes another test
  # read out of bounds (a 3x5 surface read transposed) must not hide what they find.
  local part rc
  for part in '*ReferenceCases*' '-*ReferenceCases*'; do
    rc=0
    "$build/test_engine_cpu" --gtest_brief=1 --gtest_filter="$part" >"$work/test.log" 2>&1 || rc=$?
    { grep -E '^\[  FAILED  \] [A-Za-z]' "$work/test.log" || true; } |
      sed -E 's/^\[  FAILED  \] ([^ ,]+).*/\1/' |
      sed -E 's#^AllModels/ReferenceCases\.CpuMatchesEveryIndependentReference/#ReferenceCases/#'
    if [ $rc -ne 0 ] && ! grep -q '^\[  FAILED  \] [A-Za-z]' "$work/test.log"; then
      echo "test_engine_cpu($part)-ended-with-status-$rc"
    fi
  done | sort -u
}
echo "building the unmutated copy in $build ..."
build_suite || { echo "the unmutated copy does not build: $work/build.log"; exit 1; }
baseline=$(run_suite)
if [ -n "$baseline" ]; then
  echo "the unmutated copy fails already:"; echo "$baseline"; exit 1
fi

# name | file | text | its replacement (each text occurs exactly once in its file).
mutations=$(cat <<'EOF'
barrier_level_off_by_1pct|engine/plan/instruments.cpp|view.knock_level = std::log(instrument.barrier);|view.knock_level = std::log(instrument.barrier * 1.01);
monitoring_date_dropped|engine/plan/observations.cpp|const int id = add(kind, asset, steps(times));|const int id = add(kind, asset, [&] { auto s = steps(times); if (kind == models::ObservationKind::running_min || kind == models::ObservationKind::running_max) s.pop_back(); return s; }());
knock_direction_reversed|engine/plan/instruments.cpp|view.direction = down ? models::BarrierDirection::down : models::BarrierDirection::up;|view.direction = down ? models::BarrierDirection::up : models::BarrierDirection::down;
knock_in_and_out_swapped|models/payoff.cuh|const bool alive = in.knock_in ? crossed : !crossed;|const bool alive = in.knock_in ? !crossed : crossed;
rebate_dropped|models/payoff.cuh|out[p] = alive ? out[p] : in.rebate;|out[p] = alive ? out[p] : 0.0;
local_vol_surface_transposed|engine/plan/step_data.cpp|surface.vols[lo][j] + w * (surface.vols[hi][j] - surface.vols[lo][j]);|surface.vols[j][lo] + w * (surface.vols[j][hi] - surface.vols[j][lo]);
local_vol_moneyness_against_spot|models/local_vol.cuh|vol_at(p, m + fixed_series, s.log_spot - m[3]);|vol_at(p, m + fixed_series, s.log_spot - p.log_spot0);
delta_bump_sign_flipped|engine/plan/scenarios.cpp|w[bumps.spot_up + 2 * a] = 1.0 / (2 * spot_h);|w[bumps.spot_up + 2 * a] = -1.0 / (2 * spot_h);
vega_bump_sign_flipped|engine/plan/scenarios.cpp|    for (double& v : m.volatility.values)\n      v += h;|    for (double& v : m.volatility.values)\n      v -= h;
theta_sign_flipped|engine/plan/scenarios.cpp|w[bumps.time_forward] = 1.0 / bumps.time_bump;|w[bumps.time_forward] = -1.0 / bumps.time_bump;
asian_fixing_count_off_by_one|models/payoff.cuh|    return value / Real(count);|    return value / Real(count + 1);
geometric_fixing_count_off_by_one|models/payoff.cuh|    return math::exp(value / Real(count));|    return math::exp(value / Real(count - 1));
basket_max_taken_as_min|models/payoff.cuh|: o.basket == BasketKind::max    ? math::max(b, leg)|: o.basket == BasketKind::max    ? math::min(b, leg)
heston_martingale_correction_dropped|models/heston.cuh|k0_star = -m.a * b2 * a / one_minus + Real(0.5) * math::log(one_minus);|k0_star = Real(0.5) * math::log(one_minus);
EOF
)

survived=0
tried=0
printf '\n%-38s %s\n' "mutation" "result"
while IFS='|' read -r name file text replacement; do
  [ -z "$name" ] && continue
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  tried=$((tried + 1))
  cp "$src/$file" "$work/original"
  if ! python3 - "$src/$file" "$text" "$replacement" <<'PY'
import sys
path, text, replacement = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
source = open(path).read()
if source.count(text) != 1:
    sys.exit("%s: the text occurs %d times" % (path, source.count(text)))
open(path, "w").write(source.replace(text, replacement))
PY
  then
    printf '%-38s %s\n' "$name" "NOT APPLIED (the code moved: update the mutation)"
    survived=1
    continue
  fi
  if ! build_suite; then
    printf '%-38s %s\n' "$name" "did not build ($work/build.log)"
    survived=1
  else
    failed=$(run_suite)
    if [ -n "$failed" ]; then
      printf '%-38s caught by %d: %s\n' "$name" "$(echo "$failed" | wc -l)" \
        "$(echo "$failed" | tr '\n' ' ')"
    else
      printf '%-38s %s\n' "$name" "SURVIVED"
      survived=1
    fi
  fi
  cp "$work/original" "$src/$file"
done <<<"$mutations"
build_suite || true
if [ "$tried" -eq 0 ]; then
  echo "no mutation is named ${only:-...}: the names are $(cut -d'|' -f1 <<<"$mutations" | tr '\n' ' ')"
  exit 2
fi
exit $survived
