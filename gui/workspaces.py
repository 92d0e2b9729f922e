"""Workspaces: Learn, Analyse and Present, each a dock arrangement of its own (issue 38).

Each workspace opens some docks and remembers how the person left them: switching keeps the
arrangement of the one left (``QMainWindow.saveState``) and brings back the other's, or its
default the first time. They are kept in the settings, not the project: a layout belongs to
the screen and the person, not to the data.

The default places every dock by a rule, not by a list of every dock: a dock is in the
workspace :data:`OPENS` names it in, else in that of the dock it shares tabs with (its
``DOCKS`` row), else in Analyse; it goes on the side of the window its ``DOCKS`` area says
(the bottom's docks join the left, so that the canvas keeps its height). A dock added to the
window later thus has a place in every workspace, and a saved arrangement that has never
seen it places it the same way.

On a small window (:func:`is_compact`) a workspace's docks share one side, as tabs along its
edge, so the canvas keeps at least half of the window.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QObject, QSize, Qt, QTimer, Signal

LEARN, ANALYSE, PRESENT = "Learn", "Analyse", "Present"
NAMES = (LEARN, ANALYSE, PRESENT)

#: The docks each workspace opens, the one raised on each side first. Present opens none:
#: the canvas alone.
OPENS = {
    LEARN: ("Growth", "Inspector", "Data", "Pruning", "What-if", "Regions"),
    ANALYSE: ("Algorithm", "Evaluation", "Results", "Runs", "Summary", "Text"),
    PRESENT: (),
}
#: What each workspace is for (its action's tooltip).
PURPOSES = {
    LEARN: "Learn: the data, growing step by step, the inspector and the pruning walk-through",
    ANALYSE: "Analyse: the algorithm's options, results, runs and evaluation",
    PRESENT: "Present: the canvas alone (F11 presents it full screen)",
}
#: A window narrower or lower than this is compact: one side of docks, not two.
COMPACT_BELOW = QSize(1300, 800)

LEFT, RIGHT = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea


def is_compact(size: QSize) -> bool:
    return size.width() < COMPACT_BELOW.width() or size.height() < COMPACT_BELOW.height()


def workspace_of(dock: str, docks_table) -> str:
    """The workspace that opens ``dock`` (``docks_table``: the window's ``DOCKS`` rows)."""
    for name, opened in OPENS.items():
        if dock in opened:
            return name
    tab_with = {row[0]: row[2] for row in docks_table}.get(dock)
    return workspace_of(tab_with, docks_table) if tab_with else ANALYSE


def side_of(dock: str, docks_table) -> Qt.DockWidgetArea:
    area = {row[0]: row[1] for row in docks_table}.get(dock, LEFT)
    return RIGHT if area == RIGHT else LEFT


def members(workspace: str, docks_table) -> list[str]:
    """The docks ``workspace`` opens, those :data:`OPENS` names first, in its order."""
    named = [d for d in OPENS[workspace] if any(row[0] == d for row in docks_table)]
    others = [
        row[0]
        for row in docks_table
        if row[0] not in named and workspace_of(row[0], docks_table) == workspace
    ]
    return named + others


def side_widths(size: QSize) -> tuple[int, int]:
    """(left, right) dock widths for a roomy window; a compact one's one side is the right."""
    w = size.width()
    if is_compact(size):
        # 320 px: the Algorithm panel's options whole, with no sideways scroll bar.
        return 0, sorted((320, int(0.28 * w), 380))[1]
    # With the tab bars on both edges (about 25 px each), the canvas keeps half of a 1400x900
    # first window and more of a bigger one.
    return sorted((270, int(0.19 * w), 400))[1], sorted((280, int(0.2 * w), 440))[1]


class Workspaces(QObject):
    """The window's workspaces: which is current, switching, resetting, keeping them.

    Signals
    -------
    changed(str) : the current workspace is now this one.
    """

    changed = Signal(str)

    def __init__(self, window, docks_table, settings):
        super().__init__(window)
        self.window = window
        self.table = docks_table
        self.settings = settings
        current = settings.value("workspaces/current", LEARN)
        self.current = current if current in NAMES else LEARN

    # ------------------------------------------------------------------ defaults
    def arrange(self, name: str | None = None, size: QSize | None = None) -> None:
        """Put the docks as workspace ``name`` (default: the current) starts: its docks open on
        their sides (one side on a compact window), tabbed, the others closed. ``size``: the
        window's size when shown, if not its size now (a window to be shown maximized)."""
        name = name or self.current
        w = self.window
        compact = is_compact(size or w.size())
        shown = members(name, self.table)
        for dock_name, dock in w.docks.items():
            if dock_name not in shown:
                dock.hide()
        groups = {LEFT: [], RIGHT: []}
        for dock_name in shown:
            groups[RIGHT if compact else side_of(dock_name, self.table)].append(dock_name)
        for area, names in groups.items():
            self._group(area, names)
        self.size_docks()
        if w.isVisible():  # docks moved now get their sizes once the window lays them out
            QTimer.singleShot(0, w, self.size_docks)

    def _group(self, area: Qt.DockWidgetArea, names: list[str]) -> None:
        w = self.window
        if not names:
            return
        first = w.docks[names[0]]
        for k, dock_name in enumerate(names):
            dock = w.docks[dock_name]
            dock.setFloating(False)
            w.addDockWidget(area, dock)
            if k:
                w.tabifyDockWidget(first, dock)
            dock.show()
        first.raise_()

    def size_docks(self) -> None:
        """Give the open docks on each side their share of the window's width."""
        w = self.window
        left, right = side_widths(w.size())
        docks, widths = [], []
        for area, width in ((LEFT, left), (RIGHT, right)):
            dock = next(
                (
                    d
                    for d in w.docks.values()
                    if not d.isHidden() and not d.isFloating() and w.dockWidgetArea(d) == area
                ),
                None,
            )
            if dock is not None and width:
                docks.append(dock)
                widths.append(width)
        if docks:
            w.resizeDocks(docks, widths, Qt.Orientation.Horizontal)

    def place_new(self, known: list[str]) -> None:
        """Docks a saved arrangement has never seen: open in the current workspace if it opens
        them (beside a dock open on their side), closed otherwise."""
        w = self.window
        compact = is_compact(w.size())
        shown = members(self.current, self.table)
        for dock_name, dock in w.docks.items():
            if dock_name in known:
                continue
            if dock_name not in shown:
                dock.hide()
                continue
            area = RIGHT if compact else side_of(dock_name, self.table)
            beside = next(
                (
                    d
                    for d in w.docks.values()
                    if d is not dock and not d.isHidden() and w.dockWidgetArea(d) == area
                ),
                None,
            )
            w.addDockWidget(area, dock)
            if beside is not None:
                w.tabifyDockWidget(beside, dock)
            dock.show()

    # ------------------------------------------------------------------ switching
    def switch(self, name: str) -> None:
        """Leave the current workspace (its arrangement kept) for ``name``'s."""
        if name not in NAMES:
            raise ValueError(f"no workspace {name!r}")
        if name == self.current:
            return
        self.keep()
        self.current = name
        self.settings.setValue("workspaces/current", name)
        if not self._bring_back(name):
            self.arrange(name)
        self.changed.emit(name)

    def reset(self) -> None:
        """The current workspace as it starts, its kept arrangement forgotten."""
        self.settings.remove(f"workspaces/{self.current}")
        self.arrange()
        self.changed.emit(self.current)

    def keep(self) -> None:
        """Keep the current workspace's arrangement in the settings."""
        self.settings.setValue(f"workspaces/{self.current}/state", self.window.saveState())
        self.settings.setValue(f"workspaces/{self.current}/docks", ",".join(self.window.docks))

    def _bring_back(self, name: str) -> bool:
        state = self.settings.value(f"workspaces/{name}/state")
        if not isinstance(state, QByteArray) or not self.window.restoreState(state):
            return False
        known = str(self.settings.value(f"workspaces/{name}/docks", "") or "").split(",")
        self.place_new(known)
        return True

    def restored(self) -> None:
        """The window's saved state was restored at start: place docks it has never seen."""
        known = str(self.settings.value(f"workspaces/{self.current}/docks", "") or "")
        if known:
            self.place_new(known.split(","))
