#!/usr/bin/env bash
# The function-length audit of issue 10: clang-tidy's readability-function-size check over the
# host sources of engine/, config/ and apps/ (functions over LINES lines, default 120, counted
# by clang-tidy: the body's lines, comments and blank lines included). CUDA sources (.cu) are
# not checked: clang-tidy cannot take their nvcc compile commands. Uses the compile commands
# of a build folder (configured here with CMAKE_EXPORT_COMPILE_COMMANDS=ON if it has none).
# Usage: scripts/function-sizes.sh [BUILD_DIR] [LINES]. Prints one line per function over the
# limit and a count; exit 0 when there is none, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
lines=${2:-120}
tidy=$(command -v clang-tidy || command -v clang-tidy-16 || command -v clang-tidy-15 || command -v clang-tidy-14 || true)
[ -n "$tidy" ] || { echo "function-sizes: clang-tidy not found (Debian: clang-tidy)" >&2; exit 2; }
if [ ! -f "$build/compile_commands.json" ]; then
  cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > /dev/null || exit 2
fi
config="{Checks: '-*,readability-function-size', CheckOptions: [{key: readability-function-size.LineThreshold, value: $lines}]}"
# One clang-tidy a file, as many at once as there are cores, each file's diagnostics in a file of
# its own (a warning and its note stay together), read back in the files' order.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
git ls-files 'engine/*.cpp' 'config/*.cpp' 'apps/*.cpp' | nl -nrz -w4 -s' ' |
  xargs -P "$(nproc)" -L 1 bash -c \
    '"$0" -p "$1" --quiet --config="$2" "$5" > "$3/$4.txt" 2>/dev/null; exit 0' \
    "$tidy" "$build" "$config" "$out"
# Each function over the limit: clang-tidy's warning (file:line, the function) and the note that
# follows it (its line count), joined on one line.
over=$(cat "$out"/*.txt \
  | grep -E "warning: function '.*' exceeds recommended size|note: [0-9]+ lines including" \
  | paste - - | sed -E 's/ exceeds recommended size.*note: ([0-9]+) lines.*/: \1 lines/' | sort -u)
count=$(printf '%s' "$over" | grep -c . || true)
[ -z "$over" ] || printf '%s\n' "$over"
echo "function-sizes: $count function(s) over $lines lines in engine/, config/, apps/ (.cpp)"
[ "$count" -eq 0 ]
