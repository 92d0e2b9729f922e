"""The engine's boundaries: it never imports Qt (checked in a fresh interpreter, not hoped
for), and its modules import each other without cycles, lazy imports included."""

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]


def _engine_modules() -> dict[str, Path]:
    out = {}
    for path in (ROOT / "engine").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def test_engine_loads_no_qt_and_no_gui():
    modules = sorted(_engine_modules())
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'gui', 'shiboken6')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_engine_modules_import_each_other_without_cycles():
    # Every import statement counts, also those inside functions: a lazy import only hides
    # a cycle from the interpreter, not from the reader.
    modules = _engine_modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("engine")
            ):
                targets = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                if target in modules and target != "engine" and target != name:
                    graph.add_edge(name, target)
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles: {cycles[:5]}"
