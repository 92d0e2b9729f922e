"""Sums of products in one order on every machine (engine/sums.py).

The recorded CV figures and pruning records (tests/fixtures/cv_alpha, tests/fixtures/flat)
failed on an AMD machine by one unit in the last place: numpy's ``@`` had summed them in
whatever order the processor's BLAS kernel used. Here the engine's numbers are computed again
with OpenBLAS told to use another kernel, and must not change.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.sums import dot, row_dots, weighted_columns

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("size", [1, 2, 7, 8, 9, 16, 17, 130, 1000, 9000])
def test_each_row_sums_as_the_vector_does(size):
    rng = np.random.default_rng(size)
    a, b = rng.normal(size=(2, 40, size)) * 10.0 ** rng.integers(-8, 8, size=(2, 40, size))
    got = row_dots(a, b)
    assert [float(x) for x in got] == [dot(a[i], b[i]) for i in range(40)]
    assert row_dots(np.asfortranarray(a), b).tolist() == got.tolist()  # whatever the layout
    assert got == pytest.approx(np.einsum("ij,ij->i", a, b), rel=1e-9, abs=1e-9)


def test_a_weighted_sum_of_rows_adds_them_in_their_order():
    rng = np.random.default_rng(3)
    x, m = rng.normal(size=(50, 6)), rng.normal(size=(6, 4))
    want = np.zeros((50, 4))
    for k in range(6):  # one row of m after another, as a compiled loop over the classes would
        want = want + x[:, k, None] * m[k] if k else x[:, 0, None] * m[0]
    assert weighted_columns(x, m).tolist() == want.tolist()
    assert weighted_columns(x[7], m).tolist() == want[7].tolist()
    assert weighted_columns([[1, 2]], ((0, 1), (5, 0))).tolist() == [[10.0, 1.0]]


_RECOMPUTE = """
import json, sys
sys.path.insert(0, ".")
from tests.engine.prune.same_trees import case
from tests.engine.prune.test_cv_alpha_recorded import _choice
print(json.dumps({"cv": _choice("diabetes-plas"), "digests": case("labor-regression", "cart-re")}))
"""


@pytest.mark.skipif(platform.machine() != "x86_64", reason="OpenBLAS's x86-64 kernel names")
def test_the_recorded_numbers_whatever_kernel_blas_picks():
    """A processor without AVX (OpenBLAS's Prescott kernel: no fused multiply-add, other
    unrolling) must give every bit the fixtures hold, as this machine's kernel does."""
    out = subprocess.run(
        [sys.executable, "-c", _RECOMPUTE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "OPENBLAS_CORETYPE": "Prescott"},
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    fixtures = ROOT / "tests" / "fixtures"
    assert (
        got["cv"]
        == json.loads((fixtures / "cv_alpha" / "recorded.json").read_text())["diabetes-plas"]
    )
    assert (
        got["digests"]
        == json.loads((fixtures / "flat" / "digests.json").read_text())["labor-regression/cart-re"]
    )
