"""Regrow on edit when it cannot train (issue 35): the problem said once in the status bar, no
dialog per edit, and no regrowing until the options change or the user trains."""

import pytest

import gui.controller
from engine.errors import ArborError
from gui.table.table_commands import SetCellCommand
from tests.gui.conftest import train_and_wait


@pytest.fixture
def regrowing(qtbot, window):
    """The window with a trained tree, Regrow on edit on (a short pause after typing), and
    the status bar's messages recorded."""
    train_and_wait(qtbot, window)
    regrow = window.regrow
    regrow._timer.setInterval(20)
    window.act["regrow_on_edit"].trigger()
    said = []
    window.controller.message.connect(said.append)
    return window, regrow, said


def _edit(qtbot, window, row, value):
    regrow = window.regrow
    window.doc.undo_stack.push(SetCellCommand(window.doc, row, 0, value))
    qtbot.waitUntil(lambda: not regrow._timer.isActive() and not window.controller.busy)


def _stops(said):
    return [s for s in said if s.startswith("Regrow on edit stopped")]


def test_options_with_a_problem_are_said_once_and_regrowing_waits_for_new_options(qtbot, regrowing):
    window, regrow, said = regrowing
    window.config.set_params({"algorithm": "id3", "prune": "cost-complexity"})
    problem = window.config.problem()
    assert problem and "cost-complexity" in problem
    tree = window.controller.tree
    for row, value in ((2, "sunny"), (3, "sunny"), (4, "sunny")):
        _edit(qtbot, window, row, value)
    assert window.dialogs.errors == []  # never a dialog per edit
    assert _stops(said) == [regrow.last] and problem.rstrip(".") in regrow.last
    assert regrow.halted is not None and window.controller.tree is tree  # nothing trained
    # Options that train: the next edit regrows again.
    window.config.set_params({"algorithm": "c45", "prune": "pessimistic"})
    assert window.config.problem() is None
    _edit(qtbot, window, 5, "sunny")
    qtbot.waitUntil(lambda: regrow.last.startswith("Regrown after the edit"), timeout=30000)
    assert regrow.halted is None and window.dialogs.errors == []


def test_a_failed_regrowth_is_said_once_and_the_users_training_resumes_it(
    qtbot, regrowing, monkeypatch
):
    window, regrow, said = regrowing

    def broken(*args, **kwargs):
        def call(monitor):
            raise ArborError("the table has no rows to train on")

        return call

    real = gui.controller.train_call
    monkeypatch.setattr(gui.controller, "train_call", broken)
    _edit(qtbot, window, 2, "sunny")
    qtbot.waitUntil(lambda: regrow.halted is not None, timeout=10000)
    _edit(qtbot, window, 3, "sunny")
    assert window.dialogs.errors == []
    assert _stops(said) == [
        "Regrow on edit stopped: the table has no rows to train on. It regrows again once "
        "the options change or you train (F5)."
    ]
    assert said[-1] == _stops(said)[0]  # after the training's own "failed" line, not under it
    # The user's own Train (F5) works again, and so does regrowing after it.
    monkeypatch.setattr(gui.controller, "train_call", real)
    train_and_wait(qtbot, window)
    assert regrow.halted is None
    _edit(qtbot, window, 4, "sunny")
    qtbot.waitUntil(lambda: regrow.last.startswith("Regrown after the edit"), timeout=30000)
