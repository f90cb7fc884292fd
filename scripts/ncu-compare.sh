#!/usr/bin/env bash
# ncu comparison of `none` and the fastest backend of each workload (from the benchmark's JSON):
# duration, DRAM throughput, achieved occupancy, long-scoreboard stalls, shared-memory bank
# conflicts. Usage: ncu-compare.sh BUILD_DIR OUT_DIR BENCH_JSON. Clocks are left as they are.
set -uo pipefail
B=$1
OUT=$2
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,lts__t_sector_hit_rate.pct
python3 scripts/bench-table.py "$3" --best | while read -r workload backend distance padding; do
  base=${workload%@*}
  for run in "none 4 auto" "$backend $distance $padding"; do
    set -- $run
    log="$OUT/ncu_${workload}_$1.csv"
    ncu --clock-control none -k regex:path_kernel -c 1 --csv --metrics "$metrics" \
      "./$B/pfmc" price "config/examples/$base.yaml" --device gpu --quiet --format csv \
      --backend "$1" --prefetch-distance "$2" --padding "$3" > "$log" 2>&1
    if ! grep -q gpu__time_duration "$log"; then
      ncu --clock-control none -k regex:path_kernel -c 1 --section SpeedOfLight \
        --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
        "./$B/pfmc" price "config/examples/$base.yaml" --device gpu --quiet --format csv \
        --backend "$1" --prefetch-distance "$2" --padding "$3" > "${log%.csv}.txt" 2>&1
      echo "$workload $1: metric query failed; sections in ${log%.csv}.txt"
      continue
    fi
    python3 - "$log" "$workload" "$1/d$2/$3" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]
values = {}
for r in rows[1:]:
    values[r[head.index("Metric Name")]] = (r[head.index("Metric Value")], r[head.index("Metric Unit")])
short = {
    "gpu__time_duration.sum": "time",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%",
    "sm__maximum_warps_per_active_cycle_pct": "occ_theory%",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": "long_sb",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": "barrier",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue%",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "bank_ld",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "bank_st",
    "lts__t_sector_hit_rate.pct": "l2_hit%",
}
print(f"ncu {sys.argv[2]:28} {sys.argv[3]:28} " + " ".join(
    f"{short[k]}={values[k][0]}{values[k][1] if k == 'gpu__time_duration.sum' else ''}"
    for k in short if k in values))
PY
  done
done
