#!/usr/bin/env python3
"""ctest's smoke run of simulated_bench.py: two configurations at a tiny
size; checks the table's and the JSON's structure and plain facts (the
baseline's ratio is 1, counts are positive), never a ratio's value; then
that bad input (a configuration that does not exist, a missing binary or
valgrind, a bad cache geometry, a program that fails under valgrind) gets
one line and exit code 1.

Usage: simulated_bench_smoke.py TRACKING_BENCH
"""

import json
import os
import subprocess
import sys

CONFIGS = ("upstream passes", "ours, 10% held")


def fail(message, output=""):
    print(f"simulated_bench_smoke: {message}\n{output}", file=sys.stderr)
    return 1


def main(argv):
    if len(argv) != 1:
        return fail("usage: simulated_bench_smoke.py TRACKING_BENCH")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "simulated_bench.py")
    command = [sys.executable, tool, f"--bench={argv[0]}", "--sizes=400",
               "--jobs=2", "--json=-"]
    for config in CONFIGS:
        command += ["--only", config]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return fail(f"exit code {result.returncode}", result.stderr)
    # The table goes to stderr with --json=-.
    table = result.stderr
    for text in ("est. cycles = Ir + 10 x", "ops (--sizes=400)", *CONFIGS):
        if text not in table:
            return fail(f"no {text!r} in the table", table)
    try:
        document = json.loads(result.stdout)
    except json.JSONDecodeError as error:
        return fail(f"the JSON does not parse: {error}", result.stdout)
    rows = document["rows"]
    if [row["config"] for row in rows] != list(CONFIGS):
        return fail("rows are not the two configurations", result.stdout)
    for row in rows:
        for key in ("instructions", "l1_misses", "ll_misses", "cycles", "ops"):
            if not row[key] > 0:
                return fail(f"{row['config']}: {key} is {row[key]}")
        if row["baseline"] != "upstream passes":
            return fail(f"{row['config']}: baseline {row['baseline']!r}")
        if row["cycles"] <= row["instructions"]:
            return fail(f"{row['config']}: cycles not above instructions")
    if any(value != 1 for value in rows[0]["ratio"].values()):
        return fail(f"the baseline's ratios are {rows[0]['ratio']}")
    if document["scope_index_vs_walk"]:
        return fail("a scope-index pair without its configurations")

    # Bad input: one line naming the problem and exit code 1, no traceback.
    bad_runs = (
        (["--only", "no such configuration"], "matches no configuration"),
        (["--bench=/nonexistent/tracking-bench"], "is not an executable"),
        (["--valgrind=/nonexistent/valgrind"], "not found"),
        (["--LL=2097152,16"], "wants SIZE,ASSOC,LINE"),
        (["--bench=/bin/false", "--only", "upstream passes"], "exited with 1"),
    )
    for extra, message in bad_runs:
        bad = subprocess.run(
            [sys.executable, tool, f"--bench={argv[0]}", "--sizes=400", *extra],
            capture_output=True, text=True)
        if (bad.returncode != 1 or message not in bad.stderr
                or "Traceback" in bad.stderr):
            return fail(f"{extra}: exit code {bad.returncode}, want 1 and "
                        f"{message!r}", bad.stderr)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
