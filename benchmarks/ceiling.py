"""What the machine itself gives on more threads, timed beside the libraries (issue 34).

On a shared virtual machine two threads may not get two cores' worth of work done: its
cores may be one physical core's two hardware threads, or other machines' work may share
them, and that changes from minute to minute. A library's speed on two threads against one
says little without what the machine gave at the same time, so :func:`probe` times two
kinds of work that any builder does, on one thread and then split over ``k``, the way
Arbor's threads run (plain threads, each in a compiled function that releases the GIL):

- ``arithmetic``: floating-point work on registers alone (no memory);
- ``reads``: adding numbers read at random rows of a 64 MB column into a small table, as
  the histogram mode counts a node's entries.

On an idle machine of ``k`` real cores both come close to ``k``.

    python benchmarks/ceiling.py --threads 1 2
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

#: Steps of each kind of work (about 0.2-0.4 s on one thread of the development machine).
ARITHMETIC_STEPS = 12_000_000
READ_STEPS = 20_000_000
#: The column the reads go to: bigger than any cache.
READ_ROWS = 8_000_000


@numba.njit(nogil=True, cache=False)
def _arithmetic(start, stop):
    total = 0.0
    for i in range(start, stop):
        total += (i * 1.0000001) % 7.3
    return total


@numba.njit(nogil=True, cache=False)
def _reads(column, rows, start, stop):
    table = np.zeros((16, 64))
    for i in range(start, stop):
        r = rows[i]
        table[r & 15, (r >> 4) & 63] += column[r]
    return table.sum()


def _timed(work, steps: int, threads: int, pool: ThreadPoolExecutor) -> float:
    """Seconds for ``work(start, stop)`` over ``range(steps)`` split into ``threads`` ranges."""
    cuts = np.linspace(0, steps, threads + 1).astype(np.int64).tolist()
    begin = time.perf_counter()
    futures = [pool.submit(work, a, b) for a, b in zip(cuts, cuts[1:], strict=False)]
    for f in futures:
        f.result()
    return time.perf_counter() - begin


def probe(threads: list[int], repeats: int = 3) -> dict[str, dict[int, float]]:
    """Each kind of work's best time on each thread count (``repeats`` of each, the thread
    counts taking turns so that a drift in the machine's speed falls on all of them)."""
    rng = np.random.default_rng(0)
    column = rng.random(READ_ROWS)
    rows = rng.integers(0, READ_ROWS, size=READ_STEPS).astype(np.int64)
    kinds = {
        "arithmetic": (_arithmetic, ARITHMETIC_STEPS),
        "reads": (lambda a, b: _reads(column, rows, a, b), READ_STEPS),
    }
    best: dict[str, dict[int, float]] = {kind: {} for kind in kinds}
    with ThreadPoolExecutor(max(threads)) as pool:
        for work, _ in kinds.values():  # compiled, and the pool's threads started
            _timed(work, 1000, max(threads), pool)
        for r in range(repeats):
            for k in threads if r % 2 == 0 else threads[::-1]:
                for kind, (work, steps) in kinds.items():
                    took = _timed(work, steps, k, pool)
                    best[kind][k] = min(best[kind].get(k, took), took)
    return best


def describe(best: dict[str, dict[int, float]], more: list[int]) -> str:
    """``arithmetic 1.93x | reads 1.85x``: each kind's best time on one thread against ``k``."""
    return " | ".join(
        f"{kind} " + " ".join(f"{times[1] / times[k]:.2f}x" for k in more)
        for kind, times in best.items()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    threads = sorted(set([1, *args.threads]))
    best = probe(threads, args.repeats)
    for kind, times in best.items():
        print(f"{kind:<10} " + "  ".join(f"{k} thread(s) {t:.3f}s" for k, t in times.items()))
    print("against one thread:", describe(best, [k for k in threads if k != 1]))


if __name__ == "__main__":
    main()
