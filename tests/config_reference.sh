#!/usr/bin/env bash
# ctest config_reference: the committed config reference (docs/config.md) and JSON Schema
# (docs/pfmc.schema.json) are what `pfmc schema` prints, and every shipped example validates
# against that schema with a stock validator (tests/schema_examples.py).
# Usage: tests/config_reference.sh PFMC SOURCE_DIR PYTHON
set -euo pipefail
pfmc=$1 source=$2 python=${3:-python3}
status=0
for pair in "markdown:docs/config.md" "json-schema:docs/pfmc.schema.json"; do
  format=${pair%%:*} file=${pair#*:}
  if ! diff -u "$source/$file" <("$pfmc" schema --format "$format") > /tmp/pfmc-schema-diff.$$; then
    echo "FAIL: $file differs from \`pfmc schema --format $format\` (config/key_reference.cpp"
    echo "      changed?): regenerate it with \`pfmc schema --format $format -o $file\`"
    head -40 /tmp/pfmc-schema-diff.$$
    status=1
  else
    echo "ok: $file is what \`pfmc schema --format $format\` prints"
  fi
  rm -f /tmp/pfmc-schema-diff.$$
done
# PyYAML and jsonschema carried to a machine without them (scripts/carry-deps.sh --pytest), after
# the interpreter's own.
[ -n "${PFMC_TEST_TOOLS:-}" ] && export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PFMC_TEST_TOOLS"
"$python" "$source/tests/schema_examples.py" "$source/docs/pfmc.schema.json" "$source/config/examples" || status=1
exit $status
