"""The bundled sample datasets, loadable by name (``--sample weather``, the Samples menu).

They live in ``resources/datasets/`` as ARFF, so that each nominal attribute
keeps its declared value order (which decides ties); ``README.md`` there says
where each one comes from.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path

from engine.data.arff import read_arff
from engine.data.table import Table
from engine.errors import ArborError

#: sample name -> file in resources/datasets, in the order menus list them
SAMPLES = {
    "weather": "weather.arff",
    "weather-numeric": "weather-numeric.arff",
    "restaurant": "restaurant.arff",
    "toys": "toys.arff",
    "contact-lenses": "contact-lenses.arff",
    "iris": "iris.arff",
}


def sample_names() -> list[str]:
    """The names :func:`load_sample` accepts.

    >>> sample_names()[:2]
    ['weather', 'weather-numeric']
    """
    return list(SAMPLES)


def sample_path(name: str) -> Path:
    """The file of sample ``name`` (the package is installed as plain files, never zipped).

    >>> sample_path("iris").name
    'iris.arff'
    """
    if name not in SAMPLES:
        raise ArborError(f"unknown sample {name!r}; the samples are {', '.join(SAMPLES)}")
    return Path(str(resources.files("resources").joinpath("datasets", SAMPLES[name])))


def load_sample(name: str) -> Table:
    """Load a bundled dataset; its target is its last attribute.

    >>> table = load_sample("weather")
    >>> table.frame.shape, table.target
    ((14, 5), 'play')
    """
    table = _parsed(sample_path(name))
    # Each caller gets its own frame to change; the parse is shared.
    return replace(table, frame=table.frame.copy())


@cache
def _parsed(path: Path) -> Table:
    """The bundled files never change while Arbor runs: each is parsed once (3 ms, against
    a copy's 0.02 ms; the window's Samples menu and the tests load the same few again and
    again)."""
    return read_arff(path)
