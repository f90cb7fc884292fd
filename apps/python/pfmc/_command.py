"""The `pfmc` command of an installed package (pyproject.toml's entry point): runs the program
installed beside the package, pfmc/bin/pfmc, with the same arguments, environment and exit status."""

import os
import sys
from typing import List, Optional


def program() -> str:
    """The path of the `pfmc` program installed with the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "pfmc")


def main(argv: Optional[List[str]] = None) -> None:
    path = program()
    if not os.access(path, os.X_OK):
        sys.stderr.write(f"pfmc: {path} is missing: this copy of the package was not installed "
                         "with its program (pip install builds both)\n")
        sys.exit(1)
    arguments = sys.argv[1:] if argv is None else argv
    os.execv(path, ["pfmc"] + arguments)


if __name__ == "__main__":
    main()
