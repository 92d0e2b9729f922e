"""The compiled weakest-link loop (engine/fast/weakest.py) gives the Python loop's steps, bit
for bit, whole and stopped at an alpha (issue 39)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.compiling import lifecycle
from engine.data.encoding import encode
from engine.data.io import read_table
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.growth import grow_flat
from engine.prune import cost_complexity

WEKA = Path(__file__).resolve().parents[2] / "fixtures" / "weka" / "data"


@pytest.mark.parametrize(
    ("sample", "options"),
    [
        ("iris", {"algorithm": "cart"}),
        ("labor", {"algorithm": "cart", "task": "regression", "target": "duration"}),
    ],
)
def test_compiled_weakest_links_are_the_python_loops(sample, options, monkeypatch):
    options = dict(options)
    path = WEKA / f"{sample}.arff"
    table = read_table(str(path)) if path.exists() else load_sample(sample)
    if "target" in options:
        table = table.with_target(options.pop("target"))
    settings = DecisionTree(**options, prune="none").settings()
    flat = grow_flat(encode(table, settings.task), settings)
    runs = {}
    for compiled in (False, True):
        monkeypatch.setattr(lifecycle, "is_ready", lambda compiled=compiled: compiled)
        runs[compiled] = [cost_complexity._weakest_links(flat, stop) for stop in (None, 0.01)]
    for (steps, in_tree, is_leaf), (c_steps, c_in_tree, c_is_leaf) in zip(
        *runs.values(), strict=True
    ):
        assert len(steps.alphas) > 2 and steps._fields == c_steps._fields
        for column, c_column in zip(steps, c_steps, strict=True):  # bit for bit
            assert column.tolist() == c_column.tolist()
        assert np.array_equal(in_tree, c_in_tree) and np.array_equal(is_leaf, c_is_leaf)
