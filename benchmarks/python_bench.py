#!/usr/bin/env python3
"""What tracked handles cost from Python, as ratios from one run.

Rows (each against a bare pybind11 wrapper that holds a raw Operation* and
nothing else, `_mlirTracking._benchmark.BareOperation`):
  - walk: a Python object for every op of the module, collected by `walk`;
  - drop: releasing all of those objects.

Configurations are interleaved: each round measures the tracked and the bare
variant on a fresh module, in an order that alternates between rounds, and a
ratio is taken within each round. Rows print the median and range of those
ratios, for process CPU time and wall time.

Usage: PYTHONPATH=build/python_packages python3 benchmarks/python_bench.py
       [--ops 100000] [--rounds 5] [--json out.json]
"""

import argparse
import gc
import json
import statistics
import sys
import time

from mlir_tracking import ir
from mlir_tracking import _mlirTracking

OPS_PER_FUNCTION = 100


def make_module_text(num_ops):
    """Functions of OPS_PER_FUNCTION chained arith.addi ops, ~num_ops ops."""
    lines = ["module {"]
    for f in range(max(1, num_ops // (OPS_PER_FUNCTION + 2))):
        lines.append(f"  func.func @f{f}(%a: i32) -> i32 {{")
        lines.append("    %v0 = arith.addi %a, %a : i32")
        for i in range(1, OPS_PER_FUNCTION):
            lines.append(f"    %v{i} = arith.addi %v{i - 1}, %a : i32")
        lines.append(f"    return %v{OPS_PER_FUNCTION - 1} : i32")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines)


def timed(fn):
    """(cpu seconds, wall seconds) of one call of fn."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def measure_variant(text, tracked):
    """Times collecting an object per op by walk, then dropping them all."""
    with ir.Context():
        module = ir.Module.parse(text)
        collected = []

        def collect(op):
            collected.append(op)

        if tracked:
            walk = lambda: module.operation.walk(collect)
        else:
            walk = lambda: _mlirTracking._benchmark.walk_bare(
                module.operation, collect
            )
        gc.disable()
        try:
            walk_time = timed(walk)
            count = len(collected)

            def drop():
                collected.clear()

            drop_time = timed(drop)
        finally:
            gc.enable()
        del module
    return count, {"walk": walk_time, "drop": drop_time}


def summarize(values):
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)

    text = make_module_text(args.ops)
    samples = {True: [], False: []}
    count = 0
    for round_index in range(args.rounds):
        order = [True, False] if round_index % 2 == 0 else [False, True]
        for tracked in order:
            count, sample = measure_variant(text, tracked)
            samples[tracked].append(sample)

    print(f"python: {count} ops; {args.rounds} interleaved rounds")
    rows = []
    for row in ("walk", "drop"):
        result = {"row": row, "ops": count}
        for index, clock in ((0, "cpu"), (1, "wall")):
            tracked = [s[row][index] for s in samples[True]]
            bare = [s[row][index] for s in samples[False]]
            ratios = [t / b for t, b in zip(tracked, bare) if b > 0]
            result[f"tracked_{clock}_ms"] = summarize([t * 1e3 for t in tracked])
            result[f"bare_{clock}_ms"] = summarize([b * 1e3 for b in bare])
            result[f"ratio_{clock}"] = summarize(ratios) if ratios else None
        rows.append(result)
        label = {"walk": "handle to every op by walk", "drop": "drop every handle"}[
            row
        ]
        cpu, wall = result["ratio_cpu"], result["ratio_wall"]
        print(
            f"  {label:28s} tracked cpu {result['tracked_cpu_ms']['median']:8.2f} ms"
            f"  bare cpu {result['bare_cpu_ms']['median']:8.2f} ms"
            + (
                f"  ratio cpu {cpu['median']:.2f}x ({cpu['min']:.2f}-{cpu['max']:.2f})"
                f" wall {wall['median']:.2f}x ({wall['min']:.2f}-{wall['max']:.2f})"
                if cpu and wall
                else ""
            )
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": args.rounds, "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
