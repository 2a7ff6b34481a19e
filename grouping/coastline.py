"""Earth's real land mask on POP's 0.1° grid, for the CGPOP pattern.

The mask is the GLOBE 1-km land mask shipped inside the PyPI package
``global-land-mask`` (30 arc-seconds, 43200 × 21600; most lakes count as land); no
download at run time.

The grid. POP's 0.1° configuration has 3600 × 2400 points: 0.1° in longitude, and in
latitude a Mercator spacing (0.1°·cos φ, square cells) from 78.5° S — the Antarctic
margin — upward. 2400 such rows reach 72.9° N. POP then continues over the Arctic on a
displaced-pole grid whose north pole sits on land (Greenland); we do not build that
grid: rows stay Mercator up to 72.9° N and the Arctic Ocean north of it is left out.
Each point is the mask's value at the point's centre.
"""
from __future__ import annotations

import math

import numpy as np

SOUTH = -78.5  # degrees: POP's southernmost row, at the Antarctic margin


def mercator_latitudes(rows: int, dlon: float = 0.1, south: float = SOUTH) -> np.ndarray:
    """The centres of ``rows`` Mercator rows of square cells dlon wide, from ``south`` up."""
    y0 = math.log(math.tan(math.pi / 4 + math.radians(south) / 2))
    y = y0 + (np.arange(rows) + 0.5) * math.radians(dlon)
    return np.degrees(2 * np.arctan(np.exp(y)) - math.pi / 2)


def ocean_points(nlon: int = 3600, nlat: int = 2400) -> np.ndarray:
    """Ocean (True) at each point of the nlon × nlat grid; index [x, y] with x eastward
    from 180° W and y northward from 78.5° S."""
    try:
        from global_land_mask import globe
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise ImportError("the cgpop pattern needs global-land-mask: pip install global-land-mask") from e
    dlon = 360.0 / nlon
    lon = -180.0 + (np.arange(nlon) + 0.5) * dlon
    lat = mercator_latitudes(nlat, dlon)
    return globe.is_ocean(lat[None, :], lon[:, None])
