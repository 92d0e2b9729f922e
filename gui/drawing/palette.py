"""Colours: one consistent, colour-blind-friendly colour per class index, in three palettes.

:data:`LIGHT` is the canvas's and every export's; :data:`DARK` the canvas's on a dark
desktop; :data:`PROJECTOR` the presentation's, with strong borders and class colours picked
to stay apart under deuteranopia and protanopia (``tests/gui/drawing/test_palette_vision.py``
checks them on simulations).

Which palette paints is a context variable: the window sets it for the GUI thread
(:func:`use`), an export paints inside :func:`using` with its own (light unless asked), and
any other thread (a layout worker, the command line's ``--image``) starts with the default,
:data:`LIGHT`. The role names below (``palette.TEXT``, ``palette.NODE_FILL``, ...) read the
palette in force when they are looked up, so painting code names a role, not a colour.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from PySide6.QtGui import QColor

from engine.export import colours as engine_colours

# Okabe-Ito, then a few more distinct hues for many-class targets: the light palette's, kept
# as plain hex in the engine, whose Qt-free exports (the interactive page, the notebook SVG)
# colour classes the same.
CLASS_COLOURS = list(engine_colours.CLASS_COLOURS)

#: For a projector: eight kept apart under deuteranopia and protanopia first (Okabe-Ito's
#: hues without its yellow, which washes out on white, then black and wine), then more.
PROJECTOR_COLOURS = [
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#000000",
    "#882255",
    "#44AA99",
    "#117733",
    "#332288",
    "#B8A800",
]


@dataclass(frozen=True)
class Colours:
    """Every colour a tree, its canvas and its plots are drawn with (``#RRGGBB`` strings)."""

    name: str
    classes: tuple[str, ...]
    regression: str
    node_fill: str
    node_border: str
    selected: str
    highlight: str
    edge: str
    text: str
    muted: str
    background: str  # the canvas's and a plot's
    legend_background: str  # with alpha: the legend over the canvas
    faint: str  # what pruning cut, drawn faintly
    paper: str  # an exported picture's background
    empty_bar: str  # the bar of a node with no class weight to share out
    border_px: float = 1.2

    def colour(self, role: str) -> QColor:
        return QColor(getattr(self, role))

    def class_colour(self, index: int) -> QColor:
        if index < len(self.classes):
            return QColor(self.classes[index])
        return QColor.fromHsv((index * 47) % 360, 150, 200)


LIGHT = Colours(
    "light",
    tuple(CLASS_COLOURS),
    regression="#5B8DB8",
    node_fill="#FFFFFF",
    node_border="#5F6B7A",
    selected="#D55E00",
    highlight="#FFE08A",
    edge="#8A94A3",
    text="#1E2430",
    muted="#6B7280",
    background="#F7F8FA",
    legend_background="rgba(255,255,255,225)",
    faint="#B0B6BF",
    paper="#FFFFFF",
    empty_bar="#E5E7EB",
)
DARK = Colours(
    "dark",
    tuple(CLASS_COLOURS),
    regression="#6FA3D0",
    node_fill="#262B33",
    node_border="#8C97A6",
    selected="#FF8A3D",
    highlight="#6B5A1E",
    edge="#7C8696",
    text="#E6E9EE",
    muted="#A3ADBB",
    background="#16191E",
    legend_background="rgba(38,43,51,230)",
    faint="#5A6270",
    paper="#16191E",
    empty_bar="#3A414C",
)
#: High contrast for a projector: black on white, heavy borders and edges.
PROJECTOR = Colours(
    "projector",
    tuple(PROJECTOR_COLOURS),
    regression="#0072B2",
    node_fill="#FFFFFF",
    node_border="#000000",
    selected="#D55E00",
    highlight="#FFE08A",
    edge="#30343A",
    text="#000000",
    muted="#30343A",
    background="#FFFFFF",
    legend_background="rgba(255,255,255,240)",
    faint="#8A8F98",
    paper="#FFFFFF",
    empty_bar="#E5E7EB",
    border_px=2.0,
)
PALETTES = {p.name: p for p in (LIGHT, DARK, PROJECTOR)}

_current: ContextVar[Colours] = ContextVar("arbor_colours", default=LIGHT)


def current() -> Colours:
    """The palette painting in this thread now."""
    return _current.get()


def use(colours: Colours) -> None:
    """Paint with ``colours`` in this thread from now on (the window's theme, on its thread)."""
    _current.set(colours)


@contextmanager
def using(colours: Colours) -> Iterator[Colours]:
    """Paint with ``colours`` inside the block (an export's palette), then as before."""
    token = _current.set(colours)
    try:
        yield colours
    finally:
        _current.reset(token)


def class_colour(index: int) -> QColor:
    return current().class_colour(index)


#: The module's role names (``palette.TEXT``) and the palette field each one reads.
_ROLES = {
    "REGRESSION": "regression",
    "NODE_FILL": "node_fill",
    "NODE_BORDER": "node_border",
    "SELECTED": "selected",
    "HIGHLIGHT": "highlight",
    "EDGE": "edge",
    "TEXT": "text",
    "MUTED": "muted",
}


def __getattr__(name: str) -> QColor:
    # Looked up at paint time, so the palette in force paints (a name imported with
    # ``from palette import TEXT`` is fixed at import: the light one).
    if name in _ROLES:
        return current().colour(_ROLES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
