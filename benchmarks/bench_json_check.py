#!/usr/bin/env python3
"""Checks that tracking-bench's JSON statistics describe its rounds (ctest:
benchmark.json.check).

Runs tracking-bench at a tiny size and checks, for every row: one value per
round in `rounds`, and the median, range and 95% confidence interval of the
median computed again from those values by bench_stats.median_interval (the
rule python_bench.py uses; its ranks are checked against a known answer
first). Timings are not checked, only that the statistics describe the
samples printed with them.

Usage: bench_json_check.py path/to/tracking-bench
"""

import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_stats import median_interval  # noqa: E402

ROUNDS = 13


def fail(message):
    sys.exit(f"bench_json_check: {message}")


def check_known_intervals():
    # Ranks 40 and 61 of 100: the textbook 95% interval of a median.
    got = median_interval(list(range(100, 0, -1)))
    if got != [40, 61]:
        fail(f"median_interval of 1..100 is {got}, expected [40, 61]")
    # Too few samples for an interval narrower than the range.
    if median_interval([3.0, 1.0, 2.0]) != [1.0, 3.0]:
        fail("median_interval of three samples is not their range")
    if median_interval([5.0]) != [5.0, 5.0]:
        fail("median_interval of one sample is not that sample")


def check_stats(where, stats, count):
    values = stats.get("rounds")
    if not isinstance(values, list) or len(values) != count:
        fail(f"{where}: expected {count} values in 'rounds', got {values!r}")
    expected = {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }
    for key, value in expected.items():
        if abs(stats[key] - value) > 1e-9 * max(1.0, abs(value)):
            fail(f"{where}: {key} {stats[key]} but the rounds give {value}")
    low, high = stats["median_ci95"]
    if [low, high] != median_interval(values):
        fail(
            f"{where}: median_ci95 {[low, high]} but the rounds give "
            f"{median_interval(values)}"
        )
    if not stats["min"] <= low <= stats["median"] <= high <= stats["max"]:
        fail(f"{where}: the interval {[low, high]} does not hold the median")


def main(argv):
    if len(argv) != 2:
        fail("usage: bench_json_check.py path/to/tracking-bench")
    check_known_intervals()
    result = subprocess.run(
        [
            argv[1],
            "--sizes=1000",
            "--thread-counts=1",
            f"--rounds={ROUNDS}",
            "--skip-memory",
            "--json=-",
        ],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        fail(f"tracking-bench exited with {result.returncode}: {result.stderr}")
    document = json.loads(result.stdout)
    if document["rounds"] != ROUNDS:
        fail(f"the document says {document['rounds']} rounds, not {ROUNDS}")
    rows = document["rows"]
    if not rows:
        fail("no rows")
    ratios = 0
    for row in rows:
        name = row["config"]
        for key in ("cpu_ms", "wall_ms", "minor_faults"):
            check_stats(f"{name} {key}", row[key], ROUNDS)
        if "baseline" in row:
            ratios += 1
            for key in ("ratio_cpu", "ratio_wall"):
                check_stats(f"{name} {key}", row[key], ROUNDS)
    if ratios != len(rows) - 2:  # every row but the two baselines
        fail(f"{ratios} rows with ratios of {len(rows)}")
    print(f"bench_json_check: {len(rows)} rows of {ROUNDS} rounds consistent")


if __name__ == "__main__":
    main(sys.argv)
