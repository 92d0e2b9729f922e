"""The benchmark's own arithmetic (issue 34): the scaling lines that judge two threads
against one, the machine probe beside them, and the data both generators make. The
benchmark's timings themselves are not tested (they are measurements, not assertions)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_peers  # noqa: E402
import ceiling  # noqa: E402


def _one_case(**by_peer):
    """``timed`` as bench_peers keeps it: one case, each peer's every run's time by threads."""
    return {("tied", "regression", 0.0, who): times for who, times in by_peer.items()}


def test_scaling_shows_the_best_times_ratio_and_the_runs_own_range(capsys):
    # Best one-thread 1.8 s against best two-thread 1.0 s; the runs' own 2.0 / 1.0 and 1.8 / 1.2.
    timed = _one_case(**{"arbor hist": {1: [2.0, 1.8], 2: [1.0, 1.2]}})
    bench_peers.scaling(timed, [1, 2])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "speed on 2 threads against one"
    assert lines[-1] == "tied     regression        0% | arbor hist 1.80x (1.50-2.00)"


def test_scaling_of_one_run_has_no_range_and_lists_the_machine_last(capsys):
    timed = _one_case(
        **{
            "machine arithmetic": {1: [0.30], 2: [0.16]},
            "lightgbm": {1: [1.5], 2: [0.9]},
            "arbor exact": {1: [0.9], 2: [0.5]},
        }
    )
    bench_peers.scaling(timed, [1, 2])
    assert capsys.readouterr().out.splitlines()[-1] == (
        "tied     regression        0% | arbor exact 1.80x | lightgbm 1.67x"
        " | machine arithmetic 1.88x"
    )


def test_scaling_needs_one_thread_and_another(capsys):
    bench_peers.scaling(_one_case(**{"arbor hist": {2: [1.0], 4: [0.6]}}), [2, 4])
    bench_peers.scaling(_one_case(**{"arbor hist": {1: [1.0]}}), [1])
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("generator", ["mixed", "tied"])
def test_make_data_is_the_same_rows_for_a_seed(generator):
    X, y, frame = bench_peers.make_data(500, generator, "classification", 0.1)
    again = bench_peers.make_data(500, generator, "classification", 0.1)
    assert X.shape == (500, 16) and list(frame.columns) == [f"x{i}" for i in range(16)] + ["y"]
    np.testing.assert_array_equal(X, again[0])
    assert set(y) <= {0, 1, 2, 3} and set(frame["y"]) <= set("abcd")
    assert 0.05 < np.isnan(X).mean() < 0.15
    small = X[:, 12:][~np.isnan(X[:, 12:])]
    assert set(small) <= set(range(5 if generator == "mixed" else 10))
    if generator == "tied":  # one decimal: few distinct values, many ties
        numeric = X[:, :12][~np.isnan(X[:, :12])]
        np.testing.assert_allclose(numeric, np.round(numeric, 1))


def test_quality_is_accuracy_or_r2_in_per_cent():
    truth = np.array([1.0, 2.0, 3.0, 4.0])
    assert bench_peers.quality("regression", truth, truth) == 100.0
    assert bench_peers.quality("regression", truth, np.full(4, 2.5)) == 0.0
    classes = np.array(list("abca"))
    # YDF's probabilities of its classes in sorted order: the most probable class is taken.
    chances = np.array([[0.9, 0.1, 0, 0], [0, 0.8, 0.2, 0], [0.6, 0, 0.4, 0], [0, 0, 0, 1]])
    assert bench_peers.quality("classification", classes, chances) == 50.0


def test_probe_times_each_kind_on_each_thread_count(monkeypatch):
    monkeypatch.setattr(ceiling, "ARITHMETIC_STEPS", 20_000)
    monkeypatch.setattr(ceiling, "READ_STEPS", 20_000)
    monkeypatch.setattr(ceiling, "READ_ROWS", 4_096)
    best = ceiling.probe([1, 2], repeats=1)
    assert set(best) == {"arithmetic", "reads"}
    assert all(set(times) == {1, 2} and min(times.values()) > 0 for times in best.values())
    times = {"arithmetic": {1: 2.0, 2: 1.0}, "reads": {1: 1.5, 2: 1.0}}
    assert ceiling.describe(times, [2]) == "arithmetic 2.00x | reads 1.50x"
