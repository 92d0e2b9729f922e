"""Text cells that a spreadsheet shows as text and never runs as a formula.

Category values and column names come from whoever made the data file, so a value may be
``=cmd|' /C calc'!A0`` or ``=1+1``. Every writer of a file a spreadsheet opens applies one
rule, kept here:

* XLSX: a text cell is stored with the string data type, whatever it begins with, so
  ``=1+1`` is text (never a formula) and ``#N/A`` is text (never an error value), and a
  reader gets back exactly what was written (:func:`text_cells_as_text`).
* CSV and TSV meant for a spreadsheet (predictions): a text cell beginning with ``=``,
  ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``, which spreadsheets
  take as "this is text" (:func:`guard_formula`, :func:`guarded_frame`). Numbers are not
  text and are left alone, and so is text that is a plain number (``-1.5``): a spreadsheet
  reads it as that number, not as a formula, and Arbor reads it back unchanged.
"""

from __future__ import annotations

import re

import pandas as pd

#: What a spreadsheet takes as the start of a formula (tab and carriage return: some
#: spreadsheets strip them and then see the ``=`` behind).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def needs_guard(text: str) -> bool:
    """Whether a spreadsheet could run ``text`` as a formula.

    >>> needs_guard("=1+1"), needs_guard("@SUM(A1)"), needs_guard("-1.5"), needs_guard("sunny")
    (True, True, False, False)
    """
    return text.startswith(FORMULA_STARTS) and _NUMBER.fullmatch(text) is None


def guard_formula(value):
    """``value`` with a leading ``'`` when it is text a spreadsheet could run; anything else
    (numbers, missing values, harmless text) unchanged.

    >>> guard_formula("=cmd|' /C calc'!A0"), guard_formula(-1.5), guard_formula("rain")
    ("'=cmd|' /C calc'!A0", -1.5, 'rain')
    """
    if isinstance(value, str) and needs_guard(value):
        return "'" + value
    return value


def guarded_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with :func:`guard_formula` applied to its column names and text cells;
    numeric columns are not touched. The frame given is not changed.

    >>> frame = pd.DataFrame({"=a": ["=1+1", "x"], "n": [-1.5, 2.0]})
    >>> out = guarded_frame(frame)
    >>> list(out.columns), out["'=a"].tolist(), out["n"].tolist()
    (["'=a", 'n'], ["'=1+1", 'x'], [-1.5, 2.0])
    """
    changed = {}
    for name, column in frame.items():
        if isinstance(column.dtype, pd.CategoricalDtype):
            categories = list(column.cat.categories)
            guarded = [guard_formula(c) for c in categories]
            if guarded == categories:
                continue
            if len(set(guarded)) == len(guarded):
                changed[name] = column.cat.rename_categories(guarded)
            else:  # "=a" and "'=a" both present: they become one text, so no categories
                changed[name] = column.astype(object).map(guard_formula)
        elif column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
            changed[name] = column.map(guard_formula)
    out = frame.copy()
    for name, column in changed.items():
        out[name] = column
    out.columns = [guard_formula(n) for n in frame.columns]
    return out


def text_cells_as_text(sheet) -> None:
    """Store every text cell of an openpyxl worksheet as text: openpyxl makes a string that
    begins with ``=`` a formula, and one such as ``#N/A`` an error value, both of which a
    reader gets back as missing."""
    for row in sheet.iter_rows():
        for cell in row:
            if isinstance(cell.value, str):
                cell.data_type = "s"
