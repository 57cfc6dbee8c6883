"""Running this file would exit the process: the CLI must only parse it."""

import numpy as np

raise SystemExit("side_effects.py was executed")


def f(x):
    return np.sum(x * x)
