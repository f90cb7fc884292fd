#!/usr/bin/env python3
"""Draw the chart of a `pfmc bench --csv` file: the path kernel's speedup over the `none`
backend against the prefetch distance, one line per backend (and padding), one panel per
simulation group, stacked vertically in one PNG.

`pfmc bench --plot FILE.png` runs this script on the CSV it writes; it can also be run by hand
on any CSV that `pfmc bench --csv` wrote (older files without the generation_ms and total_*
columns too). Needs matplotlib (Debian: `sudo apt-get install python3-matplotlib`), which is
imported only once the CSV has been read, so that a bad CSV is reported without it.

Exit status: 0 when the PNG is written, 2 for bad arguments or a bad CSV, 1 when matplotlib is
missing or the PNG cannot be written.
"""

import argparse
import csv
import math
import os
import sys
import tempfile

PROG = "plot_sweep.py"
REQUIRED_COLUMNS = ("model", "steps", "backend", "prefetch_distance", "padding", "speedup")

# The colours the series take in order; after the 16, the lines repeat them with another dash
# pattern, so that up to 80 series stay apart.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#000080", "#800000", "#008080", "#cc9900", "#000000", "#be00be",
)  # fmt: skip
DASHES = ("-", (0, (4.5, 2.5)), (0, (1, 1.5)), (0, (5, 1.5, 1, 1.5)), (0, (9, 3)))

PANEL_INCHES = (9.0, 5.6)  # at 100 dpi: 900 x 560 pixels a panel
DPI = 100


class CsvError(Exception):
    """A CSV that is not what `pfmc bench --csv` writes; the message names the file and line."""


class Group:
    """One simulation group of the sweep (one panel): its measurements in file order."""

    def __init__(self, model, steps):
        self.model = model
        self.steps = steps
        self.rows = []  # (backend, prefetch distance, padding, speedup)


def read_sweep(path):
    """The groups of the CSV in the order they first appear."""
    try:
        handle = open(path, newline="", encoding="utf-8")
    except OSError as error:
        raise CsvError(f"{path}: cannot read: {error.strerror}") from None
    with handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None:
            raise CsvError(f"{path}: empty file (expected the CSV of `pfmc bench --csv`)")
        missing = [c for c in REQUIRED_COLUMNS if c not in reader.fieldnames]
        if missing:
            raise CsvError(
                f"{path}:1: missing column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(missing)} (expected the CSV of `pfmc bench --csv`)"
            )
        groups = {}
        for row in reader:
            line = reader.line_num
            if None in row or any(row[c] is None for c in REQUIRED_COLUMNS):
                raise CsvError(f"{path}:{line}: expected {len(reader.fieldnames)} fields")
            steps = parse_number(path, line, "steps", row["steps"], int)
            distance = parse_number(path, line, "prefetch_distance", row["prefetch_distance"], int)
            speedup = parse_number(path, line, "speedup", row["speedup"], float)
            key = (row["model"], steps)
            group = groups.setdefault(key, Group(row["model"], steps))
            group.rows.append((row["backend"], distance, row["padding"], speedup))
    if not groups:
        raise CsvError(f"{path}: no measurements (only a header)")
    return list(groups.values())


def parse_number(path, line, column, text, kind):
    try:
        return kind(text)
    except ValueError:
        raise CsvError(f"{path}:{line}: {column}: '{text}' is not a number") from None


def series_of(group):
    """label -> sorted [(distance, speedup)], labels sorted.

    The CSV does not say which backends take a prefetch distance or a padding; the sweep does:
    a backend without a distance is measured at distance 0 (not plotted: there is no x for it),
    and one with a shared-memory ring is measured at every padding (auto, none, slot_major), so a
    padding other than auto marks it. Such a backend gets one line per padding.
    """
    padded = {b for b, _, padding, _ in group.rows if padding != "auto"}
    lines = {}
    for backend, distance, padding, speedup in group.rows:
        if distance <= 0:
            continue
        label = f"{backend} ({padding})" if backend in padded else backend
        lines.setdefault(label, {})[distance] = speedup  # a repeated point: the last one wins
    return {label: sorted(points.items()) for label, points in sorted(lines.items())}


def draw(groups, output):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    width, height = PANEL_INCHES
    figure, axes = plt.subplots(
        len(groups), 1, figsize=(width, height * len(groups)), dpi=DPI, squeeze=False
    )
    for ax, group in zip(axes[:, 0], groups):
        lines = series_of(group)
        ax.set_title(f"model '{group.model}': speedup over none ({group.steps} steps)")
        ax.set_xlabel("prefetch distance")
        ax.set_ylabel("speedup over none")
        ax.axhline(1.0, color="#5a5a5a", linestyle=(0, (6, 4)), linewidth=1, zorder=1.8)
        # `ideal` (the bench's free-draws kernel): the ceiling every loader is measured against.
        for backend, _, _, speedup in group.rows:
            if backend == "ideal" and math.isfinite(speedup):
                ax.axhline(speedup, color="#000000", linestyle=(0, (1, 2)), linewidth=1.2,
                           zorder=1.9, label="ideal (free draws)")
                break
        distances = sorted({d for points in lines.values() for d, _ in points})
        for index, (label, points) in enumerate(lines.items()):
            x = [d for d, _ in points]
            # A point that is not finite is not drawn, and the line breaks there.
            y = [s if math.isfinite(s) else math.nan for _, s in points]
            ax.plot(
                x, y, label=label, color=PALETTE[index % len(PALETTE)],
                linestyle=DASHES[(index // len(PALETTE)) % len(DASHES)],
                linewidth=1.5, marker="s", markersize=3.5, zorder=2,
            )  # fmt: skip
        if distances:
            ax.set_xscale("log", base=2)
            # Labels at the distances measured, not at every power of two.
            ax.xaxis.set_major_locator(FixedLocator(distances))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.set_xticklabels([str(d) for d in distances])
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small",
                      borderaxespad=0.0)  # fmt: skip
        else:
            ax.text(0.5, 0.5, "no backend with a prefetch distance was measured",
                    transform=ax.transAxes, ha="center", va="center", color="#6e6e6e")  # fmt: skip
        ax.grid(True, color="#e4e4e4", linewidth=0.8, zorder=0)
    figure.tight_layout()
    save_atomically(figure, output)
    plt.close(figure)


def save_atomically(figure, output):
    """Writes the PNG through a uniquely named temporary file in the destination's folder and a
    rename, so that a failure never leaves a half-written file behind."""
    folder = os.path.dirname(os.path.abspath(output))
    descriptor, temporary = tempfile.mkstemp(
        prefix="." + os.path.basename(output) + ".", suffix=".tmp", dir=folder
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(handle.fileno(), 0o666 & ~umask)  # not mkstemp's 0600
            figure.savefig(handle, format="png")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, output)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Draw the speedup over `none` against prefetch distance from the CSV "
        "that `pfmc bench --csv` writes: one line per backend (and padding), one panel per "
        "simulation group, as a PNG.",
        epilog="Needs matplotlib (Debian: sudo apt-get install python3-matplotlib). Exit "
        "status: 0 written; 2 bad arguments or CSV; 1 no matplotlib or the PNG cannot be written.",
    )
    parser.add_argument("csv", help="the CSV written by `pfmc bench --csv FILE`")
    parser.add_argument(
        "-o", "--output", help="the PNG to write (default: the CSV's name with .png)"
    )
    args = parser.parse_args(argv)
    output = args.output or os.path.splitext(args.csv)[0] + ".png"

    try:
        groups = read_sweep(args.csv)
    except CsvError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    try:
        draw(groups, output)
    except ImportError as error:
        print(
            f"{PROG}: error: {sys.executable} cannot import matplotlib ({error}): install it "
            "(sudo apt-get install python3-matplotlib) or run the script with a Python that has it",
            file=sys.stderr,
        )
        return 1
    except OSError as error:
        print(f"{PROG}: error: cannot write {output}: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
