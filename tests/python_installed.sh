#!/usr/bin/env bash
# The Python suite on the package as pip installs it (pyproject.toml): a fresh virtual
# environment of PYTHON that sees the system's packages (numpy, pytest, setuptools), `pip install
# --no-build-isolation` from the source tree with PFMC_BUILD_DIR=BUILD (the module and the program
# this build made, installed through CMake's `python` component: nothing compiled twice), then
# tests/python run from outside the tree with no PYTHONPATH, the installed `pfmc` command as the
# suite's program. Usage: python_installed.sh PYTHON SOURCE BUILD
set -euo pipefail
python=$1 source=$2 build=$3
venv="$build/python-venv"
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
# Test tools carried to a machine whose Python lacks them (scripts/carry-deps.sh --pytest:
# PFMC_TEST_TOOLS names their folder): seen through a .pth file, after the environment's own.
if [ -n "${PFMC_TEST_TOOLS:-}" ]; then
  site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  echo "$PFMC_TEST_TOOLS" > "$site/pfmc-test-tools.pth"
fi
PFMC_BUILD_DIR="$build" "$venv/bin/python" -m pip install --quiet --no-build-isolation --no-deps \
  --no-index --disable-pip-version-check "$source"
cd "$venv"
unset PYTHONPATH
PFMC_INSTALLED="$venv" PFMC_BINARY="$venv/bin/pfmc" PFMC_SOURCE_DIR="$source" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$source/tests/python"
