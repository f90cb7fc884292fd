#!/usr/bin/env bash
# Installs what pfmc needs to build on Debian/Ubuntu, beyond the CUDA toolkit (expected at
# /usr/local/cuda), python3-matplotlib, with which `pfmc bench --plot` draws its PNG
# (bench/plot_sweep.py), clang-tidy, which the tests' function-length audit runs
# (scripts/function-sizes.sh), and clang with its sanitizer and libFuzzer runtimes, which
# scripts/fuzz.sh builds with, and pybind11, Python's headers, pytest and mypy (the type hints'
# check) for the Python package (apps/python) and its tests, venv, setuptools and wheel, with
# which the tests install it as pip does (pyproject.toml), numpy and pandas (its columns, trades
# from a DataFrame; pandas without its recommended extras), and Open MPI, with which a build of -DPFMC_MPI=ON (the ci preset's)
# splits runs over `mpirun` ranks, and dieharder, whose short battery the tests run on the fast
# profile's generator, and PyYAML with jsonschema, with which the tests validate the shipped
# examples against the config's JSON Schema (tests/schema_examples.py): only the packages that
# are missing. Safe to run again.
set -euo pipefail

packages=(cmake g++ make libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libgtest-dev
          libbenchmark-dev librandom123-dev libsleef-dev libcsv-dev libeigen3-dev python3-matplotlib
          clang-tidy clang pybind11-dev python3-dev python3-pytest libopenmpi-dev openmpi-bin
          mypy python3-venv python3-setuptools python3-wheel python3-numpy dieharder
          python3-yaml python3-jsonschema)
light=(python3-pandas) # installed without its recommendations (numba, HDF5, ...)
missing=() missing_light=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
for p in "${light[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing_light+=("$p")
done
if [ $((${#missing[@]} + ${#missing_light[@]})) -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing: ${missing[*]} ${missing_light[*]}"
  $sudo apt-get update -qq
  [ ${#missing[@]} -eq 0 ] ||
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  [ ${#missing_light[@]} -eq 0 ] ||
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing_light[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "error: the CUDA toolkit is not at /usr/local/cuda (nvcc not found): install it first" >&2
  exit 1
fi
