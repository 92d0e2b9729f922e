"""Class colours as plain hex strings: one consistent, colour-blind-friendly colour per class
index, shared by the window (:mod:`gui.drawing.palette` wraps them in QColor) and by the
Qt-free exports (the interactive page, the notebook SVG)."""

from __future__ import annotations

# Okabe-Ito, then a few more distinct hues for many-class targets.
CLASS_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#999999",
    "#882255",
    "#44AA99",
    "#117733",
    "#332288",
)
REGRESSION = "#5B8DB8"
NODE_FILL = "#FFFFFF"
NODE_BORDER = "#5F6B7A"
SELECTED = "#D55E00"
HIGHLIGHT = "#FFE08A"
EDGE = "#8A94A3"
TEXT = "#1E2430"
MUTED = "#6B7280"
EMPTY_BAR = "#E5E7EB"


def class_hex(index: int) -> str:
    """Class ``index``'s colour; past the list, hues 47 degrees apart (saturation 150 and value
    200 of 255, as Qt's ``QColor.fromHsv`` spells them).

    >>> class_hex(0), class_hex(12), class_hex(13)
    ('#0072B2', '#5299c8', '#6852c8')
    """
    if index < len(CLASS_COLOURS):
        return CLASS_COLOURS[index]
    return _hsv((index * 47) % 360, 150, 200)


def _hsv(hue: int, sat: int, val: int) -> str:
    # Qt's integer conversion, so the window and the exports agree to the last digit.
    h = hue / 60.0
    s, v = sat / 255.0, val / 255.0
    sector = int(h) % 6
    f = h - int(h)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][sector]
    return "#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b))
