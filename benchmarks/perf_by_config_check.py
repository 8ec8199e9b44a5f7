#!/usr/bin/env python3
"""ctest's check of tracking-bench --timed-calls and perf_by_config.py,
without perf: a tiny run writes its timed calls; the check asserts their
shape (a line per configuration, round and thread count; each call ends
after it starts and before the next starts), then feeds perf_by_config.py a
made-up `perf script` text with samples inside and outside those calls and
checks what it counts, and that bad input gets one line and exit code 1.

LIBMLIR is a shared object whose code's addresses differ from its file
offsets (libMLIR.so), for the check of --by-address.

Usage: perf_by_config_check.py TRACKING_BENCH LIBMLIR
"""

import collections
import io
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_by_config  # noqa: E402

ROUNDS = 2
THREADS = (1, 2)
CONFIGS = ("upstream passes", "upstream, empty listener", "ours, no registry",
           "ours, 10% held", "no tracking", "walk everything",
           "scope index (ours)")


def fail(message):
    print(f"perf_by_config_check: {message}", file=sys.stderr)
    return 1


def run_tool(args):
    """perf_by_config.main's exit code, output and error text."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stderr
    sys.stderr = err
    try:
        code = perf_by_config.main(args, out=out)
    finally:
        sys.stderr = saved
    return code, out.getvalue(), err.getvalue()


def sample(time, function):
    return f"  4242  {time:.9f}:  7f0012345678 {function}\n"


def main(argv):
    if len(argv) != 2:
        return fail("usage: perf_by_config_check.py TRACKING_BENCH LIBMLIR")
    with tempfile.TemporaryDirectory() as tmp:
        return check(argv[0], argv[1], tmp)


def check(bench, obj, tmp):
    calls_path = os.path.join(tmp, "calls.tsv")
    run = subprocess.run(
        [bench, "--sizes=2000", "--thread-counts=1,2", f"--rounds={ROUNDS}",
         "--held=10", "--skip-memory", f"--timed-calls={calls_path}"],
        capture_output=True, text=True)
    if run.returncode != 0:
        return fail(f"tracking-bench failed:\n{run.stderr}")

    lines = [line.split("\t") for line in
             open(calls_path, encoding="utf-8").read().splitlines()]
    if not lines or lines[0][0] != "# ops":
        return fail("the timed calls lack their header")
    calls = lines[1:]
    seen = collections.Counter((int(c[1]), c[3]) for c in calls)
    expected = {(t, name): ROUNDS for t in THREADS for name in CONFIGS}
    if seen != expected:
        return fail(f"timed calls {dict(seen)}, expected {expected}")
    spans = sorted((float(c[4]), float(c[5])) for c in calls)
    for (start, end), (next_start, _) in zip(spans, spans[1:] + [(1e18, 0)]):
        if not start < end <= next_start:
            return fail(f"a timed call from {start} to {end} overlaps the "
                        f"next, from {next_start}")

    # Two samples of `work` in each call; ours, 10% held has three of
    # `tracking` more; samples between calls and before the first count
    # nowhere; lines that are no sample are skipped.
    text = "perf: a header line\n"
    text += sample(spans[0][0] - 1, "outside (x)")
    for c in calls:
        start, end = float(c[4]), float(c[5])
        middle = (start + end) / 2
        if int(c[1]) != 2:
            text += sample(middle, "other threads (x)")
            continue
        text += sample(middle, "work (libMLIR.so)") * 2
        if c[3] == "ours, 10% held":
            text += sample(middle, "tracking (tracking-bench)") * 3
        text += sample(end + 1e-7, "between calls (x)")
    script_path = os.path.join(tmp, "script.txt")
    with open(script_path, "w", encoding="utf-8") as script:
        script.write(text)

    code, out, err = run_tool(["unused.data", calls_path, "--threads", "2",
                               "--script-output", script_path])
    if code != 0:
        return fail(f"perf_by_config failed: {err}")
    for want in ("'ours, 10% held' against 'upstream passes': 2.5000x",
                 "+6  +150.00%        0        6  tracking (tracking-bench)",
                 "+0    +0.00%        4        4  work (libMLIR.so)"):
        if want not in out:
            return fail(f"no '{want}' in:\n{out}")
    for unwanted in ("outside", "between calls", "other threads"):
        if unwanted in out:
            return fail(f"a sample outside the calls counted:\n{out}")
    if "ours, 10% held                    2        10" not in out:
        return fail(f"the table's row of ours, 10% held is wrong:\n{out}")

    # --by-address: a sample without a symbol in a mapping of `obj` (whose
    # code's addresses differ from its file offsets) counts by the range of
    # the object's own addresses it fell in; one outside every mapping keeps
    # its name.
    segment = [line.split() for line in subprocess.run(
        ["readelf", "-lW", obj], capture_output=True,
        text=True).stdout.splitlines() if line.split()[:1] == ["LOAD"] and
        "E" in line.split()[6:-1]][0]
    seg_offset, seg_address, seg_size = (int(segment[i], 16)
                                         for i in (1, 2, 4))
    symbols = subprocess.run(["nm", "-D", "--defined-only", obj],
                             capture_output=True, text=True).stdout
    main_address = [int(fields[0], 16) for fields in
                    (line.split() for line in symbols.splitlines())
                    if len(fields) == 3 and fields[1] == "T" and
                    seg_address <= int(fields[0], 16) < seg_address + seg_size
                    ][0]
    page_offset = seg_offset - seg_offset % 4096
    base = 0x10000000
    ip = base + main_address - seg_address + seg_offset - page_offset
    held = [c for c in calls if c[1] == "2" and c[3] == "ours, 10% held"][0]
    middle = (float(held[4]) + float(held[5])) / 2
    mapped = (f"4242 0.5: PERF_RECORD_MMAP2 4242/4242: [{base:#x}"
              f"({seg_size + seg_offset:#x}) @ {page_offset:#x} fe:00 1 2]: "
              f"r-xp {obj}\n" + text +
              f"  4242  {middle:.9f}:  {ip:x} [unknown] (obj)\n" +
              f"  4242  {middle:.9f}:  {base - 64:x} [unknown] (other)\n")
    mapped_path = os.path.join(tmp, "mapped.txt")
    with open(mapped_path, "w", encoding="utf-8") as script:
        script.write(mapped)
    code, out, err = run_tool(["unused.data", calls_path, "--threads", "2",
                               "--by-address", "--script-output",
                               mapped_path])
    low = main_address - main_address % 1024
    want = f"[unknown] {os.path.basename(obj)} {low:#x}-{low + 1024:#x} ("
    if code != 0 or want not in out or "[unknown] (other)" not in out:
        return fail(f"--by-address: no '{want}' or unmapped sample:\n"
                    f"{out}{err}")

    # A run cut short: compared per timed call.
    short_calls = os.path.join(tmp, "short.tsv")
    last_held = max(i for i, c in enumerate(lines)
                    if c[1:2] == ["2"] and c[3] == "ours, 10% held")
    with open(short_calls, "w", encoding="utf-8") as short:
        short.writelines("\t".join(c) + "\n" for i, c in enumerate(lines)
                         if i != last_held)
    code, out, err = run_tool(["unused.data", short_calls, "--threads", "2",
                               "--script-output", script_path])
    if code != 0 or "2.5000x of its samples per timed call" not in out:
        return fail(f"a short run is not compared per call:\n{out}{err}")

    # Bad input: one line on stderr and exit code 1.
    bad_calls = os.path.join(tmp, "bad.tsv")
    with open(bad_calls, "w", encoding="utf-8") as bad:
        bad.write("2000\t1\tprecise\tupstream passes\tnot-a-time\t1.0\n")
    empty_script = os.path.join(tmp, "empty.txt")
    open(empty_script, "w").close()
    cases = [
        ([os.path.join(tmp, "missing.tsv")], "cannot read"),
        ([bad_calls], "bad.tsv:1: not a line of tracking-bench --timed-calls"),
        ([calls_path, "--threads", "3"], "no timed call at 3 thread(s)"),
        ([calls_path, "--config", "nope"],
         "no timed call of configuration 'nope'"),
        ([calls_path, "--script-output", empty_script],
         "perf record -k CLOCK_MONOTONIC"),
        ([calls_path, "--script-output", os.path.join(tmp, "none.txt")],
         "cannot read"),
    ]
    for args, message in cases:
        if "--script-output" not in args:
            args = args + ["--script-output", script_path]
        code, out, err = run_tool(["unused.data"] + args)
        if code != 1 or message not in err or len(err.splitlines()) != 1:
            return fail(f"{args}: exit {code}, expected 1 and one line "
                        f"with '{message}'; got:\n{err}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
