#!/usr/bin/env bash
# Unpacks the Debian packages that the GPU machine lacks (it reaches no package registry) into
# .deps/root/ (ignored by git), from which CMake takes them (PFMC_DEPS_ROOT): Random123's
# headers, the headers and libraries of SLEEF and libcsv, and pybind11 (the Python package builds
# there where that machine has Python's headers). Run on the development machine before a GPU
# call, and carry .deps/root with it.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(librandom123-dev libsleef3 libsleef-dev libcsv3 libcsv-dev pybind11-dev)
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
