"""F5 draws the tree as soon as it is fitted; the training's cross-validation follows as a job
of its own and its figures join the result and the run when they come (issue 39)."""

from __future__ import annotations

import threading

import engine.evaluate.figures as figures_module


def test_the_tree_is_drawn_before_its_cross_validation_ends(qtbot, window, monkeypatch):
    release = threading.Event()
    real = figures_module.cross_validated

    def held(*args, **kwargs):  # the training's CV waits until the test has looked
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(figures_module, "cross_validated", held)
    c = window.controller
    c.set_options({"algorithm": "c45"}, 5, 1)
    job = c.train()
    assert job is not None
    qtbot.waitUntil(lambda: c.result is not None and c.cv_pending, timeout=60000)
    qtbot.waitUntil(lambda: window.canvas.tree() is c.result.model.tree_, timeout=60000)
    # On screen, fitted, listed as a run; its cross-validation still running.
    assert c.result.figures.cv is None and c.busy and not c.stale
    run = c.runs[c.runs.numbers()[-1]]
    assert [ev.method for ev in run.evaluations] == ["training set"]
    assert not window.results.cv_button.isVisibleTo(window.results)  # no second CV offered
    assert c.train() is None  # F5 again: the same training is still running
    release.set()
    qtbot.waitUntil(lambda: not c.busy and c.result.figures.cv is not None, timeout=60000)
    assert not c.cv_pending and c.figures.cv is not None
    run = c.runs[c.runs.numbers()[-1]]
    assert [ev.method for ev in run.evaluations] == ["training set", "5-fold cross-validation"]
    assert window.canvas.tree() is c.result.model.tree_  # the same tree, not drawn again


def test_cancelling_the_cross_validation_keeps_the_tree(qtbot, window, monkeypatch):
    release = threading.Event()
    real = figures_module.cross_validated

    def held(*args, **kwargs):
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(figures_module, "cross_validated", held)
    c = window.controller
    c.set_options({"algorithm": "c45"}, 5, 1)
    c.train()
    qtbot.waitUntil(lambda: c.result is not None and c.cv_pending, timeout=60000)
    tree = c.result.model.tree_
    said = []
    c.message.connect(said.append)
    c.cancel()
    release.set()
    qtbot.waitUntil(lambda: not c.busy, timeout=60000)
    qtbot.waitUntil(lambda: not c.cv_pending, timeout=10000)
    assert c.tree is tree and c.result.figures.cv is None
    assert window.results.cv_button.isVisibleTo(window.results)  # offered again
    assert any("Cross-validation cancelled" in text for text in said)
