"""The presentation's class colours stay apart for colour-blind viewers (issue 38).

Each colour is passed through the simulations of Machado, Oliveira and Fernandes (2009) at
severity 1 (protanopia and deuteranopia: matrices on linear RGB), then taken to CIELAB (D65);
every pair of the first eight must stay at least :data:`MIN_DELTA_E` apart (CIE76), as seen
with normal vision and with each deficiency.
"""

import itertools

import numpy as np
import pytest

from gui.drawing import palette

#: Machado et al. 2009, severity 1.0, on linear RGB.
PROTANOPIA = np.array(
    [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ]
)
DEUTERANOPIA = np.array(
    [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ]
)
#: A difference seen at a glance across a room (2.3 is the least a person notices).
MIN_DELTA_E = 15.0
#: sRGB to XYZ (D65), and D65's white.
TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
WHITE = np.array([0.95047, 1.0, 1.08883])


def linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def lab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = np.clip(linear_rgb, 0, 1) @ TO_XYZ.T / WHITE
    e = 6 / 29
    f = np.where(xyz > e**3, np.cbrt(xyz), xyz / (3 * e**2) + 4 / 29)
    return np.stack(
        [116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1
    )


def rgb(hexes) -> np.ndarray:
    return np.array([[int(h[i : i + 2], 16) / 255 for i in (1, 3, 5)] for h in hexes])


def closest_pair(hexes, simulation=None) -> tuple[float, str, str]:
    seen = linear(rgb(hexes))
    if simulation is not None:
        seen = seen @ simulation.T
    points = lab(seen)
    return min(
        (float(np.linalg.norm(points[i] - points[j])), hexes[i], hexes[j])
        for i, j in itertools.combinations(range(len(hexes)), 2)
    )


def test_the_simulations_and_the_colour_space_give_known_values():
    # White stays white under both (rows sum to 1), and sRGB's white is L* 100.
    for matrix in (PROTANOPIA, DEUTERANOPIA):
        np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(lab(linear(rgb(["#FFFFFF"]))), [[100, 0, 0]], atol=0.05)
    # Pure red as a protanope sees it is a dark olive: most of its light is lost.
    red = lab(linear(rgb(["#FF0000"])) @ PROTANOPIA.T)[0]
    assert red[0] < 45 and red[2] > 30
    # Red and green, far apart for most, end close together for a deuteranope.
    assert closest_pair(["#D62728", "#2CA02C"])[0] > 60
    assert closest_pair(["#D62728", "#2CA02C"], DEUTERANOPIA)[0] < 15


@pytest.mark.parametrize(
    "simulation", [None, PROTANOPIA, DEUTERANOPIA], ids=["normal", "protanopia", "deuteranopia"]
)
def test_the_projector_class_colours_stay_apart(simulation):
    colours = palette.PROJECTOR.classes[:8]
    distance, a, b = closest_pair(colours, simulation)
    assert distance >= MIN_DELTA_E, (a, b, distance)


def test_the_projector_colours_read_on_white():
    # The text and borders are black; every class colour is darker than a pale tint (L* < 80),
    # where the window's palette has a yellow (L* 89) that washes out on a projector.
    assert palette.PROJECTOR.text == palette.PROJECTOR.node_border == "#000000"
    lightness = lab(linear(rgb(palette.PROJECTOR.classes[:8])))[:, 0]
    assert lightness.max() < 80, lightness
    assert lab(linear(rgb(["#F0E442"])))[0, 0] > 85
