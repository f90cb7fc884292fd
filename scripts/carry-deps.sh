#!/usr/bin/env bash
# Unpacks the Debian packages that the GPU machine lacks (it reaches no package registry) into
# .deps/root/ (ignored by git), from which CMake takes them (PFMC_DEPS_ROOT): the headers of
# Random123 and Eigen, the headers and libraries of SLEEF and libcsv, and pybind11 (the Python
# package builds there where that machine has Python's headers). Run on the development machine before a GPU
# call, and carry .deps/root with it. With --mpi, Open MPI too, into .deps/mpi/ (relocated on
# the GPU machine with OPAL_PREFIX: scripts/gpu-check.sh), for the split runs' MPI checks.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --mpi ]; then
  mpi_packages=(openmpi-bin libopenmpi3 libopenmpi-dev openmpi-common libpmix2
                libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-2.1-7 libhwloc15
                libhwloc-plugins libfabric1 libucx0 libnuma1 libibverbs1 librdmacm1 libpsm2-2
                libpsm-infinipath1 libnl-3-200 libnl-route-3-200 libmunge2 libxnvctrl0
                ocl-icd-libopencl1 libpciaccess0)
  mpi_work=$(mktemp -d)
  (cd "$mpi_work" && apt-get download "${mpi_packages[@]}" >/dev/null)
  rm -rf .deps/mpi && mkdir -p .deps/mpi
  for deb in "$mpi_work"/*.deb; do dpkg -x "$deb" .deps/mpi; done
  rm -rf "$mpi_work" .deps/mpi/usr/share/man .deps/mpi/usr/share/doc \
         .deps/mpi/usr/lib/x86_64-linux-gnu/fortran
  find .deps/mpi -name '*.a' -delete
  echo "unpacked Open MPI into .deps/mpi ($(du -sh .deps/mpi | cut -f1))"
  exit 0
fi
if [ "${1:-}" = --pytest ]; then
  # pytest and what it imports, for the Python suite (tests/python) on a GPU machine whose
  # Python has none, and PyYAML with jsonschema, with which ctest config_reference validates the
  # shipped examples (tests/schema_examples.py): scripts/gpu-check.sh names
  # .deps/pytest/usr/lib/python3/dist-packages in PFMC_TEST_TOOLS when it is there
  # (tests/python_installed.sh, tests/config_reference.sh).
  pytest_packages=(python3-pytest python3-pluggy python3-py python3-iniconfig python3-packaging
                   python3-attr python3-more-itertools python3-exceptiongroup python3-tomli
                   python3-pkg-resources python3-jsonschema python3-pyrsistent python3-yaml)
  pytest_work=$(mktemp -d)
  (cd "$pytest_work" && apt-get download "${pytest_packages[@]}" >/dev/null)
  rm -rf .deps/pytest && mkdir -p .deps/pytest
  for deb in "$pytest_work"/*.deb; do dpkg -x "$deb" .deps/pytest; done
  rm -rf "$pytest_work" .deps/pytest/usr/share
  echo "unpacked pytest into .deps/pytest ($(du -sh .deps/pytest | cut -f1))"
  exit 0
fi
packages=(librandom123-dev libsleef3 libsleef-dev libcsv3 libcsv-dev pybind11-dev libeigen3-dev)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "${packages[@]}" >/dev/null)
rm -rf .deps/root
mkdir -p .deps/root
for deb in "$work"/*.deb; do
  dpkg -x "$deb" .deps/root
done
rm -rf .deps/root/usr/share
echo "unpacked ${packages[*]} into .deps/root ($(du -sh .deps/root | cut -f1))"
