"""Light and dark themes (issue 38): the system's by default, or one the person chooses.

The theme sets the palette the canvas paints with (on the GUI thread, see
:mod:`gui.drawing.palette`), the plots' background and axes, and, when chosen rather than
followed, the widgets' own palette (when following the system, the platform's palette is
already the system's). Exports paint light whatever the theme, unless File > Export in the
dark theme is on: a picture goes on a white page more often than on a dark one.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from gui.drawing import palette

SYSTEM, LIGHT, DARK = "system", "light", "dark"
CHOICES = (SYSTEM, LIGHT, DARK)
SETTING = "view/theme"
EXPORT_DARK = "view/export_dark"


def system_is_dark() -> bool:
    """Whether the desktop asks for dark colours (its colour scheme, else its window colour)."""
    app = QGuiApplication.instance()
    if app is None:
        return False
    scheme = app.styleHints().colorScheme()
    if scheme != Qt.ColorScheme.Unknown:
        return scheme == Qt.ColorScheme.Dark
    return app.palette().color(QPalette.ColorRole.Window).lightness() < 128


def dark_widget_palette() -> QPalette:
    """The widgets' colours in the dark theme (Fusion's roles, dark)."""
    colours = palette.DARK
    p = QPalette()
    window, base, text = QColor("#20242B"), QColor(colours.node_fill), QColor(colours.text)
    for role, colour in (
        (QPalette.ColorRole.Window, window),
        (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base),
        (QPalette.ColorRole.AlternateBase, window),
        (QPalette.ColorRole.ToolTipBase, base),
        (QPalette.ColorRole.ToolTipText, text),
        (QPalette.ColorRole.Text, text),
        (QPalette.ColorRole.Button, QColor("#2C323B")),
        (QPalette.ColorRole.ButtonText, text),
        (QPalette.ColorRole.Highlight, QColor("#2F6FB0")),
        (QPalette.ColorRole.HighlightedText, QColor("#FFFFFF")),
        (QPalette.ColorRole.Link, QColor("#6FB3F2")),
        (QPalette.ColorRole.PlaceholderText, QColor(colours.muted)),
    ):
        p.setColor(role, colour)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6B7380"))
    return p


def theme_plots(root, colours: palette.Colours) -> None:
    """Every pyqtgraph view under ``root`` on ``colours``' background, with its axes in its text."""
    dark = colours is palette.DARK
    for view in root.findChildren(pg.GraphicsView):
        view.setBackground(colours.background if dark else "w")
        for item in view.scene().items():
            if isinstance(item, pg.AxisItem):
                item.setPen(pg.mkPen(colours.muted))
                item.setTextPen(pg.mkPen(colours.text))


class Theme(QObject):
    """The window's theme: the choice (kept in the settings) and what it applies to.

    Signals
    -------
    changed(bool) : the theme is now dark (True) or light.
    """

    changed = Signal(bool)

    def __init__(self, window, settings):
        super().__init__(window)
        self.window = window
        self.settings = settings
        choice = settings.value(SETTING, SYSTEM)
        self.choice = choice if choice in CHOICES else SYSTEM
        self.dark = False
        self._set_widget_palette = False
        app = QGuiApplication.instance()
        if app is not None:
            app.styleHints().colorSchemeChanged.connect(self._on_system_changed)

    def colours(self) -> palette.Colours:
        return palette.DARK if self.dark else palette.LIGHT

    def exports_follow(self) -> bool:
        """Whether exports are drawn in the dark theme while it is on (File > Export in the dark theme)."""
        return self.settings.value(EXPORT_DARK, False) in (True, "true", "1", 1)

    def export_colours(self) -> palette.Colours:
        """What exports paint with: light, unless the dark theme is on and exports follow it."""
        return palette.DARK if self.dark and self.exports_follow() else palette.LIGHT

    def set_export_dark(self, on: bool) -> None:
        self.settings.setValue(EXPORT_DARK, bool(on))

    def choose(self, choice: str) -> None:
        if choice not in CHOICES:
            raise ValueError(f"no theme {choice!r}")
        self.choice = choice
        self.settings.setValue(SETTING, choice)
        self.apply()

    def apply(self) -> None:
        """Paint the window in the chosen theme (the presentation keeps its own palette)."""
        self.dark = self.choice == DARK or (self.choice == SYSTEM and system_is_dark())
        app = QApplication.instance()
        if self.choice == DARK:
            app.setPalette(dark_widget_palette())
            self._set_widget_palette = True
        elif self._set_widget_palette:  # back from a dark palette of ours: the style's own
            app.setPalette(app.style().standardPalette())
            self._set_widget_palette = False
        presenting = getattr(self.window, "presenter", None)
        unchanged = palette.current() is self.colours() and not self.dark
        if presenting is None or not presenting.active:
            palette.use(self.colours())
            if not unchanged:
                self.window.canvas.repaint_colours()
        if not unchanged:  # light on light (a new window's start): nothing to repaint
            self.refresh_plots()
        self.changed.emit(self.dark)

    def refresh_plots(self) -> None:
        theme_plots(self.window, self.colours())

    def _on_system_changed(self, *_) -> None:
        if self.choice == SYSTEM:
            self.apply()
