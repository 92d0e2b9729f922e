"""Kernels that borrow (``njit(linked=True, borrows=True)``, engine.fast.compile.jit): they
count no references, are refused when they make or are handed one of their own, and the
growth built on them releases every array it was given."""

import gc

import numpy as np
import pytest

pytest.importorskip("numba")

from engine.fast.compile.jit import BorrowingError, njit  # noqa: E402
from engine.settings import resolve  # noqa: E402
from tests.oracle.data import generated  # noqa: E402


def _llvm_of(kernel):
    (result,) = kernel.overloads.values()
    return result.library.get_llvm_str()


def _linked_pair():
    """A kernel that hands views to another, counting references and borrowing."""

    @njit(linked=True)
    def first(values, weights):
        return values[0] * weights[0]

    def total(group):
        values, weights = group
        s = 0.0
        for i in range(values.shape[0]):
            s += first(values[i:], weights[i:])
        return s

    return njit(linked=True)(total), njit(linked=True, borrows=True)(total)


def test_a_borrowing_kernel_counts_no_references():
    counting, borrowing = _linked_pair()

    @njit
    def both(group):
        return counting(group) + borrowing(group)

    group = (np.arange(5.0), np.full(5, 2.0))
    assert both(group) == 2 * 20.0
    assert "NRT_incref" in _llvm_of(counting)
    assert "NRT_incref" not in _llvm_of(borrowing)
    assert "NRT_decref" not in _llvm_of(borrowing)


def _refused(kernel):
    @njit
    def caller(n):
        return kernel(n)

    with pytest.raises(Exception) as raised:
        caller(3)
    assert "BorrowingError" in repr(raised.value) or isinstance(raised.value, BorrowingError)
    return str(raised.value)


def test_a_borrowing_kernel_that_allocates_or_returns_an_array_is_refused():
    def makes(n):
        a = np.zeros(n)
        return a.sum()

    def returns(n):
        return np.arange(n)

    assert "is handed" in _refused(njit(linked=True, borrows=True)(makes))
    assert "returns" in _refused(njit(linked=True, borrows=True)(returns))
    with pytest.raises(ValueError, match="linked"):
        njit(borrows=True)(makes)


@pytest.mark.usefixtures("compiled_builder")
@pytest.mark.parametrize(
    "params,shape",
    [
        (dict(algorithm="cart", task="regression"), dict(regression=True, nominal=1)),
        (dict(algorithm="cart", splitter="histogram", min_samples_leaf=2), dict(nominal=2)),
        (dict(algorithm="c45", prune="none"), dict(nominal=2)),
    ],
    ids=["exact regression", "histogram subsets", "c45 multiway"],
)
def test_growth_releases_every_array_it_was_given(params, shape):
    from numba.core.runtime import _nrt_python, rtsys

    from engine.growth import grow_flat

    data = generated(7, n=3000, missing=0.1, **shape)
    settings = resolve(**params)
    grow_flat(data, settings)  # loaded, warmed
    gc.collect()
    was = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        for _ in range(3):
            assert grow_flat(data, settings).n_nodes > 50
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        if not was:
            _nrt_python.memsys_disable_stats()
    made = after.mi_alloc - before.mi_alloc
    assert made > 0
    assert after.mi_free - before.mi_free == made
