"""Arbor's learning engine: data layer, ID3 / C4.5 / CART, pruning, evaluation, export.

Pure Python on numpy, pandas and networkx; never imports Qt.

>>> from engine import DecisionTree, load_sample
>>> DecisionTree(algorithm="c45").fit(load_sample("weather")).tree_.n_leaves
5
"""

from engine.data.io import read_table, write_table
from engine.data.samples import load_sample, sample_names
from engine.data.table import Table, make_table
from engine.errors import ArborError, Cancelled
from engine.estimator import DecisionTree
from engine.monitor import Monitor
from engine.tree import Node, Split, Tree

__all__ = ["ArborError", "Cancelled", "DecisionTree", "Monitor", "Node", "Split", "Table", "Tree",
           "load_sample", "make_table", "read_table", "sample_names", "write_table"]
