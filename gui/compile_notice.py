"""The status bar's word on the fast split search's one-time compilation."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel

from engine.compiling import lifecycle as kernels

#: How long "ready" (or "failed") stays in the status bar.
SHOWN_MS = 10_000


class CompileNotice(QLabel):
    """Shows what :mod:`engine.compiling.lifecycle` says while it compiles, then that it is done.

    Signals
    -------
    notice_received(object) : an :class:`engine.compiling.lifecycle.Notice`; emitted from the
        engine's thread, handled on the window's.
    """

    notice_received = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compile-notice")
        self.hide()
        self._hide_later = QTimer(self, singleShot=True, interval=SHOWN_MS)
        self._hide_later.timeout.connect(self.hide)
        self.notice_received.connect(self._on_engine_notice)
        unsubscribe = kernels.subscribe(self.notice_received.emit)
        self.destroyed.connect(lambda *_: unsubscribe())

    def _on_engine_notice(self, notice) -> None:
        sentence = notice.message[:1].upper() + notice.message[1:]
        self.setText(_short(notice.state, sentence))
        tips = {
            "compiling": "Arbor compiles its fast split search once per machine and version; "
            "clones and virtual environments share it. 'python main.py compile' "
            "does it up front.",
            "ready": "Later fits and later runs of Arbor use the compiled split search.",
            "failed": "Fits give the same trees with the uncompiled search, far more slowly. "
            "'python main.py compile' tries again and says why it fails.",
        }
        self.setToolTip(f"{sentence}.\n{tips.get(notice.state, '')}".strip())
        self.setStyleSheet("color: #B42318;" if notice.state == "failed" else "")
        self.show()
        if notice.state == "compiling":
            self._hide_later.stop()
        else:
            self._hide_later.start()


def _short(state: str, sentence: str) -> str:
    """The notice's first clause, and while compiling only its count and time left: the
    whole sentence took most of the status bar and cut the window's own messages short
    (it stays whole in the tooltip)."""
    first = sentence.split(";")[0].strip()
    if state != "compiling":
        return first
    progress = first.split(": ", 1)[1] if ": " in first else ""
    return "Compiling the fast split search" + (f": {progress}" if progress else "") + "…"
