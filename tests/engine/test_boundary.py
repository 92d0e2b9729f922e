"""The engine never imports Qt: checked in a fresh interpreter, not hoped for."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_loads_no_qt_and_no_gui():
    modules = sorted(p.stem for p in (ROOT / "engine").glob("*.py") if p.stem != "__init__")
    modules += sorted(f"export.{p.stem}" for p in (ROOT / "engine" / "export").glob("*.py")
                      if p.stem != "__init__")
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module('engine.' + m)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'gui', 'shiboken6')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""
