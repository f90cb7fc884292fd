"""pfmc: Monte Carlo pricing of option portfolios on the GPU (or the CPU), from Python.

The same engine as the `pfmc` command line, called in-process:

    import pfmc
    result = pfmc.price("config/examples/book.yaml", paths=100_000, device="cpu")
    result.instruments[0]["price"], result.portfolio["value"], result.run["kernel_ms"]
    result.column("price")                  # one list per field, in the book's order
    result.to_pandas()                      # one row per instrument (needs pandas)

A config is a path (str or os.PathLike), YAML text, or a dict of the YAML's structure. The
keyword arguments are the command line's flags by name (`--paths` is `paths=`, `--control-variate`
is `control_variate=True`, `--greeks delta,vega` is `greeks=["delta", "vega"]`). Errors in a
config raise ConfigError (with .file, .line, .column, .key); failures of the run raise
RuntimeError; Ctrl-C stops a run between launches and raises KeyboardInterrupt.
"""

import builtins
import csv as _csv
import io as _io
import json as _json
import os as _os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = ["price", "validate", "calibrate", "risk", "load", "Book", "backends", "bench", "kernels",
           "Result", "ConfigError", "RuntimeError", "OVERRIDES"]


class ConfigError(ValueError):
    """A config (file, text, dict or keyword argument) that must be fixed. str(e) is the
    command line's one line: `FILE:LINE:COLUMN: key.path: what is wrong`."""

    def __init__(self, text: str, file: str = "", line: int = 0, column: int = 0, key: str = "",
                 message: str = "") -> None:
        super().__init__(text)
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message


class RuntimeError(builtins.RuntimeError):  # noqa: A001 (pfmc.RuntimeError, as the issue names it)
    """The run failed (no GPU where one was asked for, CUDA, memory, files)."""


from . import _pfmc  # noqa: E402  (the exception classes first: the module raises them)

_pfmc._set_exceptions(ConfigError, RuntimeError)

#: The package's version (pyproject.toml's, compiled into the module).
__version__: str = _pfmc.__version__

#: A config: a path (str or os.PathLike), YAML text, or a dict of the YAML's structure.
Config = Union[str, "_os.PathLike[str]", Mapping[str, Any]]

#: The keyword arguments price(), validate() and bench() take: the command line's overrides
#: (one list, config/overrides.hpp's, from which the flags are made too).
OVERRIDES = tuple(_pfmc.override_keys())


class Result:
    """A priced run: .instruments (a list of dicts: id, type, price, std_error, ci95, paths and,
    when asked for, greeks), .portfolio (value and std_error, or None without positions) and
    .run (device, backend, timings, ...), as `pfmc price --format json` writes them; and the
    instruments as columns, .columns() and .column(name) (lists: id, type, price, std_error,
    ci95_low, ci95_high, paths, then one per Greek — `delta`, or `delta[A]` for a basket's leg;
    NaN where an instrument has no such number), which a book of 100,000 instruments makes in a
    small part of the time its list of dicts takes."""

    def __init__(self, priced: "_pfmc.PricedRun") -> None:
        summary = _json.loads(priced.summary_json())
        self.portfolio: Optional[Dict[str, Any]] = summary["portfolio"]
        self.run: Dict[str, Any] = summary["run"]
        self._priced = priced
        self._instruments: Optional[List[Dict[str, Any]]] = None
        self._columns: Optional[Dict[str, Any]] = None

    @property
    def workers(self) -> List[Dict[str, Any]]:
        """The run's workers (a list of dicts: rank, device, name, backend, paths, share,
        kernel_ms, rng_ms, wall_ms, ...), in split order: one per GPU of a split run
        (`devices=`), one per MPI rank's device; one entry for a run on one device or the CPU."""
        workers: List[Dict[str, Any]] = self.run.get("workers") or []
        if workers:
            return workers
        return [{"rank": 0, "device": 0 if self.run.get("on_gpu") else "cpu",
                 "name": self.run.get("device", ""), "backend": self.run.get("backend", ""),
                 "paths": self.run.get("paths", 0), "share": 1.0,
                 "kernel_ms": self.run.get("kernel_ms", 0.0), "rng_ms": self.run.get("rng_ms", 0.0),
                 "wall_ms": self.run.get("total_ms", 0.0)}]

    @property
    def instruments(self) -> List[Dict[str, Any]]:
        # Made on first use (a book of 100,000 instruments takes a good part of a second).
        if self._instruments is None:
            self._instruments = self._priced.instruments()
        return self._instruments

    def columns(self, lists: bool = False) -> Dict[str, Any]:
        """The instruments as a dict of columns of the same length, in the book's order: numpy
        arrays where numpy is installed (float64; `paths` int64; `id` and `type` object arrays),
        lists otherwise or with lists=True."""
        if lists:
            return self._priced.columns(True)
        if self._columns is None:
            self._columns = self._priced.columns(False)
        return self._columns

    def column(self, name: str) -> Any:
        """One column of columns() by name: `price`, `std_error`, `delta`, ..."""
        columns = self.columns()
        if name not in columns:
            raise KeyError(f"no column {name!r} (columns: {', '.join(columns)})")
        return columns[name]

    def to_pandas(self) -> Any:
        """The instruments as a pandas DataFrame indexed by id (Greeks as columns), made from the
        columns, not from the list of dicts."""
        import pandas  # type: ignore[import]  # optional; its stubs may be absent
        return pandas.DataFrame(self.columns()).set_index("id")

    def __repr__(self) -> str:
        value = self.portfolio["value"] if self.portfolio else None
        return (f"<pfmc.Result: {self._priced.instrument_count()} instruments, portfolio value {value}, "
                f"{self.run['device']} {self.run['backend']}, {self.run['total_ms']:.1f} ms>")


def _source(config: Config) -> Tuple[str, bool, str]:
    """(text or path, is_path, name) for the engine."""
    if isinstance(config, dict):
        # JSON is YAML: the loader judges a dict as it judges a file (paths in it, such as
        # `instruments: {csv: ...}`, are relative to the current directory).
        return _json.dumps(config), False, "<dict>"
    if isinstance(config, _os.PathLike):
        return _os.fspath(config), True, ""
    if not isinstance(config, str):
        raise TypeError(f"config must be a path, YAML text or a dict, not {type(config).__name__}")
    if "\n" in config or (":" in config and not _os.path.exists(config)):
        return config, False, "<string>"
    return config, True, ""


def _overrides(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    unknown = sorted(set(kwargs) - set(OVERRIDES))
    if unknown:
        raise TypeError(f"unknown option {', '.join(map(repr, unknown))} "
                        f"(known: {', '.join(OVERRIDES)})")
    result = {}
    for key, value in kwargs.items():
        if value is None:
            continue
        if key == "greeks" and not isinstance(value, str):
            value = ",".join(value) if value else "none"
        if key == "device" and hasattr(value, "lower"):
            value = value.lower()
        if key == "devices" and isinstance(value, (list, tuple)):
            # [0, 2]: those ordinals, as --devices 0,2; [2]: device 2 alone ("2," — a number
            # alone is a count of devices)
            value = ",".join(str(d) for d in value) + ("," if len(value) == 1 else "")
        result[key] = value
    return result


#: Trades or positions as columns: a pandas DataFrame, or a mapping of column name to a numpy
#: array or sequence.
Columns = Any


def _columns(trades: Columns, what: str) -> Optional[Dict[str, Any]]:
    """A DataFrame or mapping as a dict of column name to values, column by column (no loop over
    the rows: the engine reads numpy arrays straight from their buffers)."""
    if trades is None:
        return None
    if hasattr(trades, "columns") and hasattr(trades, "to_numpy") and not isinstance(trades, Mapping):
        return {str(c): trades[c].to_numpy() for c in trades.columns}  # a pandas DataFrame
    if isinstance(trades, Mapping):
        return {str(k): v for k, v in trades.items()}
    raise TypeError(f"{what}= must be a pandas DataFrame or a mapping of column name to values, "
                    f"not {type(trades).__name__}")


def price(config: Config, *, tuning_cache: str = "", instruments: Columns = None,
          positions: Columns = None, **overrides: Any) -> Result:
    """Prices `config` (a path, YAML text or a dict) with the command line's overrides as
    keyword arguments; returns a Result. The GIL is released while it runs.

    instruments= / positions=: the trades and positions as columns (a pandas DataFrame, or a
    mapping of column name to array) with the CSV book's columns and rules, in place of the
    config's `instruments:` / `portfolio:` (which must then be absent). Errors name them
    `<instruments>` / `<positions>`, the row at position r on line r + 2 (the header is line 1),
    and the column by its 1-based position."""
    text, is_path, name = _source(config)
    return Result(_pfmc.price(text, is_path, name, _overrides(overrides), tuning_cache,
                              _columns(instruments, "instruments"),
                              _columns(positions, "positions")))


def validate(config: Config, *, instruments: Columns = None, positions: Columns = None,
             **overrides: Any) -> Dict[str, Any]:
    """Loads and plans `config` without pricing it; returns what `pfmc validate` prints as a
    dict (file, underlyings, models, instruments, positions, groups, max_steps, paths), or
    raises ConfigError. instruments= and positions= as price() takes them."""
    text, is_path, name = _source(config)
    return _pfmc.validate(text, is_path, name, _overrides(overrides),
                          _columns(instruments, "instruments"), _columns(positions, "positions"))


def calibrate(config: Config, model: str, *, feller: bool = False) -> Dict[str, Any]:
    """`pfmc calibrate`: the heston model `model` of `config` fitted to its underlying's
    implied-vol quotes (market.implied_vols). Returns a dict: `parameters` (v0, kappa, theta,
    xi, rho), `feller` (whether 2 kappa theta >= xi^2 holds; feller=True imposes it),
    `rmse_vol_points`, `max_error_vol_points`, `evaluations`, `seconds`, `arbitrage` (the quotes'
    calendar, butterfly and vertical-spread violations), `quotes` (one dict a quote: expiry,
    strike, quote, model, error_vol_points, ssvi, ssvi_error_vol_points, line:
    pandas.DataFrame(result["quotes"]) is a table), `ssvi` (the SSVI surface fitted to the same
    quotes: rho, eta, gamma, theta by expiry, its errors, each expiry's smile at 61 strikes) and
    `model_block` (the fitted model as the config's models list holds it)."""
    text, is_path, name = _source(config)
    report: Dict[str, Any] = _json.loads(_pfmc.calibrate(text, is_path, name, str(model),
                                                         bool(feller)))
    return report


def risk(config: Config, *, per_instrument: bool = False, by_underlying: bool = False,
         frame: bool = True, **overrides: Any) -> Any:
    """`pfmc risk`: the book of `config` under its `risk:` scenarios (ladders, a grid, named and
    historical moves), every scenario on the base run's draws. Returns a pandas DataFrame, a row
    a scenario with columns scenario, set, value, pnl, pnl_std_error (the portfolio's: an upper
    bound); by_underlying=True: a row a scenario and underlying (a basket: its model), column
    `underlying`, no value; per_instrument=True: a row a scenario and instrument, column
    `instrument`. The run's report (VaR and ES in `tail`, passes, timings) is in DataFrame.attrs;
    frame=False returns the report as a dict instead."""
    text, is_path, name = _source(config)
    report: Dict[str, Any] = _json.loads(_pfmc.risk(text, is_path, name, _overrides(overrides),
                                                    bool(per_instrument)))
    return _risk_frame(report, per_instrument, by_underlying) if frame else report


def _risk_frame(report: Dict[str, Any], per_instrument: bool, by_underlying: bool) -> Any:
    """risk()'s DataFrame of a risk report (a row a scenario, or a scenario and an underlying or
    an instrument), the rest of the report in its attrs."""
    import pandas  # pylint: disable=import-outside-toplevel
    rows = []
    for s in report["scenarios"]:
        if "value" in s and not per_instrument and not by_underlying:
            rows.append({"scenario": s["name"], "set": s["set"], "value": s["value"],
                         "pnl": s["pnl"], "pnl_std_error": s["pnl_std_error_bound"]})
        for f in (s.get("factors", []) if by_underlying and not per_instrument else []):
            rows.append({"scenario": s["name"], "set": s["set"], "underlying": f["factor"],
                         "pnl": f["pnl"], "pnl_std_error": f["pnl_std_error_bound"]})
        for i in s.get("instruments", []):
            rows.append({"scenario": s["name"], "set": s["set"], "instrument": i["id"],
                         "value": i["value"], "pnl": i["pnl"],
                         "pnl_std_error": i["pnl_std_error"]})
    table = pandas.DataFrame(rows)
    table.attrs = {k: v for k, v in report.items() if k != "scenarios"}
    return table


class Book:
    """A book loaded once by load(): its config read and its overrides applied, its devices
    started. price() and risk() run it again and again without reading or starting anything:
    under today's market or an updated one, each run on the same seed's draws (so the change
    between two runs is the market's, not the sampling's)."""

    def __init__(self, loaded: "_pfmc.LoadedBook") -> None:
        self._book = loaded
        self.summary: Dict[str, Any] = loaded.summary()

    def price(self, market: Optional[Dict[str, Any]] = None, **overrides: Any) -> Result:
        """The book priced, under `market` if given — a dict of the market's new levels:
        `spot` ({underlying: level}), `vol` ({black_scholes model with one vol: level}),
        `vol_move` ({model: an absolute move of each of its vols, as the Greeks' vega moves
        them}), `zero_rate` (a flat zero rate replacing the curve) — and with keyword overrides
        for this run only (paths=, seed=, ...). Returns a Result, as pfmc.price does."""
        given: Dict[str, Any] = dict(market or {})
        unknown = sorted(set(given) - {"spot", "vol", "vol_move", "zero_rate"})
        if unknown:
            raise ConfigError(f"<market>: unknown key '{unknown[0]}' (known: spot, vol, vol_move, "
                              "zero_rate)", "<market>", 0, 0, unknown[0],
                              "unknown key (known: spot, vol, vol_move, zero_rate)")

        def levels(key: str) -> Dict[str, float]:
            levels_of = given.get(key) or {}
            if not isinstance(levels_of, dict):
                raise ConfigError(f"<market>: market.{key}: must be a dict of name to number",
                                  "<market>", 0, 0, f"market.{key}",
                                  "must be a dict of name to number")
            return {str(k): float(v) for k, v in levels_of.items()}

        rate = given.get("zero_rate")
        return Result(self._book.price(levels("spot"), levels("vol"), levels("vol_move"),
                                       None if rate is None else float(rate),
                                       _overrides(overrides)))

    def risk(self, *, per_instrument: bool = False, by_underlying: bool = False,
             frame: bool = True, **overrides: Any) -> Any:
        """The book's `risk:` scenarios, as pfmc.risk() returns them."""
        report: Dict[str, Any] = _json.loads(self._book.risk(_overrides(overrides),
                                                             bool(per_instrument)))
        return _risk_frame(report, per_instrument, by_underlying) if frame else report

    def __repr__(self) -> str:
        s = self.summary
        return (f"<pfmc.Book {s['file'] or '<text>'}: {s['instruments']} instruments on "
                f"{s['models']} models, {s['positions']} positions>")


def load(config: Config, *, tuning_cache: str = "", instruments: Columns = None,
         positions: Columns = None, **overrides: Any) -> Book:
    """Reads `config` (as price() takes it, with its instruments=, positions= and keyword
    overrides) and starts its devices once; returns a Book to price and risk repeatedly."""
    text, is_path, name = _source(config)
    return Book(_pfmc.LoadedBook(text, is_path, name, _overrides(overrides), tuning_cache,
                                 _columns(instruments, "instruments"),
                                 _columns(positions, "positions")))


def backends() -> Dict[str, Any]:
    """The prefetch backends: a dict with the device (or None), the prefetch distances and one
    entry per backend (name, description, requires, runs_here, ...)."""
    listing: Dict[str, Any] = _json.loads(_pfmc.backends())
    return listing


def kernels(*, warm: Union[str, Sequence[str], None] = None, arch: int = 0, jobs: int = 0,
            clear: bool = False, list: bool = False, cache: str = "") -> Dict[str, Any]:
    """`pfmc kernels`: the path kernels built in, compiled on first use and cached, as a dict
    (`cache`, `kernel_set`, `entries` [{entry, built_in, on_first_use, cached}], `cached`, ...).
    warm: a config file, "all" or model-list entries (a list or comma-separated): compile them
    into the cache (for sm_<arch> where given, else this GPU's), on `jobs` threads; the dict's
    `warmed` says what was compiled. clear: empty the cache. cache: the cache folder."""
    if warm is not None and not isinstance(warm, str):
        warm = ",".join(warm)
    report: Dict[str, Any] = _json.loads(_pfmc.kernels(warm or "", int(arch), int(jobs),
                                                       bool(clear), bool(list), str(cache)))
    return report


def bench(config: Config, *, backends: Union[str, Sequence[str]] = "all",
          distances: Union[str, Sequence[int]] = "all", repeat: int = 5,
          **overrides: Any) -> List[Dict[str, Any]]:
    """`pfmc bench`: every group of `config` timed over backends and prefetch distances on the
    GPU; returns the sweep's rows (dicts, numbers as numbers). Needs a GPU (RuntimeError)."""
    if not isinstance(backends, str):
        backends = ",".join(backends)
    if not isinstance(distances, str):
        distances = ",".join(str(d) for d in distances)
    text, is_path, name = _source(config)
    table = _pfmc.bench(text, is_path, name, _overrides(overrides), backends, distances, repeat)
    rows: List[Dict[str, Any]] = []
    for row in _csv.DictReader(_io.StringIO(table)):
        for key, value in row.items():
            try:
                row[key] = int(value)
            except ValueError:
                try:
                    row[key] = float(value)
                except ValueError:
                    pass
        rows.append(row)
    return rows
