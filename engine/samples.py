"""The bundled sample datasets, loadable by name (``--sample weather``, the Samples menu)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from engine.errors import ArborError
from engine.table import Table

SAMPLES = {
    "weather": "weather.arff",
    "weather-numeric": "weather-numeric.arff",
    "restaurant": "restaurant.arff",
    "toys": "toys.arff",
    "contact-lenses": "contact-lenses.arff",
    "iris": "iris.arff",
}


def sample_names() -> list[str]:
    return list(SAMPLES)


def sample_path(name: str) -> Path:
    if name not in SAMPLES:
        raise ArborError(f"unknown sample {name!r}; the samples are {', '.join(SAMPLES)}")
    return Path(str(resources.files("resources") / "datasets" / SAMPLES[name]))


def load_sample(name: str) -> Table:
    """Load a bundled dataset.

    Examples
    --------
    >>> load_sample("weather").target
    'play'
    """
    from engine.arff import read_arff

    return read_arff(sample_path(name))
