"""Java's ``java.util.Random`` stream, as far as Weka's cross-validation draws from it.

Weka shuffles a data set with ``Random(seed)``: ``nextInt(j + 1)`` for j = n-1 down to 1.
To deal folds exactly as Weka does, Arbor draws the same numbers. The generator is the
48-bit linear congruential one Java documents (multiplier 0x5DEECE66D, increment 11; a
call to ``next(31)`` returns the top 31 bits of the new state), computed here for a whole
stream at once: state t+B is an affine function of state t, so a block of states gives the
next block in one array operation.
"""

from __future__ import annotations

import numpy as np

MULTIPLIER = 0x5DEECE66D
INCREMENT = 0xB
MASK = (1 << 48) - 1
_LOW = (1 << 24) - 1
#: States worked out one by one before the array doubling takes over.
_FIRST_BLOCK = 256


def _mul_mod48(x: np.ndarray, a: int) -> np.ndarray:
    """``x * a mod 2**48`` for uint64 ``x`` below 2**48, without overflowing 64 bits."""
    a_lo, a_hi = np.uint64(a & _LOW), np.uint64(a >> 24)
    x_lo, x_hi = x & np.uint64(_LOW), x >> np.uint64(24)
    cross = (x_hi * a_lo + x_lo * a_hi) & np.uint64(_LOW)
    return (x_lo * a_lo + (cross << np.uint64(24))) & np.uint64(MASK)


def states(seed: int, count: int) -> np.ndarray:
    """The generator's states after each of the first ``count`` calls of ``Random(seed)``.

    >>> [int(s) >> 17 for s in states(42, 2)]  # next(31) twice: new Random(42).nextInt() >>> 1
    [1562431130, 117392763]
    """
    out = np.empty(count, dtype=np.uint64)
    state = (seed ^ MULTIPLIER) & MASK
    first = min(count, _FIRST_BLOCK)
    for t in range(first):
        state = (state * MULTIPLIER + INCREMENT) & MASK
        out[t] = state
    done, a, c = first, pow(MULTIPLIER, first, 1 << 48), 0
    # a, c: the affine step over ``done`` calls (state -> a * state + c mod 2**48).
    c = INCREMENT * sum(pow(MULTIPLIER, i, 1 << 48) for i in range(first)) & MASK
    while done < count:
        take = min(done, count - done)
        out[done : done + take] = (_mul_mod48(out[:take], a) + np.uint64(c)) & np.uint64(MASK)
        a, c = (a * a) & MASK, (a * c + c) & MASK
        done += take
    return out


def next_ints(seed: int, bounds: np.ndarray) -> np.ndarray:
    """``[Random(seed).nextInt(b) for b in bounds]``, drawn in that order from one generator.

    Java rejects a 31-bit draw that falls in the last, incomplete multiple of a bound that is
    not a power of two, and draws again; rejections are rare (about bound / 2**31 a call), so
    the stream is read as if there were none, and re-read after each one that occurs.

    >>> next_ints(1, np.array([10, 10, 16])).tolist()  # new Random(1): nextInt(10) twice, nextInt(16)
    [5, 8, 6]
    """
    bounds = np.asarray(bounds, dtype=np.int64)
    n = len(bounds)
    out = np.empty(n, dtype=np.int64)
    spare = 16
    bits = (states(seed, n + spare) >> np.uint64(17)).astype(np.int64)
    power_of_two = (bounds & (bounds - 1)) == 0
    start, shift = 0, 0  # calls before ``start`` are done; ``shift`` draws were rejected so far
    window = 1 << 16
    while start < n:
        stop = min(n, start + window)
        if stop + shift > len(bits):
            spare *= 4
            bits = (states(seed, n + shift + spare) >> np.uint64(17)).astype(np.int64)
        b, drawn = bounds[start:stop], bits[start + shift : stop + shift]
        value = drawn % b
        rejected = ~power_of_two[start:stop] & (drawn - value + b - 1 >= 1 << 31)
        first = int(np.argmax(rejected)) if rejected.any() else stop - start
        scaled = (b * drawn) >> 31
        out[start : start + first] = np.where(power_of_two[start:stop], scaled, value)[:first]
        if first < stop - start:
            shift += 1  # that call draws again
        start += first
    return out
