"""Statistics the benchmarks print over their rounds (python_bench.py, and
bench_json_check.py to check tracking-bench's, which computes the same)."""

import math
import statistics


def median_interval(values):
    """A 95% confidence interval of the median of `values`, with no
    assumption about their distribution: the order statistics at ranks
    n/2 -+ 0.98 sqrt(n), the normal approximation of the binomial count of
    samples below the median. It narrows as sqrt(n): a long run resolves a
    few percent on a host whose single rounds swing by tens of percent."""
    ordered = sorted(values)
    n = len(ordered)
    half_width = 0.98 * math.sqrt(n)

    def at(rank):  # 1-based, clamped to the samples
        return ordered[min(max(round(rank) - 1, 0), n - 1)]

    return [at(math.floor(n / 2 - half_width)), at(math.ceil(n / 2 + 1 + half_width))]


def summarize(values):
    """Median, range, the median's 95% interval and the values in order."""
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "median_ci95": median_interval(values),
        "rounds": list(values),
    }
