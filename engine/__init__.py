"""Arbor's learning engine: data layer, ID3 / C4.5 / CART, pruning, evaluation, export.

Pure Python on numpy, pandas and networkx; never imports Qt.
"""
