#!/usr/bin/env bash
# Same prices from two pfmc binaries: every example config × a set of option lines, on the CPU,
# JSON results compared with timings and the run block left out (a refusal compares as its
# message). For refactors that must not change a bit (bench/NOTES.md v17 used it).
# Usage: scripts/compare-prices.sh OLD_PFMC NEW_PFMC [WORK_DIR]
set -uo pipefail
if [ $# -lt 2 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,5p' "$0"
  exit 2
fi
old=$(realpath "$1") new=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work" && work=$(realpath "$work")
cd "$(dirname "$0")/.." || exit 2
options=(
  "--paths 20000" "--paths 20000 --rng mrg32k3a" "--paths 20000 --rng sobol"
  "--paths 20000 --rng scrambled_sobol --replicates 4"
  "--paths 20000 --antithetic --control-variate" "--paths 20000 --precision float"
  "--paths 20000 --greeks delta,vega --max-device-memory 1MiB"
  "--paths 30000 --draw-batch-size 0 --max-device-memory 2MiB --rng mrg32k3a"
  "--paths 60000 --draw-batch-size 0 --max-device-memory 40MiB --rng mrg32k3a --cpu-threads 1"
  "--paths 60000 --max-device-memory 40MiB --rng scrambled_sobol --antithetic"
)
# The run's results without what varies between runs of the same bits.
strip='
import json, sys
text = sys.stdin.read()
try:
    j = json.loads(text)
except ValueError:
    print("refused:", text.strip()); sys.exit()
j.pop("run", None)
def keep(o):
    if isinstance(o, dict):
        return {k: keep(v) for k, v in o.items() if not k.endswith("_ms")}
    return [keep(x) for x in o] if isinstance(o, list) else o
print(json.dumps(keep(j), sort_keys=True))'
runs=0 differ=0
for config in config/examples/*.yaml; do
  for opts in "${options[@]}"; do
    runs=$((runs + 1))
    for side in old new; do
      bin=$old; [ $side = new ] && bin=$new
      # shellcheck disable=SC2086 # the option line is split on purpose
      timeout 300 "$bin" price "$config" --device cpu --quiet --format json --cpu-threads 2 $opts \
        2>&1 | python3 -c "$strip" > "$work/$side.$runs.json"
    done
    if ! cmp -s "$work/old.$runs.json" "$work/new.$runs.json"; then
      differ=$((differ + 1))
      echo "differs: $config $opts ($work/old.$runs.json, $work/new.$runs.json)"
    fi
  done
done
echo "$runs runs, $differ differ ($(grep -l '^refused' "$work"/new.*.json | wc -l) of them refusals)"
[ "$differ" -eq 0 ]
