#!/usr/bin/env python3
"""ctest's smoke run of simulated_bench.py: two configurations at a tiny
size (two functions), on one thread and on two; checks the table's and the
JSON's structure and plain facts (the baseline's ratio is 1, counts are
positive, two threads count the workers' work), never a ratio against a
target; then that bad input (a configuration that does not exist, a
missing binary or valgrind, a bad cache geometry, a bad thread count, a
program that fails under valgrind or writes no dump of its timed call,
--python without the package) gets one line and exit code 1 (2 for a
malformed option). A --python run itself is too slow for ctest (about 80 s
of CPU at 500 ops under valgrind).

Usage: simulated_bench_smoke.py TRACKING_BENCH
"""

import json
import os
import subprocess
import sys
import tempfile

CONFIGS = ("upstream passes", "ours, 10% held")
OBJECTS = ("this program", "libMLIR", "libLLVM", "C/C++ runtime", "other")


def fail(message, output=""):
    print(f"simulated_bench_smoke: {message}\n{output}", file=sys.stderr)
    return 1


def main(argv):
    if len(argv) != 1:
        return fail("usage: simulated_bench_smoke.py TRACKING_BENCH")
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "simulated_bench.py")
    with tempfile.TemporaryDirectory() as out_dir:
        return check(tool, argv[0], out_dir)


def check(tool, bench, out_dir):
    command = [sys.executable, tool, f"--bench={bench}", "--sizes=800",
               "--threads=1,2", "--jobs=2", "--json=-", f"--out-dir={out_dir}"]
    for config in CONFIGS:
        command += ["--only", config]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return fail(f"exit code {result.returncode}", result.stderr)
    # The table goes to stderr with --json=-.
    table = result.stderr
    for text in ("est. cycles = Ir + 10 x", "ops (--sizes=800), one thread",
                 "ops (--sizes=800), 2 threads, summed", *CONFIGS):
        if text not in table:
            return fail(f"no {text!r} in the table", table)
    try:
        document = json.loads(result.stdout)
    except json.JSONDecodeError as error:
        return fail(f"the JSON does not parse: {error}", result.stdout)
    rows = document["rows"]
    expected = [(threads, config) for threads in (1, 2) for config in CONFIGS]
    if [(row["threads"], row["config"]) for row in rows] != expected:
        return fail("rows are not the two configurations on one and two "
                    "threads", result.stdout)
    for row in rows:
        for key in ("instructions", "l1_misses", "ll_misses", "cycles", "ops"):
            if not row[key] > 0:
                return fail(f"{row['config']}: {key} is {row[key]}")
        if row["baseline"] != "upstream passes":
            return fail(f"{row['config']}: baseline {row['baseline']!r}")
        if row["cycles"] <= row["instructions"]:
            return fail(f"{row['config']}: cycles not above instructions")
    for baseline in (rows[0], rows[2]):
        if any(value != 1 for value in baseline["ratio"].values()):
            return fail(f"the baseline's ratios are {baseline['ratio']}")
    # Two threads count the thread pool's workers too: the same pipeline's
    # instructions stay within a few percent of one thread's. Counting only
    # the calling thread (callgrind's --toggle-collect) would miss most:
    # under valgrind the workers run nearly all of the two functions.
    one, two = rows[0]["instructions"], rows[2]["instructions"]
    if not 0.8 < two / one < 1.25:
        return fail(f"two threads counted {two} instructions, one {one}")
    if document["scope_index_vs_walk"]:
        return fail("a scope-index pair without its configurations")

    # Other weights from the same runs' files (--reuse): the counts stay,
    # the cycles follow the formula; and the split by object (--by-object).
    reweighted = subprocess.run(
        command + ["--reuse", "--ir-weight=0.5", "--l1-weight=12",
                   "--ll-weight=90", "--by-object"], capture_output=True,
        text=True)
    if reweighted.returncode != 0:
        return fail(f"--reuse: exit code {reweighted.returncode}",
                    reweighted.stderr)
    if "est. cycles = 0.5 x Ir + 12 x" not in reweighted.stderr:
        return fail("the reweighted table's formula", reweighted.stderr)
    new_rows = json.loads(reweighted.stdout)["rows"]
    if len(new_rows) != len(rows):
        return fail(f"--reuse gave {len(new_rows)} rows, not {len(rows)}")
    for old, new in zip(rows, new_rows):
        if new["instructions"] != old["instructions"]:
            return fail("--reuse counted other instructions")
        expected = (0.5 * new["instructions"] + 12 * new["l1_misses"]
                    + 90 * new["ll_misses"])
        if abs(new["cycles"] - expected) > 1e-6 * expected:
            return fail(f"{new['config']}: cycles {new['cycles']}, the "
                        f"formula gives {expected}")
        # Every instruction ran in some object (the tool checks the sum);
        # the cycles of the parts are each rounded.
        parts = new["by_object"]
        if sorted(parts) != sorted(OBJECTS):
            return fail(f"{new['config']}: objects {sorted(parts)}")
        if abs(sum(p["cycles"] for p in parts.values())
               - new["cycles"]) > len(parts):
            return fail(f"{new['config']}: the objects' cycles do not sum "
                        f"to {new['cycles']}: {parts}")
        # Upstream's passes run in libMLIR; a tracked run also runs the
        # library's code, linked into tracking-bench.
        if not parts["libMLIR"]["events"]["Ir"] > 0:
            return fail(f"{new['config']}: no instruction in libMLIR")
        if (new["config"] == "ours, 10% held"
                and not parts["this program"]["events"]["Ir"] > 0):
            return fail("ours, 10% held: no instruction in tracking-bench")
    if "by where the code ran" not in reweighted.stderr:
        return fail("no --by-object table", reweighted.stderr)

    # Bad input: one line naming the problem, no traceback, and exit code 1
    # (2 for a malformed option, as argparse reports usage errors).
    bad_runs = (
        (["--only", "no such configuration"], "matches no configuration", 1),
        (["--bench=/nonexistent/tracking-bench"], "is not an executable", 1),
        (["--valgrind=/nonexistent/valgrind"], "not found", 1),
        (["--LL=2097152,16"], "wants SIZE,ASSOC,LINE", 1),
        (["--threads=0"], "--threads wants thread counts", 2),
        (["--ir-weight=0"], "--ir-weight wants a positive number", 2),
        (["--bench=/bin/false", "--only", "upstream passes"], "exited with 1", 1),
        (["--bench=/bin/true", "--only", "upstream passes"],
         "no single dump of the timed call", 1),
        (["--python", "--python-packages=/nonexistent"],
         "no mlir_tracking package", 1),
        (["--python", "--only", "upstream passes"], "--python takes none of", 2),
    )
    for extra, message, code in bad_runs:
        bad = subprocess.run(
            [sys.executable, tool, f"--bench={bench}", "--sizes=400", *extra],
            capture_output=True, text=True)
        if (bad.returncode != code or message not in bad.stderr
                or "Traceback" in bad.stderr):
            return fail(f"{extra}: exit code {bad.returncode}, want {code} "
                        f"and {message!r}", bad.stderr)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
