"""The engine's plain hex colours (what the interactive page and the notebook SVG draw with)
are the window's light palette, to the last digit."""

from __future__ import annotations

from engine.export import colours
from gui.drawing import palette


def test_the_exports_colour_as_the_light_palette():
    light = palette.LIGHT
    assert tuple(light.classes) == colours.CLASS_COLOURS
    for role in ("regression", "node_fill", "node_border", "selected", "highlight", "edge"):
        assert getattr(light, role).upper() == getattr(colours, role.upper()).upper(), role
    assert light.text.upper() == colours.TEXT and light.muted.upper() == colours.MUTED
    for k in range(40):  # past the list: the same hues from Qt's HSV and the engine's
        assert light.class_colour(k).name().upper() == colours.class_hex(k).upper()
