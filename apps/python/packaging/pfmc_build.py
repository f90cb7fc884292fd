"""The build backend of pyproject.toml: scikit-build-core where it is installed, else setuptools
driving the project's CMake (Debian ships python3-setuptools, not scikit-build-core).

Either way CMake builds the targets `_pfmc` (the module) and `pfmc` (the program) and installs its
`python` component (CMakeLists.txt) into the wheel: the package, the module, the stub, py.typed,
the program as pfmc/bin/pfmc and its plot script; `pfmc` on PATH is the entry point
pfmc._command:main, which runs that program.

Environment (both backends):
  PFMC_BUILD_DIR   a CMake build folder to build in and keep (e.g. the CI's build-ci: one
                   configured already is built, never reconfigured); else build/pip
  CMAKE_ARGS       more -D options for a fresh configure (e.g. -DPFMC_KERNELS=ahead)
  CMAKE_BUILD_PARALLEL_LEVEL  compile jobs (default: every core)
"""

import os
import shlex
import subprocess
import sys
import sysconfig

try:
    import scikit_build_core.build as _backend
except ImportError:
    _backend = None

if _backend is not None:
    if os.environ.get("PFMC_BUILD_DIR"):
        os.environ.setdefault("SKBUILD_BUILD_DIR", os.environ["PFMC_BUILD_DIR"])
    from scikit_build_core.build import *  # noqa: F401,F403  (the PEP 517 hooks)
else:
    from setuptools.build_meta import *  # noqa: F401,F403  (the PEP 517 hooks)
    from setuptools.command.build import build as _build
    from setuptools import Command
    from setuptools.command.egg_info import egg_info as _egg_info
    from setuptools.command.install import install as _install
    try:  # setuptools 70.1 and later carry bdist_wheel; before, the wheel package did
        from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel as _bdist_wheel

    _SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    # CMake's folder: PFMC_BUILD_DIR, else build/pip/cmake; setuptools' scratch beside it.
    _CMAKE_DIR = os.path.abspath(os.environ.get("PFMC_BUILD_DIR")
                                 or os.path.join(_SOURCE, "build", "pip", "cmake"))
    _SCRATCH = (os.path.join(_CMAKE_DIR, "pip") if os.environ.get("PFMC_BUILD_DIR")
                else os.path.join(_SOURCE, "build", "pip"))

    class Build(_build):
        """setuptools' build with CMake's as one of its steps (the package has no Python
        modules of setuptools' own to build). Its scratch is build/pip/setuptools (or
        PFMC_BUILD_DIR/pip/setuptools), not its default build/ (the CMake presets' folder)."""

        sub_commands = _build.sub_commands + [("build_cmake", lambda self: True)]

        def initialize_options(self):
            super().initialize_options()
            self.build_base = os.path.join(_SCRATCH, "setuptools")

    class EggInfo(_egg_info):
        """The metadata's scratch beside the build's, not in the source tree."""

        def initialize_options(self):
            super().initialize_options()
            self.egg_base = _SCRATCH
            os.makedirs(self.egg_base, exist_ok=True)

    class Install(_install):
        """Installs build_lib (where CMake put the package) though setuptools sees no modules,
        into platlib (the module is compiled), not purelib."""

        sub_commands = [(name, (lambda self: True) if name == "install_lib" else condition)
                        for name, condition in _install.sub_commands]

        def finalize_options(self):
            super().finalize_options()
            self.install_lib = self.install_platlib

    class PlatformWheel(_bdist_wheel):
        """A wheel for this Python and platform (the module is compiled), not a pure one."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

    class BuildWithCMake(Command):
        """Builds `_pfmc` and `pfmc` with CMake and installs the `python` component where the
        wheel is assembled (the build command's build_lib)."""

        description = "build the module and the program with CMake"
        user_options = []

        def initialize_options(self):
            self.build_lib = None

        def finalize_options(self):
            self.set_undefined_options("build", ("build_lib", "build_lib"))

        def run(self):
            build_dir = _CMAKE_DIR
            cache = os.path.join(build_dir, "CMakeCache.txt")
            if os.path.exists(cache):
                _check_cache(cache)
            else:
                _configure(build_dir)
            jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
            _run(["cmake", "--build", build_dir, "--target", "_pfmc", "pfmc", "-j", jobs])
            _run(["cmake", "--install", build_dir, "--component", "python",
                  "--prefix", os.path.abspath(self.build_lib)])

    def _run(command):
        print("pfmc build: " + " ".join(shlex.quote(part) for part in command), flush=True)
        subprocess.run(command, check=True)

    def _configure(build_dir):
        _run(["cmake", "-S", _SOURCE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
              "-DPFMC_PYTHON=ON", "-DPFMC_BUILD_TESTS=OFF", "-DPFMC_BUILD_BENCH=OFF",
              "-DPython3_EXECUTABLE=" + sys.executable]
             + shlex.split(os.environ.get("CMAKE_ARGS", "")))

    def _check_cache(cache):
        """A folder configured already must build the module for this Python: its ABI suffix
        (cpython-311-x86_64-linux-gnu) is this interpreter's, and the package is on."""
        entries = {}
        with open(cache, encoding="utf-8", errors="replace") as text:
            for line in text:
                name, _, value = line.rstrip("\n").partition("=")
                entries[name.split(":")[0]] = value
        if entries.get("PFMC_PYTHON", "OFF").upper() not in ("ON", "TRUE", "1"):
            raise SystemExit(f"pfmc build: {cache}: PFMC_PYTHON is off there (no Python "
                             "module to install); configure it with -DPFMC_PYTHON=ON or unset "
                             "PFMC_BUILD_DIR")
        python = entries.get("_Python3_EXECUTABLE", "another Python")
        theirs = entries.get("PYTHON_MODULE_EXTENSION", "")  # pybind11's: the module's suffix
        ours = sysconfig.get_config_var("EXT_SUFFIX")
        if theirs != ours:
            raise SystemExit(f"pfmc build: {cache} builds the module for {python} "
                             f"({theirs or 'unknown ABI'}); this pip runs {sys.executable} "
                             f"({ours}): use that Python's pip, or unset PFMC_BUILD_DIR")
