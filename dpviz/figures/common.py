"""Parameters shared by several pages."""

from dpviz.params import Param

SEED = Param("seed", "int", 0, "Random seed", "Seed of every random draw on this page; the same seed gives the same figures.", min=0, max=2**32 - 1)
