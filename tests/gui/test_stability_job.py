"""View > Tree stability as a background job (issue 35, item 3): its progress and Cancel in the
status bar (Esc too), and one run for the tree growth steps stop at, not one per step."""

import threading

import pytest

import engine.evaluate.stability as stability_module
from tests.gui.conftest import train_and_wait


@pytest.fixture
def held_stability(monkeypatch):
    """The stability call stands at "fold 1 of 10" until cancelled (or released): the test
    sees its progress and cancels it without a race against a real, quick one."""
    release = threading.Event()
    calls = []

    def held(tree, data, settings, folds, seed, monitor, weka_folds=False):
        calls.append(tree)
        monitor.report(0.5, "fold 1 of 10")
        while not release.wait(0.01):
            monitor.check()
        return stability_module.stability(tree, data, settings, folds, seed)

    monkeypatch.setattr(stability_module, "stability", held)
    yield calls
    release.set()


def test_stability_shows_its_progress_and_esc_cancels_it(qtbot, window, held_stability):
    train_and_wait(qtbot, window)
    marks = window.stability_marks
    assert not window.act["cancel"].isEnabled()
    window.act["stability"].trigger()
    qtbot.waitUntil(lambda: marks.progress.value() == 500, timeout=10000)
    assert "Tree stability: fold 1 of 10" in marks.progress.text()
    assert not marks.progress.isHidden() and not marks.cancel_button.isHidden()
    assert marks.progress.parent() is not None  # in the status bar, beside the window's own
    assert window.act["cancel"].isEnabled() and not window.controller.busy
    window.act["cancel"].trigger()  # Esc: nothing else runs, so it stops the stability
    qtbot.waitUntil(lambda: not marks.busy, timeout=10000)
    assert marks.result is None and marks.progress.isHidden() and marks.cancel_button.isHidden()
    assert "Tree stability cancelled" in window.status_label.text()
    assert not window.act["cancel"].isEnabled()


def test_closing_the_window_stops_a_running_stability(qtbot, window, held_stability):
    train_and_wait(qtbot, window)
    marks = window.stability_marks
    window.act["stability"].trigger()
    qtbot.waitUntil(lambda: marks.progress.value() == 500, timeout=10000)
    window.doc.undo_stack.setClean()  # nothing unsaved: the close is not asked about
    assert window.close()
    # Cancelled and ended by the close itself, not left to run into a deleted window.
    assert window.controller.runner.wait(0)  # the thread pool is idle: the 5 s wait was enough
    qtbot.waitUntil(lambda: not marks.busy, timeout=10000)
    assert marks.result is None


def test_growth_steps_put_stability_off_until_they_stop(qtbot, window, monkeypatch):
    train_and_wait(qtbot, window)
    marks = window.stability_marks
    marks.set_on(True)  # the trained tree's, at once
    qtbot.waitUntil(lambda: marks.result is not None, timeout=30000)
    marks._settle.setInterval(100)  # the pause before a new tree's run, shortened
    started = []
    compute = marks.compute
    monkeypatch.setattr(
        marks, "compute", lambda: started.append(window.controller.tree) or compute()
    )
    playing = [True]
    monkeypatch.setattr(marks, "stepping", lambda: playing[0])
    growth = window.growth
    growth.start_over()
    for _ in range(3):
        assert growth.step()
    assert marks.result is None  # each step drops the last tree's marks
    qtbot.wait(400)  # settled, but the Growth panel still plays: nothing started
    assert started == []
    playing[0] = False
    qtbot.waitUntil(lambda: marks.result is not None, timeout=30000)
    assert started == [window.controller.tree]  # once, for the tree the steps stopped at
    assert marks.result[0] is window.controller.tree


def test_the_window_tells_stability_when_the_growth_panel_plays(window):
    play = window.growth.play_button
    assert not window.stability_marks.stepping()
    play.setChecked(True)
    assert window.stability_marks.stepping()
    play.setChecked(False)
