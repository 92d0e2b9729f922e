"""Arbor's learning engine: data layer, ID3 / C4.5 / CART, pruning, evaluation, export.

Pure Python on numpy, pandas and networkx; never imports Qt.

>>> from engine import DecisionTree, load_sample
>>> DecisionTree(algorithm="c45").fit(load_sample("weather")).tree_.n_leaves
5

The names below are imported when first used, not with the package: ``engine.settings``
or ``engine.errors`` (all ``python main.py --help`` needs) then cost no pandas.
"""

import importlib

#: Public name -> the module that defines it.
_HOMES = {
    "ArborError": "engine.errors",
    "Cancelled": "engine.errors",
    "DecisionTree": "engine.estimator",
    "Monitor": "engine.monitor",
    "Node": "engine.tree",
    "Split": "engine.tree",
    "Table": "engine.data.table",
    "Tree": "engine.tree",
    "load_sample": "engine.data.samples",
    "make_table": "engine.data.table",
    "plot": "engine.export.svg_tree",
    "read_table": "engine.data.io",
    "sample_names": "engine.data.samples",
    "write_table": "engine.data.io",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
