#!/usr/bin/env python3
"""The cost of tracking from simulated caches: a figure load does not move.

Runs each configuration of `tracking-bench` in its own process under
`valgrind --tool=callgrind --cache-sim=yes`, counting only its timed call
(`PassManager::run`; tracking-bench's --dump-timed-calls zeroes callgrind's
counters before it and dumps them after it, every thread included), and
prints per configuration, IR size and thread count: instructions, L1 misses, last-level misses, an estimated cycle
count, and ratios against the baseline of its group like tracking-bench's
table (the precise pipeline against upstream's passes, the non-precise pass
against no tracking, plus the scope index against walk-everything).

Estimated cycles = IR_WEIGHT x Ir + L1_WEIGHT x (I1mr + D1mr + D1mw)
                      + LL_WEIGHT x (ILmr + DLmr + DLmw)
(KCachegrind's cycle estimation, 1, 10 and 100, by default: one cycle per
instruction. This host's core retires about three of upstream's
instructions a cycle, so `--ir-weight 0.31` prices misses against
instructions as its CPU time does; docs/benchmarks.md, "Confidence
intervals (round 15 of issue 12)"). On this project's
Xeon guest a pointer chase measured an L1 hit at 1.7 ns (5 cycles), an L2
hit at 5.4 ns (+11 cycles), a hit in the shared L3 at about 35 ns (+90
cycles), memory at about 130 ns (+360 cycles); see docs/benchmarks.md,
"Simulated cost (round 12 of issue 12)".

The simulated last level is this host's private per-core L2 (2 MiB), not
its L3: the L3 (260 MiB) is shared with other tenants, so the share of it a
run gets depends on their load (the pointer chase found L3 latency only up
to 4-8 MiB), while the L2's misses are a property of the program alone.

The model has no prefetchers and no out-of-order overlap of misses (each
miss costs its full weight). Valgrind runs a process's threads one at a
time on one simulated cache: a two-thread figure (--threads 2) is the work
and misses of all threads together, the counterpart of process CPU time,
with no contention (a thread rarely stops while it holds a lock) and with
the two threads sharing caches that are per core on the host.

Usage: benchmarks/simulated_bench.py [--bench build/bin/tracking-bench]
       [--sizes 20000,140000] [--threads 1] [--held 0,10,100] [--fallback-held 1]
       [--only TEXT ...] [--ir-weight 1] [--l1-weight 10] [--ll-weight 100]
       [--I1/--D1/--LL SIZE,ASSOC,LINE] [--out-dir DIR [--reuse]] [--jobs 1]
       [--by-object] [--json FILE|-]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# What a dump holds (tracking-bench --dump-timed-calls).
COLLECTED = "the timed call (PassManager::run), every thread"
# This host's caches (Intel Xeon guest): L1i, L1d and the per-core L2.
DEFAULT_I1 = "32768,8,64"
DEFAULT_D1 = "49152,12,64"
DEFAULT_LL = "2097152,16,64"
EVENTS = ("Ir", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")


class Error(Exception):
    """A failure to report in one line and exit 1."""


def config_names(held):
    """tracking-bench's configurations, (group, name), in its order."""
    names = [
        ("precise", "upstream passes"),
        ("precise", "upstream, empty listener"),
        ("precise", "ours, no registry"),
    ]
    names += [("precise", f"ours, {p}% held") for p in held]
    names += [
        ("fallback", "no tracking"),
        ("fallback", "walk everything"),
        ("fallback", "scope index (ours)"),
    ]
    return names


BASELINES = {"precise": "upstream passes", "fallback": "no tracking"}


def select(names, only):
    """The configurations whose name contains one of `only` (all if empty);
    every text must match at least one."""
    if not only:
        return names
    for text in only:
        if not any(text in name for _, name in names):
            known = "; ".join(name for _, name in names)
            raise Error(f"--only {text!r} matches no configuration ({known})")
    return [(g, n) for g, n in names if any(t in n for t in only)]


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def parse_geometry(text, option):
    try:
        size, assoc, line = (int(v) for v in text.split(","))
    except ValueError:
        raise Error(f"{option} wants SIZE,ASSOC,LINE in bytes, got {text!r}")
    return size, assoc, line


def read_callgrind(path):
    """The totals of a callgrind output file, by event name, and its cache
    descriptions ("I1", "D1", "LL" -> (size, line, assoc))."""
    events = None
    totals = None
    summary = None
    caches = {}
    try:
        f = open(path)
    except OSError as error:
        raise Error(f"cannot read callgrind's output: {error}")
    with f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(v) for v in line.split()[1:]]
            elif line.startswith("totals:"):
                totals = [int(v) for v in line.split()[1:]]
            elif line.startswith("desc: "):
                m = re.match(
                    r"desc: (I1|D1|LL) cache: (\d+) B, (\d+) B, (\d+)-way", line
                )
                if m:
                    caches[m.group(1)] = tuple(int(v) for v in m.group(2, 3, 4))
    values = totals if totals is not None else summary
    if events is None or values is None:
        raise Error(f"{path}: no 'events:' header or 'totals:' line")
    counts = dict(zip(events, values + [0] * (len(events) - len(values))))
    missing = [e for e in EVENTS if e not in counts]
    if missing:
        raise Error(
            f"{path}: no {' '.join(missing)} events (was it run with "
            "--cache-sim=yes?)"
        )
    return counts, caches


# Where code runs, for --by-object: the classes of callgrind's objects.
OBJECT_CLASSES = ("this program", "libMLIR", "libLLVM", "C/C++ runtime", "other")
RUNTIME_PREFIXES = ("libc.so", "libstdc++.so", "libgcc_s.so", "libm.so", "ld-linux")


def object_class(path, program):
    name = os.path.basename(path)
    if os.path.realpath(path) == program:
        return "this program"
    if name.startswith("libMLIR"):
        return "libMLIR"
    if name.startswith("libLLVM"):
        return "libLLVM"
    if name.startswith(RUNTIME_PREFIXES):
        return "C/C++ runtime"
    return "other"


def read_costs_by_object(path, program):
    """The self costs of a callgrind output file summed by the class of the
    object whose code ran (OBJECT_CLASSES), by event name. `program` is the
    real path of the profiled binary (this library is linked into it)."""
    events = positions = None
    names = {}  # compressed object ids, shared by ob= and cob=
    current = "other"
    skip_call_cost = False
    by_class = {c: [0] * len(EVENTS) for c in OBJECT_CLASSES}
    columns = None
    with open(path) as f:
        for line in f:
            if line[0].isdigit() or line[0] in "+-*":
                if skip_call_cost:
                    # The line after `calls=` is the call's inclusive cost,
                    # already counted where the callee's code ran.
                    skip_call_cost = False
                    continue
                values = line.split()[positions:]
                totals = by_class[current]
                for index, column in columns:
                    if column < len(values):
                        totals[index] += int(values[column])
            elif line.startswith(("ob=", "cob=")):
                key, _, value = line.rstrip("\n").partition("=")
                m = re.match(r"\((\d+)\)(?: (.*))?$", value)
                name = value
                if m:
                    if m.group(2) is not None:
                        names[m.group(1)] = m.group(2)
                    name = names.get(m.group(1), "")
                if key == "ob":
                    current = object_class(name, program)
            elif line.startswith("calls="):
                skip_call_cost = True
            elif line.startswith("events:"):
                events = line.split()[1:]
                columns = [(i, events.index(e)) for i, e in enumerate(EVENTS)]
            elif line.startswith("positions:"):
                positions = len(line.split()) - 1
    if events is None or positions is None:
        raise Error(f"{path}: no 'events:' or 'positions:' header")
    return {c: dict(zip(EVENTS, v)) for c, v in by_class.items()}


def derive(counts, args):
    """Instructions, L1 misses, LL misses and estimated cycles."""
    l1 = counts["I1mr"] + counts["D1mr"] + counts["D1mw"]
    ll = counts["ILmr"] + counts["DLmr"] + counts["DLmw"]
    return {
        "instructions": counts["Ir"],
        "l1_misses": l1,
        "ll_misses": ll,
        # Whole cycles: fractional weights would print fractions of one.
        "cycles": round(
            args.ir_weight * counts["Ir"] + args.l1_weight * l1 + args.ll_weight * ll
        ),
    }


def bench_arguments(args, size, threads, name):
    """tracking-bench's arguments for one configuration at one size and
    thread count."""
    arguments = [
        f"--sizes={size}",
        f"--thread-counts={threads}",
        "--rounds=1",
        "--skip-memory",
        "--dump-timed-calls",
        f"--fallback-held={args.fallback_held}",
        f"--held={','.join(str(p) for p in args.held)}",
        f"--only={name}",
    ]
    if not args.instrument_all:
        arguments.append("--instrument-timed-only")
    return arguments


def callgrind_command(args, out_file):
    """valgrind's arguments: callgrind with this run's simulated caches,
    writing to `out_file` (client-requested dumps to `out_file`.1, .2, ...)."""
    return [
        args.valgrind,
        "--tool=callgrind",
        "--cache-sim=yes",
        f"--I1={args.I1}",
        f"--D1={args.D1}",
        f"--LL={args.LL}",
        f"--callgrind-out-file={out_file}",
    ]


def log_tail(log_file):
    """The last lines of a run's log that are the program's or valgrind's own
    messages, not valgrind's summary ("==pid==" lines)."""
    with open(log_file) as log:
        lines = [l for l in log if not re.match(r"(==|--)\d+(==|--)", l)]
    return "".join(lines[-12:])


def run_one(args, size, threads, name, out_file, log_file):
    """Runs one configuration at one size and thread count under callgrind,
    leaving the timed call's dump in `out_file`; returns the number of ops
    tracking-bench reports."""
    # Callgrind writes the first client-requested dump to <file>.1 and what
    # is counted after the last dump to <file> at exit (not wanted).
    rest = out_file + ".rest"
    command = callgrind_command(args, rest)
    if not args.instrument_all:
        command.append("--instr-atstart=no")
    command += [args.bench] + bench_arguments(args, size, threads, name)
    for stale in (rest, rest + ".1", rest + ".2"):
        if os.path.exists(stale):
            os.remove(stale)
    with open(log_file, "w") as log:
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=log, text=True)
        log.write("\n--- stdout ---\n" + result.stdout)
    if result.returncode != 0:
        raise Error(
            f"valgrind or tracking-bench under it exited with "
            f"{result.returncode} for {name!r} at {size} ops (log: "
            f"{log_file}):\n{log_tail(log_file)}"
        )
    if not os.path.exists(rest + ".1") or os.path.exists(rest + ".2"):
        raise Error(
            f"callgrind wrote no single dump of the timed call ({rest}.1): "
            "a tracking-bench without --dump-timed-calls?"
        )
    os.replace(rest + ".1", out_file)
    if os.path.exists(rest):
        os.remove(rest)
    return parse_bench_stdout(result.stdout, name, log_file)


def parse_bench_stdout(stdout, name, where):
    """The op count of tracking-bench's module line; checks that `name` ran."""
    m = re.search(r"module: \d+ functions, (\d+) ops", stdout)
    ran = any(line.strip().startswith(name + " ") for line in stdout.splitlines())
    if not m or not ran:
        raise Error(f"tracking-bench ran no configuration named {name!r} ({where})")
    return int(m.group(1))


def check_reusable(out_file, log_file, expected_caches, arguments):
    """Whether an earlier run's files exist with the same cache geometry and
    tracking-bench arguments."""
    if not (os.path.exists(out_file) and os.path.exists(log_file)):
        return False
    _, caches = read_callgrind(out_file)
    with open(out_file) as f:
        command = next((l for l in f if l.startswith("cmd:")), "").split()
    return caches == expected_caches and command[2:] == " ".join(arguments).split()


def ratio(value, base):
    return value / base if base else None


def fmt_ratio(value):
    return "-" if value is None else f"{value:.4f}x"


def write_header(out, first_column):
    out.write(
        f"  {first_column:<22} {'instructions':>15} {'L1 misses':>12} "
        f"{'LL misses':>11} {'est. cycles':>15}  {'instr.':>8} "
        f"{'L1 miss':>8} {'LL miss':>8} {'cycles':>8}  baseline\n"
    )


def write_row(out, r):
    rt = r.get("ratio", {})
    out.write(
        f"  {r['config']:<22} {r['instructions']:>15,} "
        f"{r['l1_misses']:>12,} {r['ll_misses']:>11,} "
        f"{r['cycles']:>15,}  "
        f"{fmt_ratio(rt.get('instructions')):>8} "
        f"{fmt_ratio(rt.get('l1_misses')):>8} "
        f"{fmt_ratio(rt.get('ll_misses')):>8} "
        f"{fmt_ratio(rt.get('cycles')):>8}  {r.get('baseline', '')}\n"
    )


def print_table(rows, pairs, out):
    groups = sorted({(r["size"], r["threads"]) for r in rows})
    for size, threads in groups:
        sized = [r for r in rows if (r["size"], r["threads"]) == (size, threads)]
        what = "one thread" if threads == 1 else f"{threads} threads, summed"
        out.write(
            f"{sized[0]['ops']} ops (--sizes={size}), {what}, inside "
            "PassManager::run\n"
        )
        write_header(out, "configuration")
        for r in sized:
            write_row(out, r)
        for p in pairs:
            if (p["size"], p["threads"]) == (size, threads):
                rt = p["ratio"]
                out.write(
                    f"  {'scope index vs walk':<22} {'':>15} {'':>12} {'':>11} "
                    f"{'':>15}  {fmt_ratio(rt['instructions']):>8} "
                    f"{fmt_ratio(rt['l1_misses']):>8} "
                    f"{fmt_ratio(rt['ll_misses']):>8} "
                    f"{fmt_ratio(rt['cycles']):>8}  walk everything\n"
                )
        out.write("\n")


def print_by_object(rows, out):
    """--by-object: for each configuration with a baseline, the estimated
    cycles it adds over the baseline, split by where the code ran."""
    groups = sorted({(r["size"], r["threads"]) for r in rows})
    for size, threads in groups:
        sized = [
            r
            for r in rows
            if (r["size"], r["threads"]) == (size, threads)
            and r.get("baseline") not in (None, r["config"])
        ]
        if not sized:
            continue
        what = "one thread" if threads == 1 else f"{threads} threads, summed"
        out.write(
            f"Estimated cycles added over the baseline, by where the code ran "
            f"(M, and % of the baseline's), {sized[0]['ops']} ops, {what}:\n"
        )
        out.write(f"  {'configuration':<22}")
        for c in OBJECT_CLASSES + ("total",):
            out.write(f" {c:>17}")
        out.write("\n")
        for r in sized:
            base = next(
                b
                for b in rows
                if (b["size"], b["threads"]) == (size, threads)
                and b["config"] == r["baseline"]
            )
            out.write(f"  {r['config']:<22}")
            for c in OBJECT_CLASSES + ("total",):
                if c == "total":
                    added = r["cycles"] - base["cycles"]
                else:
                    added = (
                        r["by_object"][c]["cycles"] - base["by_object"][c]["cycles"]
                    )
                share = 100.0 * added / base["cycles"]
                out.write(f" {added / 1e6:>+9.2f} ({share:+.2f}%)")
            out.write("\n")
        out.write("\n")


PYTHON_ROWS = (
    ("walk", "handle to every op by walk"),
    ("drop", "drop every handle"),
)


def read_dumps(rest):
    """The client-requested dumps of one callgrind run (<rest>.1, .2, ...),
    by trigger label."""
    dumps = {}
    index = 1
    while os.path.exists(f"{rest}.{index}"):
        path = f"{rest}.{index}"
        with open(path) as f:
            trigger = next(
                (l for l in f if l.startswith("desc: Trigger: Client Request: ")),
                None,
            )
        if trigger is None:
            raise Error(f"{path}: not a client-requested dump")
        label = trigger.split("Client Request: ", 1)[1].strip()
        dumps[label] = read_callgrind(path)
        index += 1
    return dumps


def run_python(args, size, expected, out_dir):
    """Runs python_bench.py's walk and drop rows at `size` ops under
    callgrind (every timed call its own dump); returns the rows."""
    here = os.path.dirname(os.path.abspath(__file__))
    stem = os.path.join(out_dir, f"python-{size}")
    rest, log_file = stem + ".callgrind.out", stem + ".log"
    for stale in [rest] + [f"{rest}.{i}" for i in range(1, 64)]:
        if os.path.exists(stale):
            os.remove(stale)
    command = callgrind_command(args, rest) + [
        "--instr-atstart=no",
        args.python_exe,
        os.path.join(here, "python_bench.py"),
        f"--ops={size}",
        f"--rounds={args.python_rounds}",
        "--warmup=1",
        "--rows=walk,drop",
        "--dump-timed-calls",
    ]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (args.python_packages, env.get("PYTHONPATH", "")) if p
    )
    start = time.monotonic()
    with open(log_file, "w") as log:
        result = subprocess.run(
            command, stdout=subprocess.PIPE, stderr=log, text=True, env=env
        )
        log.write("\n--- stdout ---\n" + result.stdout)
    if result.returncode != 0:
        raise Error(
            f"python_bench.py under valgrind exited with {result.returncode} "
            f"at {size} ops (log: {log_file}):\n{log_tail(log_file)}"
        )
    m = re.search(r"python: (\d+) ops", result.stdout)
    if not m:
        raise Error(f"python_bench.py printed no op count ({log_file})")
    ops = int(m.group(1))
    dumps = read_dumps(rest)
    rows = []
    for row, label in PYTHON_ROWS:
        for variant in ("tracked", "bare"):
            per_round = []
            for r in range(args.python_rounds):
                key = f"{row} {variant} round {r}"
                if key not in dumps:
                    raise Error(f"no dump {key!r} in {rest}.*: {sorted(dumps)}")
                counts, caches = dumps[key]
                if caches != expected:
                    raise Error(f"{rest}: caches {caches}, asked {expected}")
                per_round.append(counts)
            # The round with the median instruction count stands for the row.
            per_round.sort(key=lambda c: c["Ir"])
            counts = per_round[len(per_round) // 2]
            entry = {
                "group": "python",
                "config": f"{row}: {variant}",
                "label": label,
                "size": size,
                "threads": 1,
                "ops": ops,
            }
            entry.update(derive(counts, args))
            entry["events"] = {e: counts[e] for e in EVENTS}
            rows.append(entry)
    print(
        f"python_bench.py, {size} ops: {time.monotonic() - start:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    return rows


def print_python_table(rows, out):
    for size in sorted({r["size"] for r in rows}):
        sized = [r for r in rows if r["size"] == size]
        out.write(
            f"python_bench.py: {sized[0]['ops']} ops (--sizes={size}), each "
            "timed call (median round)\n"
        )
        write_header(out, "row: variant")
        for r in sized:
            write_row(out, r)
        out.write("\n")


def python_main(args, sizes, expected, table):
    """simulated_bench.py --python: the Python rows, tracked against bare."""
    if not os.path.isdir(os.path.join(args.python_packages, "mlir_tracking")):
        raise Error(
            f"no mlir_tracking package in {args.python_packages}: build the "
            "Python package or pass --python-packages"
        )
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="simulated_bench.")
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for size in sizes:
        rows += run_python(args, size, expected, out_dir)
    if not args.out_dir:
        shutil.rmtree(out_dir, ignore_errors=True)
    keys = ("instructions", "l1_misses", "ll_misses", "cycles")
    for r in rows:
        base = next(
            b
            for b in rows
            if b["size"] == r["size"]
            and b["config"] == r["config"].split(":")[0] + ": bare"
        )
        r["baseline"] = base["config"]
        r["ratio"] = {k: ratio(r[k], base[k]) for k in keys}
    formula = cycles_formula(args)
    table.write(
        f"callgrind, caches I1 {args.I1}, D1 {args.D1}, LL {args.LL} "
        f"(SIZE,ASSOC,LINE); est. cycles = {formula}\n\n"
    )
    print_python_table(rows, table)
    write_json(
        args,
        {
            "tool": "callgrind --cache-sim=yes",
            "collected": "each timed call of python_bench.py (walk, drop)",
            "rounds": args.python_rounds,
            "caches": {k: getattr(args, k) for k in ("I1", "D1", "LL")},
            "weights": {
                "ir": args.ir_weight,
                "l1": args.l1_weight,
                "ll": args.ll_weight,
            },
            "cycles_formula": formula,
            "rows": rows,
        },
    )
    return 0


def cycles_formula(args):
    instructions = "Ir" if args.ir_weight == 1 else f"{args.ir_weight:g} x Ir"
    return (
        f"{instructions} + {args.l1_weight:g} x (I1mr + D1mr + D1mw) + "
        f"{args.ll_weight:g} x (ILmr + DLmr + DLmw)"
    )


def write_json(args, document):
    if not args.json:
        return
    if args.json == "-":
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        with open(args.json, "w") as f:
            json.dump(document, f, indent=2)
            f.write("\n")


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.rsplit("\n\nUsage:", 1)[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument(
        "--bench",
        default=os.path.join(here, "..", "build", "bin", "tracking-bench"),
        help="the tracking-bench binary (default: build/bin/tracking-bench)",
    )
    parser.add_argument("--valgrind", default="valgrind", help="valgrind to run")
    parser.add_argument(
        "--sizes", default="20000,140000", help="IR sizes in ops, comma-separated"
    )
    parser.add_argument(
        "--threads",
        default="1",
        help="thread counts, comma-separated (tracking-bench --thread-counts; "
        "2: the context's thread pool, counted over every thread)",
    )
    parser.add_argument(
        "--held",
        default="0,10,100",
        help="percents held for the precise pipeline (tracking-bench --held)",
    )
    parser.add_argument(
        "--fallback-held",
        default="1",
        help="percent held for the non-precise pass (tracking-bench "
        "--fallback-held)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="run only the configurations whose name contains TEXT "
        "(repeatable; each must match one)",
    )
    parser.add_argument("--I1", default=DEFAULT_I1, help="L1i: SIZE,ASSOC,LINE")
    parser.add_argument("--D1", default=DEFAULT_D1, help="L1d: SIZE,ASSOC,LINE")
    parser.add_argument(
        "--LL",
        default=DEFAULT_LL,
        help="simulated last level: SIZE,ASSOC,LINE (default: the per-core L2)",
    )
    parser.add_argument(
        "--ir-weight",
        type=float,
        default=1,
        help="cycles per instruction before misses (1: KCachegrind's "
        "estimate; this host runs upstream's passes at about 3 instructions "
        "a cycle, docs/benchmarks.md)",
    )
    parser.add_argument(
        "--l1-weight", type=float, default=10, help="cycles per L1 miss"
    )
    parser.add_argument(
        "--ll-weight", type=float, default=100, help="cycles per last-level miss"
    )
    parser.add_argument(
        "--out-dir",
        default="",
        help="keep callgrind's files and logs here (default: a temporary "
        "folder, removed)",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --out-dir: read the files of an earlier run with the same "
        "cache geometry and tracking-bench arguments instead of rerunning "
        "(it does not check that the binary is the same)",
    )
    parser.add_argument(
        "--instrument-all",
        action="store_true",
        help="instrument the whole process, not only each configuration's "
        "clone, preparation and timed run (tracking-bench "
        "--instrument-timed-only): several times slower; the same counts "
        "at 20k ops (misses within 0.2%%), while at a few hundred ops its "
        "caches start warm from parsing the IR",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="valgrind processes at once (default 1: leave the other core "
        "to others; the counts do not depend on it)",
    )
    parser.add_argument(
        "--python",
        action="store_true",
        help="instead of tracking-bench: python_bench.py's walk and drop rows "
        "(tracked handles against the bare wrapper) at each of --sizes ops",
    )
    parser.add_argument(
        "--python-packages",
        default=os.path.join(here, "..", "build", "python_packages"),
        help="with --python: the folder holding mlir_tracking (PYTHONPATH)",
    )
    parser.add_argument(
        "--python-exe",
        default=sys.executable,
        help="with --python: the interpreter to run (default: this one)",
    )
    parser.add_argument(
        "--python-rounds",
        type=int,
        default=1,
        help="with --python: counted rounds (python_bench.py --rounds; a "
        "warm-up round runs first); the median round's counts stand",
    )
    parser.add_argument(
        "--by-object",
        action="store_true",
        help="also split what each configuration adds over its baseline by "
        "where the code ran: this program (tracking-bench, with this "
        "library linked in), libMLIR, libLLVM, the C/C++ runtime, other",
    )
    parser.add_argument("--json", default="", help="write the figures ('-': stdout)")
    args = parser.parse_args(argv)

    try:
        args.held = [int(v) for v in args.held.split(",") if v]
        sizes = [int(v) for v in args.sizes.split(",") if v]
        thread_counts = [int(v) for v in args.threads.split(",") if v]
    except ValueError:
        parser.error("--sizes, --threads and --held want comma-separated integers")
    if not sizes:
        parser.error("--sizes is empty")
    if not thread_counts or min(thread_counts) < 1:
        parser.error("--threads wants thread counts of at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.ir_weight <= 0 or args.l1_weight < 0 or args.ll_weight < 0:
        parser.error("--ir-weight wants a positive number, --l1-weight and "
                     "--ll-weight numbers of at least 0")
    if args.reuse and not args.out_dir:
        parser.error("--reuse needs --out-dir")
    if args.python and (args.reuse or args.only or args.instrument_all):
        parser.error("--python takes none of --reuse, --only, --instrument-all")
    if args.python_rounds < 1:
        parser.error("--python-rounds must be at least 1")
    table = sys.stderr if args.json == "-" else sys.stdout

    try:
        expected = {}
        for level in ("I1", "D1", "LL"):
            size, assoc, line = parse_geometry(getattr(args, level), "--" + level)
            expected[level] = (size, line, assoc)
        names = select(config_names(args.held), args.only)
        if shutil.which(args.valgrind) is None:
            raise Error(
                f"{args.valgrind} not found: install valgrind "
                "(scripts/setup.sh does)"
            )
        if args.python:
            return python_main(args, sizes, expected, table)
        if not os.access(args.bench, os.X_OK):
            raise Error(
                f"{args.bench} is not an executable: build tracking-bench "
                "or pass --bench"
            )
        out_dir = args.out_dir or tempfile.mkdtemp(prefix="simulated_bench.")
        os.makedirs(out_dir, exist_ok=True)
        runs = [(s, t, g, n) for s in sizes for t in thread_counts for g, n in names]

        def measure(index, size, threads, group, name):
            stem = os.path.join(out_dir, f"{size}-{threads}t-{slug(name)}")
            out_file, log_file = stem + ".callgrind.out", stem + ".log"
            start = time.monotonic()
            if args.reuse and check_reusable(
                out_file,
                log_file,
                expected,
                bench_arguments(args, size, threads, name),
            ):
                with open(log_file) as log:
                    text = log.read()
                ops = parse_bench_stdout(
                    text.split("--- stdout ---", 1)[-1], name, log_file
                )
                how = "reused"
            else:
                ops = run_one(args, size, threads, name, out_file, log_file)
                how = f"{time.monotonic() - start:.0f} s"
            counts, caches = read_callgrind(out_file)
            if caches != expected:
                raise Error(f"{out_file}: caches {caches}, asked {expected}")
            if counts["Ir"] == 0:
                raise Error(f"{out_file}: nothing counted in the timed call")
            row = {
                "group": group,
                "config": name,
                "size": size,
                "threads": threads,
                "ops": ops,
            }
            row.update(derive(counts, args))
            row["events"] = {e: counts[e] for e in EVENTS}
            if args.by_object:
                program = os.path.realpath(args.bench)
                row["by_object"] = {
                    c: {"events": v, "cycles": derive(v, args)["cycles"]}
                    for c, v in read_costs_by_object(out_file, program).items()
                }
                counted = sum(v["events"]["Ir"] for v in row["by_object"].values())
                if counted != counts["Ir"]:
                    raise Error(
                        f"{out_file}: the objects' instructions sum to "
                        f"{counted}, the file's total is {counts['Ir']}"
                    )
            print(
                f"[{index}/{len(runs)}] {size} ops, {threads} thread(s), "
                f"{name}: {how}",
                file=sys.stderr,
                flush=True,
            )
            return row

        try:
            # Separate processes: running several at once changes no count.
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                futures = [
                    pool.submit(measure, i, *run) for i, run in enumerate(runs, 1)
                ]
                rows = [future.result() for future in futures]
        except Error:
            if not args.out_dir:
                print(f"simulated_bench: files kept in {out_dir}", file=sys.stderr)
            raise
        if not args.out_dir:
            shutil.rmtree(out_dir, ignore_errors=True)
    except Error as error:
        print(f"simulated_bench: {error}", file=sys.stderr)
        return 1

    keys = ("instructions", "l1_misses", "ll_misses", "cycles")

    def find(size, threads, name):
        for r in rows:
            if (r["size"], r["threads"], r["config"]) == (size, threads, name):
                return r
        return None

    for r in rows:
        base = find(r["size"], r["threads"], BASELINES[r["group"]])
        if base is not None:
            r["baseline"] = base["config"]
            r["ratio"] = {k: ratio(r[k], base[k]) for k in keys}
    pairs = []
    for size in sizes:
        for threads in thread_counts:
            ours = find(size, threads, "scope index (ours)")
            walk = find(size, threads, "walk everything")
            if ours and walk:
                pairs.append(
                    {
                        "size": size,
                        "threads": threads,
                        "config": ours["config"],
                        "baseline": walk["config"],
                        "ratio": {k: ratio(ours[k], walk[k]) for k in keys},
                    }
                )

    formula = cycles_formula(args)
    table.write(
        f"callgrind, caches I1 {args.I1}, D1 {args.D1}, LL {args.LL} "
        f"(SIZE,ASSOC,LINE); est. cycles = {formula}\n\n"
    )
    print_table(rows, pairs, table)
    if args.by_object:
        print_by_object(rows, table)

    write_json(
        args,
        {
            "tool": "callgrind --cache-sim=yes",
            "collected": COLLECTED,
            "threads": thread_counts,
            "caches": {k: getattr(args, k) for k in ("I1", "D1", "LL")},
            "weights": {
                "ir": args.ir_weight,
                "l1": args.l1_weight,
                "ll": args.ll_weight,
            },
            "cycles_formula": formula,
            "rows": rows,
            "scope_index_vs_walk": pairs,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
