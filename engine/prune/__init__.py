"""Pruning: functions that take a tree (and its training data) and return a new tree."""
