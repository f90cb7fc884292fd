"""The Python package (apps/python): the same engine as the command line, on the CPU here (CI has
no GPU; the GPU's cases skip without one). Run by ctest (test_python) with PYTHONPATH set to the
build's python/ folder; prices are checked against the command line's bit for bit and against
Black-Scholes within 4 standard errors."""

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

import pfmc

SOURCE = os.environ.get("PFMC_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("PFMC_BINARY", "")
BOOK = os.path.join(SOURCE, "config", "examples", "book.yaml")

SMALL = {
    "market": {"underlyings": [{"name": "S", "spot": 100}], "rates": {"zero_rate": 0.05}},
    "models": [{"name": "bs", "type": "black_scholes", "underlying": "S", "volatility": 0.2}],
    "instruments": [
        {"id": "atm_call", "type": "european", "option": "call", "strike": 100, "maturity": 1.0,
         "model": "bs"},
        {"id": "otm_put", "type": "european", "option": "put", "strike": 90, "maturity": 1.0,
         "model": "bs"},
    ],
    "portfolio": [{"instrument": "atm_call", "quantity": 10},
                  {"instrument": "otm_put", "quantity": -5}],
    "simulation": {"paths": 20000, "seed": 7},
}


def black_scholes_call(s, k, r, sigma, t):
    d1 = (math.log(s / k) + (r + sigma * sigma / 2) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    n = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
    return s * n(d1) - k * math.exp(-r * t) * n(d2)


def black_scholes_put(s, k, r, sigma, t):
    return black_scholes_call(s, k, r, sigma, t) - s + k * math.exp(-r * t)  # put-call parity


def test_prices_a_dict_against_black_scholes():
    # Both instruments against Black-Scholes within 4 standard errors (tests/test_support.hpp says
    # why 4), each a dict of numbers of the right types, its interval the price +- 1.96 errors;
    # the portfolio's value the positions' sum, with an error no larger than theirs summed.
    result = pfmc.price(SMALL, device="cpu")
    call, put = result.instruments
    assert (call["id"], put["id"]) == ("atm_call", "otm_put")
    for item, reference in ((call, black_scholes_call(100, 100, 0.05, 0.2, 1.0)),
                            (put, black_scholes_put(100, 90, 0.05, 0.2, 1.0))):
        assert item["paths"] == 20000 and isinstance(item["paths"], int), item
        assert isinstance(item["price"], float) and isinstance(item["std_error"], float), item
        assert 0 < item["std_error"] < 0.05 * reference, item
        assert abs(item["price"] - reference) < 4 * item["std_error"], (item, reference)
        low, high = item["ci95"]
        assert low == pytest.approx(item["price"] - 1.96 * item["std_error"], rel=1e-3)
        assert high == pytest.approx(item["price"] + 1.96 * item["std_error"], rel=1e-3)
    assert result.portfolio["value"] == pytest.approx(10 * call["price"] - 5 * put["price"],
                                                      rel=1e-12)
    assert 0 < result.portfolio["std_error"] <= 10 * call["std_error"] + 5 * put["std_error"]
    assert result.run["device"].startswith("CPU")
    assert "pfmc.Result: 2 instruments" in repr(result)


def test_same_prices_as_the_command_line_bit_for_bit(tmp_path):
    if not BINARY:
        pytest.skip("PFMC_BINARY not set")
    path = tmp_path / "small.yaml"
    path.write_text(json.dumps(SMALL))
    cli = json.loads(subprocess.run([BINARY, "price", str(path), "--device", "cpu", "--paths",
                                     "4096", "--format", "json", "--quiet"],
                                    check=True, capture_output=True, text=True).stdout)
    for config in (str(path), path, path.read_text(), SMALL):
        py = pfmc.price(config, device="cpu", paths=4096)
        assert [i["price"] for i in py.instruments] == [i["price"] for i in cli["instruments"]]
        assert py.portfolio == cli["portfolio"]


def test_overrides_are_the_flags_by_name():
    result = pfmc.price(BOOK, device="cpu", paths=2_000, seed=11, greeks=["delta"],
                        control_variate=True)
    assert result.run["paths"] == 2000 and result.run["seed"] == 11
    assert result.run["control_variate"] and "delta" in result.instruments[0]["greeks"]
    assert pfmc.price(BOOK, device="cpu", paths=1000, precision="float").run["precision"] == "float"
    with pytest.raises(pfmc.ConfigError, match="bumped Greeks .* need simulation.precision: double"):
        pfmc.price(BOOK, device="cpu", paths=1000, precision="float", greeks=["delta"],
                   greeks_method="bump")
    with pytest.raises(TypeError, match="unknown option 'path'"):
        pfmc.price(BOOK, path=10)


def test_math_keyword_is_the_math_flag_and_the_run_reports_it():
    # Carried and reported; what `fast` changes in the numbers is the engine's to test.
    assert pfmc.price(SMALL, device="cpu", paths=1000).run["math"] == "accurate"
    assert pfmc.price(SMALL, device="cpu", paths=1000, math="fast").run["math"] == "fast"
    with pytest.raises(pfmc.ConfigError, match="--math: must be one of: accurate, fast"):
        pfmc.price(SMALL, device="cpu", paths=1000, math="approximate")
    assert "math" in pfmc.OVERRIDES


def test_greeks_method_keyword_is_the_greeks_method_flag():
    # Carried to the engine: each Greek's method is in the instruments. Vega, as auto would take
    # it pathwise on these Black-Scholes Europeans (their delta is pathwise under bump too);
    # which groups may be pathwise is the planner's to test.
    r = pfmc.price(SMALL, device="cpu", paths=1000, greeks=["vega"], greeks_method="bump")
    assert [i["greeks_method"]["vega"] for i in r.instruments] == ["bump", "bump"]
    with pytest.raises(pfmc.ConfigError,
                       match="--greeks-method: must be one of: auto, bump, pathwise"):
        pfmc.price(SMALL, device="cpu", paths=1000, greeks=["vega"], greeks_method="adjoint")
    assert "greeks_method" in pfmc.OVERRIDES


def test_devices_keyword_is_the_devices_flag_and_workers_are_listed():
    # devices= as --devices: a count, "all", a list ([2]: GPU 2 alone, not a count of 2); on the
    # CPU the run notes that devices are for GPU runs. .workers: one entry for an unsplit run.
    for value, written in ((2, "2"), ("all", "all"), ([0, 2], "0,2"), ([2], "2,")):
        result = pfmc.price(BOOK, device="cpu", paths=1000, devices=value)
        assert any(f"engine.devices ({written})" in n for n in result.run["notices"]), value
    result = pfmc.price(BOOK, device="cpu", paths=1000)
    assert len(result.workers) == 1
    worker = result.workers[0]
    assert worker["device"] == "cpu" and worker["paths"] == 1000 and worker["share"] == 1.0
    with pytest.raises(pfmc.ConfigError, match="--devices"):
        pfmc.price(BOOK, device="cpu", paths=1000, devices="two")
    assert "devices" in pfmc.OVERRIDES


def test_config_errors_carry_file_line_column_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = json.dumps(SMALL, indent=1).replace('"strike": 90', '"strike": -90')
    bad.write_text(text)
    with pytest.raises(pfmc.ConfigError) as caught:
        pfmc.validate(str(bad))
    e = caught.value
    line = next(n for n, s in enumerate(text.splitlines(), 1) if '"strike": -90' in s)
    assert (e.file, e.line, e.key, e.message) == (str(bad), line, "instruments[1].strike",
                                                  "must be > 0")
    assert e.column > 0 and str(e).startswith(f"{bad}:{line}:{e.column}: instruments[1].strike")
    with pytest.raises(pfmc.ConfigError, match="--paths: must be >= 1"):
        pfmc.price(SMALL, device="cpu", paths=0)
    with pytest.raises(pfmc.ConfigError, match="cannot open file"):
        pfmc.price(str(tmp_path / "missing.yaml"))
    assert isinstance(e, ValueError)


def test_validate_and_backends():
    summary = pfmc.validate(BOOK)
    assert summary["file"] == BOOK and summary["instruments"] > 10 and summary["groups"] >= 3
    listed = pfmc.backends()
    names = [b["name"] for b in listed["backends"]]
    assert "none" in names and "inline" in names
    if listed["device"] is None:
        assert not any(b["runs_here"] for b in listed["backends"])


def test_calibrate_fits_the_smile_and_its_block_loads():
    smile = BOOK.replace("book.yaml", "smile.yaml")
    report = pfmc.calibrate(smile, "spx_heston")
    assert len(report["quotes"]) == 70 and report["arbitrage"] == []
    assert 0.0 < report["rmse_vol_points"] < 1.0
    assert set(report["parameters"]) == {"v0", "kappa", "theta", "xi", "rho"}
    errors = [q["error_vol_points"] for q in report["quotes"]]
    rms = (sum(e * e for e in errors) / len(errors)) ** 0.5
    assert abs(rms - report["rmse_vol_points"]) < 1e-9
    imposed = pfmc.calibrate(smile, "spx_heston", feller=True)
    assert imposed["feller"] and imposed["rmse_vol_points"] >= report["rmse_vol_points"] - 1e-9
    with pytest.raises(pfmc.ConfigError, match="fits heston models"):
        pfmc.calibrate(smile, "spx_local_vol")


def test_risk_returns_a_frame_of_scenarios_on_the_base_draws():
    example = BOOK.replace("book.yaml", "risk.yaml")
    pandas = pytest.importorskip("pandas")
    table = pfmc.risk(example, paths=4000, device="cpu")
    assert isinstance(table, pandas.DataFrame)
    assert list(table.columns) == ["scenario", "set", "value", "pnl", "pnl_std_error"]
    spot = table[table["set"] == "spot"].set_index("scenario")
    assert spot.loc["spot=0", "pnl"] == 0.0 and spot.loc["spot=0.1", "pnl_std_error"] > 0.0
    assert len(table[table["set"] == "historical"]) == 250
    assert [t["level"] for t in table.attrs["tail"]] == [0.99, 0.975]
    each = pfmc.risk(example, paths=4000, device="cpu", per_instrument=True)
    assert len(each) == 8 * len(table)
    parts = pfmc.risk(example, paths=4000, device="cpu", by_underlying=True)
    assert sorted(set(parts["underlying"])) == ["SPX", "SX5E"]
    summed = parts.groupby("scenario")["pnl"].sum()
    assert abs(summed["spot=0.1"] - spot.loc["spot=0.1", "pnl"]) < 1e-9 * abs(summed["spot=0.1"])
    with pytest.raises(pfmc.ConfigError, match="no `risk:` block"):
        pfmc.risk(BOOK, paths=1000, device="cpu")


def test_a_loaded_book_prices_an_updated_market_as_a_config_of_it_would():
    book = pfmc.load(SMALL, device="cpu")
    assert book.summary["instruments"] == 2 and book.summary["load_ms"] > 0
    base = book.price()
    assert base.columns(lists=True)["price"] == pfmc.price(SMALL, device="cpu").columns(
        lists=True)["price"]
    # New levels: the same bits as a config written with them (the same seed's draws).
    moved = book.price(market={"spot": {"S": 105.0}, "vol": {"bs": 0.25}, "zero_rate": 0.04})
    written = json.loads(json.dumps(SMALL))
    written["market"]["underlyings"][0]["spot"] = 105.0
    written["models"][0]["volatility"] = 0.25
    written["market"]["rates"] = {"zero_rate": 0.04}
    assert moved.columns(lists=True)["price"] == pfmc.price(written, device="cpu").columns(
        lists=True)["price"]
    # A vol move adds to the model's vol; overrides hold for the one run.
    shifted = book.price(market={"vol_move": {"bs": 0.01}}, paths=10000)
    written = json.loads(json.dumps(SMALL))
    written["models"][0]["volatility"] = 0.2 + 0.01
    assert shifted.columns(lists=True)["price"] == pfmc.price(
        written, device="cpu", paths=10000).columns(lists=True)["price"]
    assert book.price().columns(lists=True)["price"] == base.columns(lists=True)["price"]
    for market, error in [({"spot": {"T": 1.0}}, r"no underlying 'T' \(known: S\)"),
                          ({"vol": {"bs": 6.0}}, r"market\.vol\.bs: is 6.* must be in \(0, 5\]"),
                          ({"spot": {"S": 0.0}}, r"market\.spot\.S: must be > 0"),
                          ({"spots": {}}, "unknown key 'spots'")]:
        with pytest.raises(pfmc.ConfigError, match=error):
            book.price(market=market)


def test_a_loaded_book_prices_its_risk_as_risk_does():
    example = BOOK.replace("book.yaml", "risk.yaml")
    pytest.importorskip("pandas")
    book = pfmc.load(example, paths=2000, device="cpu")
    assert book.summary["has_risk"]
    loaded = book.risk()
    direct = pfmc.risk(example, paths=2000, device="cpu")
    assert list(loaded["pnl"]) == list(direct["pnl"]) and len(loaded) > 250


def test_kernels_lists_what_is_built_in_and_cached(tmp_path):
    report = pfmc.kernels(cache=str(tmp_path))
    assert report["cache"] == str(tmp_path)
    with open(os.path.join(SOURCE, "kernels", "model_list.cuh"), encoding="utf-8") as text:
        entries = sum(line.startswith("  X(") for line in text)  # the list's lines
    assert len(report["entries"]) == entries == 44  # 18 accurate, 12 fast math, 14 pathwise
    assert report["cached"] == 0
    assert all(e["built_in"] + e["on_first_use"] > 80 for e in report["entries"])
    with pytest.raises(pfmc.ConfigError, match="neither a config file nor a model-list entry"):
        pfmc.kernels(warm="no_such_entry", arch=90, cache=str(tmp_path))
    assert pfmc.kernels(clear=True, cache=str(tmp_path))["cleared"] == 0


def test_no_gpu_is_a_runtime_error_and_bench_needs_one():
    if pfmc.backends()["device"] is not None:
        rows = pfmc.bench(SMALL, backends=["none", "inline"], distances=[8], repeat=2)
        assert {r["backend"] for r in rows} == {"ideal", "inline", "none"}  # the ideal: always
        return
    with pytest.raises(pfmc.RuntimeError):
        pfmc.price(SMALL, device="gpu")
    with pytest.raises(pfmc.RuntimeError, match="need a GPU"):
        pfmc.bench(SMALL)


def test_columns_hold_the_instruments_values():
    result = pfmc.price(BOOK, device="cpu", paths=2_000, greeks=["delta", "vega"])
    columns, items = result.columns(), result.instruments
    assert list(columns)[:7] == ["id", "type", "price", "std_error", "ci95_low", "ci95_high",
                                 "paths"]
    assert "delta" in columns and "vega" in columns
    assert all(len(c) == len(items) for c in columns.values())
    for k, item in enumerate(items):
        assert columns["id"][k] == item["id"] and columns["price"][k] == item["price"]
        assert columns["std_error"][k] == item["std_error"]
        assert [columns["ci95_low"][k], columns["ci95_high"][k]] == item["ci95"]
        assert columns["delta"][k] == item["greeks"]["delta"]
    assert result.column("price") is columns["price"]
    with pytest.raises(KeyError, match="no column 'gamma'"):
        result.column("gamma")
    # A quasi-random run has no standard error: NaN in the column, None in the dicts.
    sobol = pfmc.price(SMALL, device="cpu", rng="sobol", paths=1024)
    assert math.isnan(sobol.column("std_error")[0]) and sobol.instruments[0]["std_error"] is None


def test_columns_are_numpy_arrays_with_the_lists_values():
    # numpy installed: float64 and int64 arrays that own the engine's gathered values, object
    # arrays of the ids and types; the same values, bit for bit, as columns(lists=True).
    np = pytest.importorskip("numpy")
    result = pfmc.price(BOOK, device="cpu", paths=2_000, greeks=["delta"])
    arrays, lists = result.columns(), result.columns(lists=True)
    assert list(arrays) == list(lists)
    for name, column in arrays.items():
        assert isinstance(column, np.ndarray) and isinstance(lists[name], list), name
        expected = {"id": object, "type": object, "paths": np.int64}.get(name, np.float64)
        assert column.dtype == expected, name
        assert column.tolist() == lists[name] or all(
            (a == b) or (a != a and b != b) for a, b in zip(column.tolist(), lists[name])), name
    assert np.array_equal(arrays["price"].view(np.uint64),
                          np.array(lists["price"], dtype=np.float64).view(np.uint64))
    assert arrays["price"].base is not None  # a view of the engine's vector, kept alive
    del result
    assert float(arrays["price"][0]) == lists["price"][0]


TRADES_CSV = ("id,type,option,strike,maturity,model,average,fixing_times,barrier,barrier_type,"
              "monitoring\n"
              "c1,european,call,100,1,bs,,,,,\n"
              "p1,european,put,95.5,0.5,bs,,,,,\n"
              "a1,asian,call,100,1,bs,arithmetic,0.25 0.5 0.75 1,,,\n"
              "b1,barrier,put,100,0.75,bs,,,80,down_and_in,52\n")


def test_trades_as_columns_price_as_the_same_csv(tmp_path):
    # instruments= / positions= (a mapping of column name to array or list; a DataFrame's
    # columns): the CSV book's columns and rules, the same bits as the same trades from CSV.
    np = pytest.importorskip("numpy")
    config = {k: v for k, v in SMALL.items() if k not in ("instruments", "portfolio")}
    (tmp_path / "t.csv").write_text(TRADES_CSV)
    (tmp_path / "p.csv").write_text("instrument,quantity\nc1,10\na1,-2.5\n")
    with_csv = dict(config, instruments={"csv": str(tmp_path / "t.csv")},
                    portfolio={"csv": str(tmp_path / "p.csv")})
    from_csv = pfmc.price(with_csv, device="cpu", paths=4096)
    columns = {
        "id": np.array(["c1", "p1", "a1", "b1"], dtype=object),
        "type": ["european", "european", "asian", "barrier"],
        "option": np.array(["call", "put", "call", "put"], dtype=object),
        "strike": np.array([100.0, 95.5, 100.0, 100.0]),
        "maturity": np.array([1.0, 0.5, 1.0, 0.75]),
        "model": ["bs"] * 4,
        "average": [None, None, "arithmetic", None],
        "fixing_times": [None, float("nan"), [0.25, 0.5, 0.75, 1.0], None],
        "barrier": np.array([np.nan, np.nan, np.nan, 80.0]),
        "barrier_type": np.array([None, None, None, "down_and_in"], dtype=object),
        "monitoring": np.array([np.nan, np.nan, np.nan, 52.0]),
    }
    positions = {"instrument": ["c1", "a1"], "quantity": np.array([10.0, -2.5])}
    from_columns = pfmc.price(config, device="cpu", paths=4096, instruments=columns,
                              positions=positions)
    key = lambda r: ([(i["id"], i["price"], i["std_error"]) for i in r.instruments], r.portfolio)
    assert key(from_columns) == key(from_csv)
    summary = pfmc.validate(config, instruments=columns, positions=positions)
    assert (summary["instruments"], summary["positions"]) == (4, 2)
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(columns)
    assert key(pfmc.price(config, device="cpu", paths=4096, instruments=frame,
                          positions=pandas.DataFrame(positions))) == key(from_csv)


def test_trades_as_columns_name_the_row_and_column_of_a_mistake():
    np = pytest.importorskip("numpy")
    config = {k: v for k, v in SMALL.items() if k not in ("instruments", "portfolio")}
    columns = {"id": ["c1", "c2", "c3"], "type": ["european"] * 3, "option": ["call"] * 3,
               "strike": np.array([100.0, 90.0, -1.0]), "maturity": [1, 1, 1], "model": ["bs"] * 3}
    # The row at position 2 is line 4 (the header is line 1); strike is the 4th column.
    with pytest.raises(pfmc.ConfigError, match=r"^<instruments>:4:4: strike: must be > 0"):
        pfmc.price(config, device="cpu", paths=100, instruments=columns)
    with pytest.raises(pfmc.ConfigError, match=r"<instruments>:1:7: unknown column 'strik'"):
        pfmc.price(config, device="cpu", paths=100,
                   instruments=dict(columns, strik=[1, 2, 3]))
    with pytest.raises(pfmc.ConfigError, match=r"<instruments>:1:2: the column has 2 cells"):
        pfmc.price(config, device="cpu", paths=100, instruments=dict(columns, type=["european"] * 2))
    with pytest.raises(pfmc.ConfigError, match=r"given to price\(\) as columns \(instruments=\) "
                                               r"and here: remove one"):
        pfmc.price(SMALL, device="cpu", paths=100, instruments=columns)
    with pytest.raises(TypeError, match="instruments= must be a pandas DataFrame or a mapping"):
        pfmc.price(config, device="cpu", paths=100, instruments=[1, 2])


def test_the_version_is_pyprojects():
    with open(os.path.join(SOURCE, "pyproject.toml"), encoding="utf-8") as text:
        line = next(line for line in text if line.startswith("version = "))
    assert pfmc.__version__ == line.split('"')[1]


def test_the_installed_copy_is_the_one_imported():
    # Under tests/python_installed.sh: the package pip installed into the virtual environment is
    # the one imported (not the build folder's), its program is beside it, and the `pfmc`
    # command (the package's entry point) runs that program.
    venv = os.environ.get("PFMC_INSTALLED")
    if not venv:
        pytest.skip("the build folder's copy (tests/python_installed.sh tests the installed one)")
    assert os.path.realpath(pfmc.__file__).startswith(os.path.realpath(venv) + os.sep), \
        pfmc.__file__
    program = os.path.join(os.path.dirname(pfmc.__file__), "bin", "pfmc")
    assert os.access(program, os.X_OK), program
    out = subprocess.run([os.path.join(venv, "bin", "pfmc"), "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["pfmc", pfmc.__version__]


def test_type_hints_pass_mypy(tmp_path):
    # The package's hints (py.typed, the module's stub) checked by mypy --strict where Debian's
    # mypy is installed, with a caller's use of them; and a wrong call is caught.
    pytest.importorskip("mypy")
    package = os.path.dirname(os.path.dirname(pfmc.__file__))
    use = tmp_path / "use.py"
    use.write_text("import pfmc\n"
                   "r: pfmc.Result = pfmc.price('book.yaml', device='cpu', paths=10, devices=[0])\n"
                   "total: float = r.run['total_ms']\n"
                   "first: float = r.columns(lists=True)['price'][0]\n"
                   "kernel_ms: float = r.workers[0]['kernel_ms']\n"
                   "warmed = pfmc.kernels(warm=['black_scholes'])['warmed']\n")
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import pfmc\npfmc.price(42)\n")
    # The build folder's copy is found through MYPYPATH; an installed one (PEP 561) through its
    # site-packages, which mypy refuses on MYPYPATH.
    import site
    installed = os.path.realpath(package) in map(os.path.realpath, site.getsitepackages())
    env = dict(os.environ) if installed else dict(os.environ, MYPYPATH=package)
    def mypy(*args):
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                               *args], capture_output=True, text=True, env=env, cwd=package)
    # The package's modules (an installed copy also holds the program's plot script, a script).
    for args in (["-m", "pfmc", "-m", "pfmc._command"], [str(use)]):
        out = mypy(*args)
        assert out.returncode == 0, out.stdout + out.stderr
    out = mypy(str(wrong))
    assert out.returncode != 0 and 'Argument 1 to "price"' in out.stdout, out.stdout


def test_a_gpu_run_after_importing_numpy():
    # numpy imported first loads the shared libstdc++; a module carrying its own copy (a
    # toolchain whose libstdc++ is static) and exporting it crashed at its first formatted number
    # (docs/decisions.md#module-exports). In a child interpreter: the order of the imports is the
    # point.
    if pfmc.backends()["device"] is None:
        pytest.skip("no GPU")
    pytest.importorskip("numpy")
    code = ("import json, sys, numpy, pfmc; "
            "print(repr(pfmc.price(json.loads(sys.argv[1]), device='gpu').instruments[0]['price']))")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(SMALL)], capture_output=True,
                         text=True)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-300:]}"
    # What it printed is the price: this process's run of the same book on the GPU, bit for bit
    # (same seed, same device), and within 4 standard errors of Black-Scholes.
    here = pfmc.price(SMALL, device="gpu").instruments[0]
    assert float(out.stdout.strip().splitlines()[-1]) == here["price"], out.stdout
    assert abs(here["price"] - black_scholes_call(100, 100, 0.05, 0.2, 1.0)) < 4 * here["std_error"]


def test_the_module_exports_its_init_alone():
    # Anything else exported can be bound to another library's definition in the same process
    # (GNU-unique symbols are bound process-wide whatever the dlopen flags): the cause of the
    # crash above.
    nm = shutil.which("nm")
    if nm is None or not sys.platform.startswith("linux"):
        pytest.skip("needs binutils' nm on Linux")
    out = subprocess.run([nm, "-D", "--defined-only", pfmc._pfmc.__file__], check=True,
                         capture_output=True, text=True).stdout
    exported = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    assert exported == ["PyInit__pfmc"], f"{len(exported)} exported: {exported[:8]}"


def test_native_run_baseline_times_the_same_run(tmp_path):
    # scripts/python-overhead.py's baseline: the same load and run from C++, in milliseconds; it
    # returns nothing else, so what is checked is that the time is the run's: a float, within
    # the call around it, and growing with the run's work (25x the paths: measured 10-19x the
    # time on 2 busy cores, where a time of the load alone would not grow). The run itself is
    # the engine's, whose prices the other tests check.
    small, big = tmp_path / "small.yaml", tmp_path / "big.yaml"
    small.write_text(json.dumps(dict(SMALL, simulation={"paths": 2000, "seed": 7})))
    big.write_text(json.dumps(dict(SMALL, simulation={"paths": 50_000, "seed": 7})))
    pfmc._pfmc._time_native_run(str(small), "cpu")  # warm: first-use costs out of the timings
    started = time.perf_counter()
    ms = pfmc._pfmc._time_native_run(str(small), "cpu")
    wall_ms = (time.perf_counter() - started) * 1000
    assert isinstance(ms, float) and math.isfinite(ms)
    assert 0 < ms <= wall_ms
    started = time.perf_counter()
    big_ms = pfmc._pfmc._time_native_run(str(big), "cpu")
    assert big_ms <= (time.perf_counter() - started) * 1000
    assert big_ms > 4 * ms, (big_ms, ms)
    with pytest.raises(pfmc.ConfigError):
        pfmc._pfmc._time_native_run(str(tmp_path / "missing.yaml"), "cpu")


def test_to_pandas():
    pandas = pytest.importorskip("pandas")
    frame = pfmc.price(BOOK, device="cpu", paths=1000).to_pandas()
    assert isinstance(frame, pandas.DataFrame) and "price" in frame.columns
    assert frame.index[0] == "spx_c100_1y"


def test_the_readme_python_example_runs(monkeypatch, capsys):
    # The README's first ```python block, run as its reader would: from the repository's root,
    # its own imports, on the CPU (every pfmc.price it calls is held to device="cpu", whatever the
    # block says). Compiled with the block's README line numbers, so a failure points at the line.
    pytest.importorskip("pandas")
    with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as text:
        readme = text.read()
    block = re.search(r"^```python\n(.*?)^```", readme, re.S | re.M)
    assert block, "README.md has no ```python block"
    first_line = readme.count("\n", 0, block.start(1))
    code = compile("\n" * first_line + block.group(1), "README.md", "exec")
    price = pfmc.price
    monkeypatch.setattr(pfmc, "price", lambda *a, **k: price(*a, **dict(k, device="cpu")))
    monkeypatch.chdir(SOURCE)
    exec(code, {"__name__": "readme_example"})  # noqa: S102 - the README's own example
    printed = capsys.readouterr().out
    assert "spx_c100_1y" in printed and "p95" in printed, printed


def test_sigint_stops_a_long_run_with_keyboard_interrupt():
    # A run of many seconds on the CPU; SIGINT after 0.5 s must stop it well before its end.
    big = dict(SMALL, simulation={"paths": 200_000_000, "seed": 1})
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        pfmc.price(big, device="cpu", cpu_threads=1)
    assert time.monotonic() - start < 10
    # The next run works, and Python's own handler is back: a SIGINT outside a run is
    # KeyboardInterrupt at once, not a stop request nobody reads.
    assert pfmc.price(SMALL, device="cpu", paths=1000).instruments
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)


def test_the_gil_is_released_while_pricing():
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        start = time.monotonic()
        pfmc.price(dict(SMALL, simulation={"paths": 4_000_000}), device="cpu", cpu_threads=1)
        elapsed = time.monotonic() - start
    finally:
        stop.set()
        thread.join()
    during = [t for t in ticks if start <= t <= start + elapsed]
    assert elapsed > 0.1 and len(during) >= 0.5 * elapsed / 0.005 * 0.5
