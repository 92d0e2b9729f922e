"""Exporters: thin public functions that read a :class:`engine.tree.Tree`, never change it."""
