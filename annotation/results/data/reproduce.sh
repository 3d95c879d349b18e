#!/bin/sh
# Recompute every number of summary.json from this bundle alone and compare (README.md):
# exit 0 all equal, 1 a checksum or a number differs, 2 the gold is missing (--gold DIR).
# Needs Python 3 with numpy, jsonschema and fastjsonschema; the scorer is the bundled copy.
# PYTHON names another interpreter (one with those packages).
PYTHONDONTWRITEBYTECODE=1 exec "${PYTHON:-python3}" "$(dirname "$0")/reproduce.py" "$@"
