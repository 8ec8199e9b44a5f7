#!/usr/bin/env python3
"""What tracked handles cost from Python, as ratios from one run.

Rows (each against a bare pybind11 wrapper that holds a raw Operation* and
nothing else, `_mlirTracking._benchmark.BareOperation`):
  - walk: a Python object for every op of the module, collected by `walk`;
  - drop: releasing all of those objects.
Rows for `PassManager.run` (RUN_PIPELINE on the module):
  - run held: with a handle to every op held, against none held;
  - run with a second tree: with another (small, unrelated) module in the
    context, against the module alone (the run guard then walks the IR to
    look for uses linking the trees; alone it does not).

Configurations are interleaved: each round measures the tracked and the bare
variant on a fresh module, in an order that alternates between rounds, and a
ratio is taken within each round. Rows print the median and range of those
ratios, for process CPU time and wall time.

Usage: PYTHONPATH=build/python_packages python3 benchmarks/python_bench.py
       [--ops 100000] [--rounds 5] [--warmup 1] [--json out.json]
"""

import argparse
import gc
import json
import statistics
import sys
import time

from mlir_tracking import ir
from mlir_tracking import _mlirTracking
from mlir_tracking.passmanager import PassManager

OPS_PER_FUNCTION = 100
RUN_PIPELINE = "builtin.module(func.func(canonicalize,cse))"


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


def measure_run(text, held, second_tree):
    """Times one PassManager.run of RUN_PIPELINE on a fresh module."""
    with ir.Context():
        module = ir.Module.parse(text)
        handles = []
        if held:
            module.operation.walk(handles.append)
        other = ir.Module.parse("func.func @g() { return }") if second_tree else None
        pm = PassManager.parse(RUN_PIPELINE)
        gc.disable()
        try:
            run_time = timed(lambda: pm.run(module.operation))
        finally:
            gc.enable()
        del handles, other, module
    return run_time


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
    parser.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="rounds run first and not counted (first-use costs)",
    )
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)

    text = make_module_text(args.ops)
    samples = {True: [], False: []}
    # (held, second tree) -> one (cpu, wall) per round.
    run_configs = [(False, False), (True, False), (False, True)]
    run_samples = {config: [] for config in run_configs}
    count = 0
    for round_index in range(-args.warmup, args.rounds):
        counted = round_index >= 0
        order = [True, False] if round_index % 2 == 0 else [False, True]
        for tracked in order:
            count, sample = measure_variant(text, tracked)
            if counted:
                samples[tracked].append(sample)
        shift = round_index % len(run_configs)
        for config in run_configs[shift:] + run_configs[:shift]:
            sample = measure_run(text, *config)
            if counted:
                run_samples[config].append(sample)

    print(f"python: {count} ops; {args.rounds} interleaved rounds")
    rows = []

    def add_row(row, label, tracked, bare, names):
        """tracked/bare: per-round (cpu, wall) samples; names: their labels."""
        result = {"row": row, "ops": count}
        for index, clock in ((0, "cpu"), (1, "wall")):
            t = [sample[index] for sample in tracked]
            b = [sample[index] for sample in bare]
            ratios = [x / y for x, y in zip(t, b) if y > 0]
            result[f"{names[0]}_{clock}_ms"] = summarize([x * 1e3 for x in t])
            result[f"{names[1]}_{clock}_ms"] = summarize([y * 1e3 for y in b])
            result[f"ratio_{clock}"] = summarize(ratios) if ratios else None
        rows.append(result)
        cpu, wall = result["ratio_cpu"], result["ratio_wall"]
        print(
            f"  {label:34s} {names[0]} cpu {result[names[0] + '_cpu_ms']['median']:8.2f} ms"
            f"  {names[1]} cpu {result[names[1] + '_cpu_ms']['median']:8.2f} ms"
            + (
                f"  ratio cpu {cpu['median']:.2f}x ({cpu['min']:.2f}-{cpu['max']:.2f})"
                f" wall {wall['median']:.2f}x ({wall['min']:.2f}-{wall['max']:.2f})"
                if cpu and wall
                else ""
            )
        )

    for row, label in (
        ("walk", "handle to every op by walk"),
        ("drop", "drop every handle"),
    ):
        add_row(
            row,
            label,
            [s[row] for s in samples[True]],
            [s[row] for s in samples[False]],
            ("tracked", "bare"),
        )
    add_row(
        "run_held",
        "PassManager.run, every op held",
        run_samples[(True, False)],
        run_samples[(False, False)],
        ("held", "none"),
    )
    add_row(
        "run_second_tree",
        "PassManager.run, a second tree",
        run_samples[(False, True)],
        run_samples[(False, False)],
        ("two", "one"),
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"rounds": args.rounds, "warmup": args.warmup, "rows": rows},
                f,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
