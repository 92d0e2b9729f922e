"""Whether the window can open here, asked before Qt is loaded: Qt aborts the process (exit 134,
with messages about plugins) when it finds no display, which tells a user nothing useful."""

from __future__ import annotations

import ctypes.util
import os
import re
import sys
from pathlib import Path


def display_problem(environ=None, platform: str | None = None) -> str | None:
    """One sentence saying why the window cannot open, or None when it should."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None  # Windows and macOS always have their own platform plugin
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith(("xcb", "wayland")):
        return None  # offscreen, vnc, eglfs...: the user chose it knowingly
    if chosen.startswith("wayland") or (not chosen and env.get("WAYLAND_DISPLAY")):
        return None
    display = env.get("DISPLAY", "")
    if not display:
        return "there is no display to open the window on (DISPLAY is not set)"
    local = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    if local and not Path(f"/tmp/.X11-unix/X{local.group(1)}").exists():
        return f"there is no X server on display {display}"
    if ctypes.util.find_library("xcb-cursor") is None:
        return "Qt needs the system library libxcb-cursor (package libxcb-cursor0) to open a window"
    return None
