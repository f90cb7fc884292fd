#!/usr/bin/env bash
# The mutation check: the bugs of tests/mutations.txt planted one at a time, each caught by a
# failing test. scripts/mutation-check.sh --help says how (scripts/mutation_check.py).
exec python3 "$(dirname "$0")/mutation_check.py" "$@"
