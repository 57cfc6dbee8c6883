"""Expressions whose flags tests/test_layout.py compares with NumPy (one function each)."""

from __future__ import annotations

import numpy as np


def code(y):
    fl = y.flags
    return 1.0 * fl.c_contiguous + 2.0 * fl.f_contiguous + 4.0 * fl.writeable + \
        8.0 * fl.aligned + 16.0 * fl.fnc


def f_sort(x):
    y = np.sort(x)
    return np.sum(y * y) * (1.0 + code(y))


def f_cumsum0(x):
    y = np.cumsum(x, axis=0)
    return np.sum(y * y) * (1.0 + code(y))


def f_take(x):
    y = np.take(x, [0, 2], axis=1)
    return np.sum(y * y) * (1.0 + code(y))


def f_concat1(x):
    y = np.concatenate([x, x], axis=1)
    return np.sum(y * y) * (1.0 + code(y))


def f_stack(x):
    y = np.stack([x, x])
    return np.sum(y * y) * (1.0 + code(y))


def f_where(x):
    y = np.where(x > 0, x, 0.0)
    return np.sum(y * y) * (1.0 + code(y))


def f_maximum(x):
    y = np.maximum(x, 0.0)
    return np.sum(y * y) * (1.0 + code(y))


def f_clip(x):
    y = np.clip(x, -0.5, 0.5)
    return np.sum(y * y) * (1.0 + code(y))


def f_astype32(x):
    y = x.astype(np.float32)
    return np.sum(y * y) * (1.0 + code(y))


def f_transpose10(x):
    y = np.transpose(x, (1, 0))
    return np.sum(y * y) * (1.0 + code(y))


def f_reshape26(x):
    y = x.reshape(2, 6)
    return np.sum(y * y) * (1.0 + code(y))


def f_tile(x):
    y = np.tile(x, (1, 2))
    return np.sum(y * y) * (1.0 + code(y))


def f_repeat(x):
    y = np.repeat(x, 2, axis=0)
    return np.sum(y * y) * (1.0 + code(y))


def f_roll(x):
    y = np.roll(x, 1)
    return np.sum(y * y) * (1.0 + code(y))


def f_pad(x):
    y = np.pad(x, 1)
    return np.sum(y * y) * (1.0 + code(y))


def f_sum1(x):
    y = x.sum(axis=1)
    return np.sum(y * y) * (1.0 + code(y))


def f_mean0(x):
    y = x.mean(0)
    return np.sum(y * y) * (1.0 + code(y))


def f_expTT(x):
    y = np.exp(x.T).T
    return np.sum(y * y) * (1.0 + code(y))


def f_gram(x):
    y = x.T @ x
    return np.sum(y * y) * (1.0 + code(y))


def f_contigT(x):
    y = np.ascontiguousarray(x.T)
    return np.sum(y * y) * (1.0 + code(y))


def f_asarrayTC(x):
    y = np.asarray(x.T, order='C')
    return np.sum(y * y) * (1.0 + code(y))


def f_Tcopy(x):
    y = x.T.copy()
    return np.sum(y * y) * (1.0 + code(y))


def f_npcopyT(x):
    y = np.copy(x.T)
    return np.sum(y * y) * (1.0 + code(y))


def f_zlT(x):
    y = np.zeros_like(x.T)
    return np.sum(y * y) * (1.0 + code(y))


def f_Tastype(x):
    y = x.T.astype(np.float32)
    return np.sum(y * y) * (1.0 + code(y))


def f_mixT(x):
    y = np.exp(x.T) + x.T
    return np.sum(y * y) * (1.0 + code(y))


def f_Tscale(x):
    y = x.T * 2
    return np.sum(y * y) * (1.0 + code(y))


def f_mixed(x):
    y = x + np.ones((3, 4))
    return np.sum(y * y) * (1.0 + code(y))


def f_mixCF(x):
    y = x + np.asfortranarray(x)
    return np.sum(y * y) * (1.0 + code(y))


def f_ravelK(x):
    y = np.ravel(x, order='K')
    return np.sum(y * y) * (1.0 + code(y))


def f_ravelA(x):
    y = x.ravel('A')
    return np.sum(y * y) * (1.0 + code(y))


def f_copyA(x):
    y = x.copy(order='A')
    return np.sum(y * y) * (1.0 + code(y))


def f_copyK(x):
    y = x.copy(order='K')
    return np.sum(y * y) * (1.0 + code(y))


def f_asarrayF(x):
    y = np.asarray(x, order='F')
    return np.sum(y * y) * (1.0 + code(y))


def f_asarrayC(x):
    y = np.asarray(x, order='C')
    return np.sum(y * y) * (1.0 + code(y))


def f_fortranT(x):
    y = np.asfortranarray(x.T)
    return np.sum(y * y) * (1.0 + code(y))


def f_squeeze(x):
    y = np.squeeze(np.expand_dims(x, 1))
    return np.sum(y * y) * (1.0 + code(y))


def f_swap(x):
    y = np.swapaxes(x, 0, 1)
    return np.sum(y * y) * (1.0 + code(y))


def f_moveaxis(x):
    y = np.moveaxis(x, 0, 1)
    return np.sum(y * y) * (1.0 + code(y))


def f_triuT(x):
    y = np.triu(x.T)
    return np.sum(y * y) * (1.0 + code(y))


def f_outer(x):
    y = np.outer(x[0], x[1])
    return np.sum(y * y) * (1.0 + code(y))


def f_sumkeepT(x):
    y = np.sum(x.T, axis=0, keepdims=True)
    return np.sum(y * y) * (1.0 + code(y))


def f_where_ff(x):
    y = np.where(x.T > 0, x.T, x.T * 2)
    return np.sum(y * y) * (1.0 + code(y))


def f_abs_F(x):
    y = np.abs(np.asfortranarray(x))
    return np.sum(y * y) * (1.0 + code(y))


def f_array_f(x):
    y = np.array(x, order="F")
    return np.sum(y * y) * (1.0 + code(y))


def f_array_c_of_t(x):
    y = np.array(x.T, order="C", dtype=np.float64)
    return np.sum(y * y) * (1.0 + code(y))


def f_x(x):
    y = x
    return np.sum(y * y) * (1.0 + code(y))


def f_xT(x):
    y = x.T
    return np.sum(y * y) * (1.0 + code(y))


def f_flat(x):
    y = x.flatten()
    return np.sum(y * y) * (1.0 + code(y))


def f_flatF(x):
    y = x.flatten('F')
    return np.sum(y * y) * (1.0 + code(y))


def f_reshapeT(x):
    y = x.T.reshape(12)
    return np.sum(y * y) * (1.0 + code(y))


NAMES = [
    'array_f', 'array_c_of_t',
    'sort', 'cumsum0', 'take', 'concat1', 'stack', 'where', 'maximum', 'clip', 'astype32',
    'transpose10', 'reshape26', 'tile', 'repeat', 'roll', 'pad', 'sum1', 'mean0', 'expTT',
    'gram', 'contigT', 'asarrayTC', 'Tcopy', 'npcopyT', 'zlT', 'Tastype', 'mixT', 'Tscale',
    'mixed', 'mixCF', 'ravelK', 'ravelA', 'copyA', 'copyK', 'asarrayF', 'asarrayC', 'fortranT',
    'squeeze', 'swap', 'moveaxis', 'triuT', 'outer', 'sumkeepT', 'where_ff', 'abs_F', 'x',
    'xT', 'flat', 'flatF', 'reshapeT',
]
