#!/usr/bin/env python3
"""Plots what tracking costs, from tracking-bench's JSON.

Left: CPU time of `func.func(canonicalize,cse)` and of a non-precise function
pass against IR size (10k to 1M ops): upstream's passes, ours tracked with
0/10/100% of the ops held, and, for the non-precise pass, no tracking,
walk-everything invalidation and our scope index.
Right: the tracked pipeline's cost ratio against the fraction of ops held.

Usage:
  python3 scripts/plot_bench.py [--bench build/bin/tracking-bench]
      [--json bench.json] [--output docs/benchmarks.png] [--rounds 3]
Without --json it runs the benchmark sweep first and keeps its JSON next to
the plot (<output>.json).
"""

import argparse
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SIZES = "10000,30000,100000,300000,1000000"
HELD = "0,1,10,30,100"

SIZE_SERIES = [
    ("precise", "upstream passes", "upstream canonicalize,cse", "-", "black"),
    ("precise", "ours, 0% held", "tracked, 0% held", "-", "tab:blue"),
    ("precise", "ours, 10% held", "tracked, 10% held", "-", "tab:orange"),
    ("precise", "ours, 100% held", "tracked, 100% held", "-", "tab:red"),
    ("fallback", "no tracking", "non-precise pass, untracked", "--", "gray"),
    ("fallback", "walk everything", "non-precise: walk everything", "--", "tab:purple"),
    ("fallback", "scope index (ours)", "non-precise: scope index (ours)", "--", "tab:green"),
]


def run_bench(bench, json_path, rounds):
    subprocess.run(
        [
            bench,
            f"--sizes={SIZES}",
            f"--held={HELD}",
            "--thread-counts=1,2",
            f"--rounds={rounds}",
            f"--json={json_path}",
        ],
        check=True,
    )


def plot(data, output):
    rows = data["rows"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))

    for group, config, label, style, color in SIZE_SERIES:
        points = sorted(
            (r["ops"], r["cpu_ms"]["median"])
            for r in rows
            if r["group"] == group and r["config"] == config and r["threads"] == 1
        )
        if points:
            xs, ys = zip(*points)
            left.plot(xs, ys, style, marker="o", color=color, label=label)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("ops in the module")
    left.set_ylabel("CPU time, median (ms)")
    left.set_title("Cost against IR size (1 thread)")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8)

    largest = max(r["ops"] for r in rows)
    for threads, marker in ((1, "o"), (2, "s")):
        points = []
        for r in rows:
            if (
                r["group"] == "precise"
                and r["ops"] == largest
                and r["threads"] == threads
                and r["config"].startswith("ours, ")
                and r["config"].endswith("% held")
                and r.get("ratio_cpu")
            ):
                percent = float(r["config"][len("ours, ") : -len("% held")])
                ratio = r["ratio_cpu"]
                # The median's 95% interval where the JSON has one (it
                # narrows with rounds), else the range.
                low, high = ratio.get("median_ci95", (ratio["min"], ratio["max"]))
                points.append((percent, ratio["median"], low, high))
        if not points:
            continue
        points.sort()
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        errors = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
        right.errorbar(
            xs,
            ys,
            yerr=errors,
            marker=marker,
            capsize=3,
            label=f"{threads} thread{'s' if threads > 1 else ''}",
        )
    right.axhline(1.0, color="black", linewidth=0.8)
    right.set_xlabel("% of ops held")
    right.set_ylabel("CPU time / upstream passes (median, 95% interval)")
    right.set_title(f"Tracked canonicalize,cse at {largest} ops")
    right.grid(True, alpha=0.3)
    right.legend(fontsize=8)

    fig.tight_layout()
    fig.savefig(output, dpi=110)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="build/bin/tracking-bench")
    parser.add_argument("--json", default="")
    parser.add_argument("--output", default="docs/benchmarks.png")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    json_path = args.json
    if not json_path:
        json_path = os.path.splitext(args.output)[0] + ".json"
        run_bench(args.bench, json_path, args.rounds)
    try:
        with open(json_path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        print(f"plot_bench: cannot read the figures: {error}", file=sys.stderr)
        return 1
    plot(data, args.output)
    print(f"plot_bench: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
