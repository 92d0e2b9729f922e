"""Giving memory back to the system when the window lets go of something big.

Python frees a closed table's arrays, or an old training's trees and encoded rows, at once;
but the allocators keep the pages for reuse. glibc's malloc raises its mmap threshold after
each big free, so later arrays of up to 32 MB come from its heaps (one per worker thread)
and their pages stay when freed; Arrow's memory pool (mimalloc) keeps what the CSV reader
used. The resident size of a long session then only ever grows, by up to a table's size each
time one is opened. :func:`give_back` returns those free pages; the controller calls it once
a table is closed or a training's result replaced (a few milliseconds).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache


@cache
def _malloc_trim():
    """glibc's ``malloc_trim`` (None elsewhere: other allocators return pages themselves)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def give_back() -> None:
    """Return the free pages of every malloc heap and of Arrow's pool to the system."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
    arrow = sys.modules.get("pyarrow")  # only if a reader loaded it: importing it costs a second
    if arrow is not None:
        arrow.default_memory_pool().release_unused()
