"""The engine's boundaries: it never imports Qt (checked in a fresh interpreter, not hoped
for), and its modules import each other without cycles, lazy imports included."""

import ast

import networkx as nx

from tests.engine.conftest import engine_modules


def test_engine_loads_no_qt_and_no_gui(engine_imports):
    bad = [
        m
        for m in engine_imports["modules"]
        if m.split(".")[0] in ("PySide6", "pyqtgraph", "gui", "shiboken6")
    ]
    assert bad == []


def test_engine_modules_import_each_other_without_cycles():
    # Every import statement counts, also those inside functions: a lazy import only hides
    # a cycle from the interpreter, not from the reader.
    modules = engine_modules()
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
