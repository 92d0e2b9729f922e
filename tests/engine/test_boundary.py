"""The engine's boundaries: it never imports Qt (checked in a fresh interpreter, not hoped
for), and its modules import each other without cycles, lazy imports included."""

import re

import networkx as nx
import pytest

from tests.engine.conftest import engine_modules, import_the_engine


def _qt_or_gui(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "gui", "shiboken6")]


def test_engine_loads_no_qt_and_no_gui(engine_imports):
    """Every engine module, in a fresh interpreter with scikit-learn blocked: the adapters
    (engine.sklearn) as far as their import of scikit-learn, the rest whole."""
    assert _qt_or_gui(engine_imports["modules"]) == []


@pytest.mark.slow
def test_the_adapters_with_scikit_learn_load_no_qt_and_no_gui():
    """As above, the adapters then imported with scikit-learn. Slow (1 s of CPU more than the
    quick test above, most of it scipy, which scikit-learn imports); all it adds is what
    scikit-learn itself imports, since every engine module is in the quick test: run with
    -m slow."""
    imported = import_the_engine(with_sklearn=True)
    assert "engine.sklearn" in imported["modules"]
    assert _qt_or_gui(imported["modules"]) == []


#: Every import statement, indented (inside a function) or not: ``from engine.x import (a,
#: b)`` over several lines, and ``import engine.x as y, engine.z``. Read as text, not parsed
#: (parsing every engine module cost half a second); an import quoted in a docstring at the
#: start of a line would count too, which can only add an edge, never hide one.
FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(engine[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|.*)", re.M)
PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+(.*)", re.M)


def imported(source: str) -> set[str]:
    """The dotted names an engine module's source imports (modules, or names in them)."""
    names = set()
    for module, what in FROM_IMPORT.findall(source):
        names.add(module)
        for item in re.sub(r"#.*", "", what).strip("()").replace("\n", ",").split(","):
            if item.split():
                names.add(f"{module}.{item.split()[0]}")
    for what in PLAIN_IMPORT.findall(source):
        names.update(
            item.split()[0] for item in re.sub(r"#.*", "", what).split(",") if item.split()
        )
    return names


def test_engine_modules_import_each_other_without_cycles():
    # Every import statement counts, also those inside functions: a lazy import only hides
    # a cycle from the interpreter, not from the reader.
    modules = engine_modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for target in imported(path.read_text()):
            if target in modules and target != "engine" and target != name:
                graph.add_edge(name, target)
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles: {cycles[:5]}"


def test_imports_are_read_as_the_interpreter_reads_them():
    """Every form of import the engine writes, lazy ones included. (Checked once against
    parsing every engine module with ast: the same names, module for module.)"""
    source = (
        "from engine.data.table import Table, make_table  # two\n"
        "from engine.fast import (\n"
        "    builder,  # noqa: E402\n"
        "    histogram as hist,\n"
        ")\n"
        "import engine.tree as tree, numpy\n"
        "def later():\n"
        "    from engine.prune.pessimistic import prune_tree\n"
        "    import engine.growth\n"
    )
    assert imported(source) == {
        "engine.data.table",
        "engine.data.table.Table",
        "engine.data.table.make_table",
        "engine.fast",
        "engine.fast.builder",
        "engine.fast.histogram",
        "engine.tree",
        "numpy",
        "engine.prune.pessimistic",
        "engine.prune.pessimistic.prune_tree",
        "engine.growth",
    }
