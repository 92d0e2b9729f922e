"""Model > Algorithms side by side: ID3, C4.5, CART and the optimal tree grown on the open table
in a worker
(progress in the status bar, Cancel with Esc), shown in a window of their own."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSize, Qt

from engine.errors import ArborError
from gui.session.jobs import Job

TITLE = "Algorithms side by side — Arbor"


class SideBySide(QObject):
    """Starts the comparison with the Algorithm panel's options and keeps its window."""

    def __init__(self, controller, dialogs, parent=None):
        super().__init__(parent)
        self.controller, self.dialogs = controller, dialogs
        self.window = None

    def start(self) -> Job | None:
        """Grow the algorithms on the open table with the current options (each algorithm's
        own defaults where an option is another's)."""
        c = self.controller
        try:
            table = c.doc.snapshot()
        except ArborError as err:
            self.dialogs.error(str(err))
            return None
        params = {k: v for k, v in c.options.params.items() if v is not None}
        from engine.evaluate.side_by_side import optimal_depth

        depth = optimal_depth(params)

        def call(monitor):
            from engine.data.encoding import encode
            from engine.evaluate.side_by_side import compare

            data = encode(table, params.get("task") or "classification")
            result = compare(data, params, monitor=monitor)
            for grown in result.algorithms:  # the trees drawn: their nodes made here
                for tree in (grown.grown, grown.pruned):
                    if tree is not None:
                        tree.with_nodes_made()
            if not any(g.reason is None for g in result.algorithms):
                raise ArborError(
                    "none of the algorithms can grow a tree on this table: "
                    + "; ".join(g.reason for g in result.algorithms)
                )
            return result

        job = Job("Algorithms side by side", call)
        job.finished.connect(lambda result, j=job: c.runner.is_current(j) and self.show(result))
        job.cancelled.connect(
            lambda j=job: c.runner.is_current(j) and c.say("The side-by-side growth was cancelled")
        )
        c.start(job)
        c.say(f"Growing ID3, C4.5, CART and the optimal tree (depth {depth}) side by side…")
        return job

    def show(self, result) -> None:
        from gui.panels.side_by_side import SideBySideView
        from gui.screen_fit import first_geometry

        if self.window is None:
            parent = self.parent()
            self.window = SideBySideView(parent)
            self.window.setWindowFlag(Qt.WindowType.Window)
            self.window.setWindowTitle(TITLE)
            screen = parent.screen() if parent is not None else None
            if screen is None:
                self.window.resize(1240, 680)
            else:
                self.window.setGeometry(
                    first_geometry(screen.availableGeometry(), QSize(1240, 680))[0]
                )
        self.window.show()
        self.window.raise_()
        self.window.show_result(result)
        self.controller.say("Algorithms side by side: Ctrl+J jumps to where a pair first parts")
