"""What pfmc's report plots share (bench/plot_risk.py, bench/plot_smiles.py): the command line
(a report's JSON, --output PNG), reading the report, matplotlib without a display, the PNG.
Exit status of run(): 0 when the PNG is written, 2 for bad arguments or a report with nothing
to draw, 1 when matplotlib is missing."""

import argparse
import json
import sys


def run(prog, doc, what, panels_of, nothing, draw):
    """Reads the report named on the command line, takes its panels (`panels_of(report)`; an
    empty list: `nothing`, the reason there is no plot) and draws them with `draw(plt, report,
    panels)`, which returns the figure that goes to --output."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    parser.add_argument("report", help="the JSON that %s prints" % what)
    parser.add_argument("--output", required=True, help="the PNG to write")
    args = parser.parse_args()
    try:
        with open(args.report, encoding="utf-8") as f:
            report = json.load(f)
        panels = panels_of(report)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("%s: cannot read %s: %s" % (prog, args.report, e), file=sys.stderr)
        return 2
    if not panels:
        print("%s: %s %s" % (prog, args.report, nothing), file=sys.stderr)
        return 2
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    except ImportError:
        print("%s: matplotlib is missing (python3-matplotlib)" % prog, file=sys.stderr)
        return 1
    figure = draw(plt, report, panels)
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    return 0
