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
ratio is taken within each round. Rows print the median of those ratios, a
95% confidence interval of the median in brackets and their range, for
process CPU time and wall time.

With --dump-timed-calls (under callgrind started with --instr-atstart=no:
benchmarks/simulated_bench.py --python), each variant's module is
instrumented from its parsing on (the interpreter's start and imports are
not), and each timed call is bracketed by callgrind's client requests: its
counters are zeroed before the call and dumped after it, the dump's trigger
naming the row, the variant and the round ("walk tracked round 0").

Usage: PYTHONPATH=build/python_packages python3 benchmarks/python_bench.py
       [--ops 100000] [--rounds 5] [--warmup 1] [--rows walk,drop,run]
       [--dump-timed-calls] [--json out.json]
"""

import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_stats import summarize  # noqa: E402

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


# Set by --dump-timed-calls: "<round>" label suffix of each callgrind dump.
dump_round = None


def timed(fn, label):
    """(cpu seconds, wall seconds) of one call of fn; with
    --dump-timed-calls, callgrind dumps the call as "<label> <round>"."""
    if dump_round is not None:
        _mlirTracking._benchmark.callgrind_zero_stats()
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    result = time.process_time() - cpu, time.perf_counter() - wall
    if dump_round is not None:
        _mlirTracking._benchmark.callgrind_dump_stats(f"{label} {dump_round}")
    return result


def module_op_count(num_ops):
    """The ops of make_module_text(num_ops), the module included."""
    return max(1, num_ops // (OPS_PER_FUNCTION + 2)) * (OPS_PER_FUNCTION + 2) + 1


def instrument(on):
    """With --dump-timed-calls: callgrind's instrumentation on or off."""
    if dump_round is not None:
        _mlirTracking._benchmark.callgrind_instrument(on)


def measure_variant(text, tracked):
    """Times collecting an object per op by walk, then dropping them all."""
    instrument(True)
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
        variant = "tracked" if tracked else "bare"
        gc.disable()
        try:
            walk_time = timed(walk, f"walk {variant}")
            count = len(collected)

            def drop():
                collected.clear()

            drop_time = timed(drop, f"drop {variant}")
        finally:
            gc.enable()
        del module
    instrument(False)
    return count, {"walk": walk_time, "drop": drop_time}


def measure_run(text, held, second_tree):
    """Times one PassManager.run of RUN_PIPELINE on a fresh module."""
    instrument(True)
    with ir.Context():
        module = ir.Module.parse(text)
        handles = []
        if held:
            module.operation.walk(handles.append)
        other = ir.Module.parse("func.func @g() { return }") if second_tree else None
        pm = PassManager.parse(RUN_PIPELINE)
        label = "run " + ("held" if held else "two" if second_tree else "none")
        gc.disable()
        try:
            run_time = timed(lambda: pm.run(module.operation), label)
        finally:
            gc.enable()
        del handles, other, module
    instrument(False)
    return run_time


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
    parser.add_argument(
        "--rows",
        default="walk,drop,run",
        help="what to measure: walk and drop (measured together), run (the "
        "PassManager.run rows)",
    )
    parser.add_argument(
        "--dump-timed-calls",
        action="store_true",
        help="under callgrind: zero its counters before each timed call and "
        "dump them after it (benchmarks/simulated_bench.py --python)",
    )
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    if args.ops < 1 or args.rounds < 1 or args.warmup < 0:
        parser.error("--ops and --rounds want at least 1, --warmup at least 0")
    rows_wanted = set(args.rows.split(","))
    unknown = rows_wanted - {"walk", "drop", "run"}
    if unknown or not rows_wanted:
        parser.error(f"--rows takes walk, drop and run, not {args.rows!r}")
    walk_rows = bool(rows_wanted & {"walk", "drop"})
    global dump_round

    text = make_module_text(args.ops)
    samples = {True: [], False: []}
    # (held, second tree) -> one (cpu, wall) per round.
    run_configs = [(False, False), (True, False), (False, True)]
    run_samples = {config: [] for config in run_configs}
    count = module_op_count(args.ops)
    for round_index in range(-args.warmup, args.rounds):
        counted = round_index >= 0
        if args.dump_timed_calls:
            dump_round = f"round {round_index}" if counted else "warmup"
        order = [True, False] if round_index % 2 == 0 else [False, True]
        for tracked in order if walk_rows else []:
            walked, sample = measure_variant(text, tracked)
            if walked != count:
                raise RuntimeError(f"walk visited {walked} ops of {count}")
            if counted:
                samples[tracked].append(sample)
        shift = round_index % len(run_configs)
        if "run" not in rows_wanted:
            continue
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
                f"  ratio cpu {cpu['median']:.2f}x [{cpu['median_ci95'][0]:.2f}-"
                f"{cpu['median_ci95'][1]:.2f}] ({cpu['min']:.2f}-{cpu['max']:.2f})"
                f" wall {wall['median']:.2f}x [{wall['median_ci95'][0]:.2f}-"
                f"{wall['median_ci95'][1]:.2f}] ({wall['min']:.2f}-{wall['max']:.2f})"
                if cpu and wall
                else ""
            )
        )

    for row, label in (
        ("walk", "handle to every op by walk"),
        ("drop", "drop every handle"),
    ):
        if not walk_rows:
            break
        add_row(
            row,
            label,
            [s[row] for s in samples[True]],
            [s[row] for s in samples[False]],
            ("tracked", "bare"),
        )
    if "run" in rows_wanted:
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
