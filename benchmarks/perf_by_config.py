#!/usr/bin/env python3
"""Where one tracking-bench configuration spends more than another: perf's
samples of one interleaved run, told apart by the timed call they fell in.

Profiling each configuration in a process of its own (`--only`) compares two
heaps, two layouts and two stretches of a shared machine's load, which move
the figures by more than the difference sought. Here both configurations'
samples come from the same process, in the rounds the benchmark interleaves,
as its ratios do.

    perf record -k CLOCK_MONOTONIC -e cpu-clock -F 4000 -o bench.data \\
        build/bin/tracking-bench --sizes=140000 --thread-counts=2 --held=10 \\
        --rounds=40 --skip-memory --timed-calls=calls.tsv
    benchmarks/perf_by_config.py bench.data calls.tsv \\
        --config "ours, 10% held" --threads 2

`-k CLOCK_MONOTONIC` stamps the samples with the clock --timed-calls writes
(without it no sample falls in a timed call, and this says so). Prints each
configuration's timed calls and samples, then the functions (symbol and
object, as `perf script` names them) whose samples grow or shrink most from
--base to --config, with the difference as a share of --base's samples.
perf itself comes from Debian's `linux-perf` (not installed by
scripts/setup.sh: only this tool needs it).
"""

import argparse
import bisect
import collections
import os
import re
import subprocess
import sys


class Error(Exception):
    pass


def read_timed_calls(path, ops, threads):
    """The timed calls of `path` (tracking-bench --timed-calls) at the size
    and thread count asked, as sorted (start, end, configuration)."""
    calls = []
    sizes = set()
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as error:
        raise Error(f"cannot read {path}: {error.strerror}")
    for number, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        try:
            if len(fields) != 6:
                raise ValueError
            call_ops, call_threads = int(fields[0]), int(fields[1])
            start, end = float(fields[4]), float(fields[5])
        except ValueError:
            raise Error(f"{path}:{number}: not a line of tracking-bench "
                        "--timed-calls")
        sizes.add((call_ops, call_threads))
        if (ops is None or call_ops == ops) and call_threads == threads:
            calls.append((start, end, fields[3]))
    if not calls:
        found = ", ".join(f"{o} ops on {t}" for o, t in sorted(sizes))
        at = f"{ops} ops on " if ops is not None else ""
        raise Error(f"{path}: no timed call at {at}{threads} thread(s) (it "
                    f"holds: {found or 'none'})")
    if ops is None and len({o for o, t in sizes if t == threads}) > 1:
        raise Error(f"{path}: several IR sizes on {threads} thread(s): "
                    "choose one with --ops")
    calls.sort()
    return calls


def perf_script(perf_data):
    try:
        result = subprocess.run(
            ["perf", "script", "-i", perf_data, "-F", "tid,time,ip,sym,dso",
             "-G", "--show-mmap-events"], capture_output=True, text=True)
    except FileNotFoundError:
        raise Error("perf not found (Debian's linux-perf)")
    if result.returncode != 0:
        raise Error(f"perf script failed: {result.stderr.strip()}")
    return result.stdout


MMAP = re.compile(r"PERF_RECORD_MMAP2? \S+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) "
                  r"@ (0x[0-9a-f]+)[^\]]*\]: (\S+) (.+)$")
RANGE = 1024


class Objects:
    """Names the 1 KiB ranges of an object's code that samples without a
    symbol fell in (libMLIR.so keeps symbols for its exported functions
    only): by the object's own addresses, as `objdump -d --start-address`
    takes them, and the last symbol before the range."""

    def __init__(self):
        self.mappings = []  # (start, end, file offset of start, path)
        self.objects = {}

    def add_mapping(self, line):
        match = MMAP.search(line)
        if match and "x" in match.group(4):
            start, length, offset = (int(match.group(i), 16) for i in (1, 2, 3))
            self.mappings.append((start, start + length, offset,
                                  match.group(5).strip()))

    def name(self, ip):
        for start, end, offset, path in reversed(self.mappings):
            if start <= ip < end:
                break
        else:
            return None
        segments, symbols = self.read(path)
        file_offset = ip - start + offset
        for seg_offset, seg_address, size in segments:
            if seg_offset <= file_offset < seg_offset + size:
                address = file_offset - seg_offset + seg_address
                break
        else:
            return None
        low = address - address % RANGE
        index = bisect.bisect_right(symbols, (low, "\uffff")) - 1
        near = ""
        if index >= 0:
            symbol = symbols[index][1]
            if len(symbol) > 80:
                symbol = symbol[:77] + "..."
            near = f" ({symbol}+{low - symbols[index][0]:#x})"
        return (f"[unknown] {os.path.basename(path)} "
                f"{low:#x}-{low + RANGE:#x}{near}")

    def read(self, path):
        """The LOAD segments (file offset, address, size) and the sorted
        defined symbols (address, name) of `path`."""
        if path not in self.objects:
            segments, symbols = [], []
            headers = run_text(["readelf", "-lW", path])
            for line in headers.splitlines():
                fields = line.split()
                if fields[:1] == ["LOAD"]:
                    segments.append((int(fields[1], 16), int(fields[2], 16),
                                     int(fields[4], 16)))
            # The full symbol table when the object keeps one, else the
            # dynamic one (exported functions only).
            for flags in (["--defined-only"], ["-D", "--defined-only"]):
                for line in run_text(["nm", "-C"] + flags + [path]).splitlines():
                    fields = line.split(None, 2)
                    if len(fields) == 3 and fields[1] in "TtWw":
                        symbols.append((int(fields[0], 16), fields[2]))
                if symbols:
                    break
            self.objects[path] = (segments, sorted(symbols))
        return self.objects[path]


def run_text(command):
    """The output of `command`, empty if it fails or is missing."""
    try:
        return subprocess.run(command, capture_output=True, text=True).stdout
    except OSError:
        return ""


def count_samples(script_text, calls, by_address=False):
    """Samples per configuration and function: each sample of `script_text`
    (perf script -F tid,time,ip,sym,dso --show-mmap-events) in the timed
    call that holds it. With `by_address`, samples without a symbol count
    by the 1 KiB range of code they fell in (`Objects`)."""
    starts = [start for start, _, _ in calls]
    by_config = collections.defaultdict(collections.Counter)
    objects = Objects()
    for line in script_text.splitlines():
        if "PERF_RECORD_" in line:
            objects.add_mapping(line)
            continue
        fields = line.split(None, 3)
        if len(fields) < 3 or not fields[1].endswith(":"):
            continue
        try:
            time = float(fields[1][:-1])
        except ValueError:
            continue
        index = bisect.bisect_right(starts, time) - 1
        if index < 0 or time > calls[index][1]:
            continue
        function = fields[3].strip() if len(fields) > 3 else fields[2]
        if by_address and function.startswith("[unknown]"):
            try:
                function = objects.name(int(fields[2], 16)) or function
            except ValueError:
                pass
        by_config[calls[index][2]][function] += 1
    return by_config


def report(calls, by_config, base, config, top, out):
    num_calls = collections.Counter(name for _, _, name in calls)
    for name in (base, config):
        if name not in num_calls:
            raise Error(f"no timed call of configuration '{name}' (there "
                        f"are: {', '.join(sorted(num_calls))})")
    totals = {name: sum(counter.values()) for name, counter in
              by_config.items()}
    if not totals:
        raise Error("no sample falls in a timed call: was the profile "
                    "recorded with `perf record -k CLOCK_MONOTONIC`, of the "
                    "run that wrote the timed calls?")
    print(f"{'configuration':<28} {'calls':>6} {'samples':>9}", file=out)
    for name in sorted(num_calls, key=lambda n: -totals.get(n, 0)):
        print(f"{name:<28} {num_calls[name]:>6} {totals.get(name, 0):>9}",
              file=out)
    base_total = totals.get(base, 0)
    if base_total == 0:
        raise Error(f"no sample in the timed calls of '{base}'")
    # Per timed call, so that configurations with different numbers of
    # calls (a run cut short) still compare.
    scale = num_calls[base] / num_calls[config]
    total = totals.get(config, 0) * scale
    print(f"\n'{config}' against '{base}': {total / base_total:.4f}x of its "
          f"samples per timed call", file=out)
    a, b = by_config[base], by_config[config]
    rows = [(b[f] * scale - a[f], a[f], b[f] * scale, f) for f in set(a) | set(b)]
    rows.sort(key=lambda row: -row[0])
    cut = len(rows) > 2 * top
    shown = rows[:top] + rows[-top:] if cut else rows
    print(f"{'difference':>10} {'% of base':>9} {'base':>8} {'config':>8}  "
          "function", file=out)
    for index, (diff, before, after, function) in enumerate(shown):
        if cut and index == top:
            print(f"{'...':>10}", file=out)
        print(f"{diff:>+10.0f} {100 * diff / base_total:>+8.2f}% "
              f"{before:>8.0f} {after:>8.0f}  {function}", file=out)


def main(argv, out=sys.stdout):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("perf_data", help="perf record's output")
    parser.add_argument("timed_calls", help="tracking-bench --timed-calls")
    parser.add_argument("--base", default="upstream passes",
                        help="the configuration to compare against")
    parser.add_argument("--config", default="ours, 10% held",
                        help="the configuration to explain")
    parser.add_argument("--threads", type=int, default=1,
                        help="the thread count of the calls to compare")
    parser.add_argument("--ops", type=int,
                        help="the IR size of the calls to compare (needed "
                        "when the run measured several)")
    parser.add_argument("--top", type=int, default=25,
                        help="functions shown at each end (default 25)")
    parser.add_argument("--by-address", action="store_true",
                        help="count samples without a symbol by the 1 KiB "
                        "range of their object's code, named by the last "
                        "symbol before it (readelf and nm read the objects)")
    parser.add_argument("--script-output",
                        help="read this text of `perf script -F "
                        "tid,time,ip,sym,dso -G --show-mmap-events` instead "
                        "of running perf")
    args = parser.parse_args(argv)
    if args.top < 1:
        parser.error("--top wants at least 1")
    try:
        calls = read_timed_calls(args.timed_calls, args.ops, args.threads)
        if args.script_output:
            try:
                text = open(args.script_output, encoding="utf-8").read()
            except OSError as error:
                raise Error(f"cannot read {args.script_output}: "
                            f"{error.strerror}")
        else:
            text = perf_script(args.perf_data)
        report(calls, count_samples(text, calls, args.by_address),
               args.base, args.config, args.top, out)
    except Error as error:
        print(f"perf_by_config: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
