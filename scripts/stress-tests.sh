#!/usr/bin/env bash
# Runs tests again and again on a busy machine and lists every test that failed at least once.
#
#   scripts/stress-tests.sh [-n RUNS] [-b BUSY] [PYTEST ARGS...]
#
# RUNS (default 5) runs of `scripts/test.sh PYTEST ARGS` (default: the browser tests,
# tests/e2e), each while BUSY (default: twice the number of cores) processes spin on the
# CPU, so that the load average stays above the core count, as on a loaded CI machine.
# A test that passes alone and fails here waits for something with a timeout, or races
# the page. Exit status 0 when every test passed in every run, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

runs=5
busy=$((2 * $(nproc)))
while getopts "n:b:" option; do
    case "$option" in
    n) runs=$OPTARG ;;
    b) busy=$OPTARG ;;
    *) die "usage: scripts/stress-tests.sh [-n RUNS] [-b BUSY] [PYTEST ARGS...]" ;;
    esac
done
shift $((OPTIND - 1))
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "-n must be a positive whole number, not '$runs'"
[[ "$busy" =~ ^[0-9]+$ ]] || die "-b must be a whole number, not '$busy'"
[ $# -gt 0 ] || set -- tests/e2e

results=$(mktemp -d)
spinners=()
stop_spinners() {
    [ ${#spinners[@]} -eq 0 ] || kill "${spinners[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$results"
}
on_exit stop_spinners
for ((i = 0; i < busy; i++)); do
    (while :; do :; done) &
    spinners+=($!)
done
say "$busy busy processes on $(nproc) cores; $runs runs of: $*"

for ((run = 1; run <= runs; run++)); do
    say "run $run of $runs (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    # --tb=native: pytest's own traceback parses the failing test's source (ast), which in a
    # Playwright greenlet on Python 3.11 can end the whole session with "SystemError: AST
    # constructor recursion depth mismatch" instead of reporting the one failure.
    ./scripts/test.sh -p no:cacheprovider -q --tb=native --junitxml="$results/run-$run.xml" "$@" || true
done

say "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
"$VENV/bin/python" - "$results" "$runs" <<'PY'
"""Every test that failed (or errored) in at least one run, with how often and its first message."""
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

folder, runs = Path(sys.argv[1]), int(sys.argv[2])
failed, first_message, seen = Counter(), {}, Counter()
for report in sorted(folder.glob("run-*.xml")):
    for case in ElementTree.parse(report).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        seen[name] += 1
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            failed[name] += 1
            first_message.setdefault(name, (problem.get("message") or "").splitlines()[0][:200] if problem.get("message") else "")
missing = runs - len(list(folder.glob("run-*.xml")))
print(f"{len(seen)} tests, {runs} runs" + (f" ({missing} ended without a report)" if missing else ""))
for name, count in sorted(failed.items(), key=lambda pair: (-pair[1], pair[0])):
    print(f"FAILED {count}/{seen[name]}  {name}  {first_message[name]}")
if not failed and not missing:
    print("every test passed in every run")
sys.exit(1 if failed or missing else 0)
PY
