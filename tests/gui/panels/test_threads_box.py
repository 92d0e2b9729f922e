"""Threads in the Algorithm panel (issue 34): 0 reads "every core", the value reaches the fit
and comes back from saved parameters; the command line's --threads means the same."""

from engine.fast.threads import n_threads
from engine.settings import OPTION, resolve
from gui.panels.algorithm import AlgorithmPanel


def test_threads_box_says_every_core_and_round_trips(qtbot):
    panel = AlgorithmPanel()
    qtbot.addWidget(panel)
    assert panel.params()["threads"] == 0
    assert panel.threads.text() == f"every core ({n_threads(0)})"
    assert panel.threads.toolTip().startswith(OPTION["threads"].help[:20])
    panel.threads.setValue(2)
    assert resolve(**panel.params()).threads == 2
    panel.set_params({"threads": 1})
    assert panel.params()["threads"] == 1


def test_the_command_line_takes_threads():
    from cli.main import build_parser

    args = build_parser().parse_args(["train", "--sample", "iris", "--threads", "3"])
    assert args.threads == 3
