#!/usr/bin/env bash
# Scaling of split runs over this host's GPUs: scripts/scale-check.py (its --help says what it
# measures); kept under this name for the callers that know it.
exec python3 "$(dirname "$0")/scale-check.py" "$@"
