"""scikit-learn losses, metrics, kernels and numerical helpers, imported and called from
small user wrappers."""

from __future__ import annotations

import numpy as np
from sklearn import metrics
from sklearn.gaussian_process import kernels as gpk
from sklearn.metrics import pairwise
from sklearn.neural_network import _base as nn_base
from sklearn.utils import extmath

from .entry import Registry

REG = Registry("sklearn")
entry = REG.entry

Y_TRUE = np.array([1.0, 0.5, -0.3, 2.0, 1.2])
Y_PRED = np.array([0.8, 0.7, -0.1, 1.6, 1.0])
POS_TRUE = np.array([1.0, 0.5, 0.3, 2.0, 1.2])
POS_PRED = np.array([0.8, 0.7, 0.4, 1.6, 1.0])
LABELS = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
PROBS = np.array([0.2, 0.7, 0.6, 0.4, 0.9])
X43 = np.array([[0.3, -1.2, 0.8], [2.1, -0.4, 0.5], [0.0, 0.9, -0.7], [1.1, 0.2, 0.6]])
Z23 = np.array([[0.5, 0.1, -0.3], [-0.2, 0.8, 0.4]])
LOGITS = np.array([[0.3, -1.2, 0.8], [2.1, -0.4, 0.5]])
ONEHOT = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])


# --- sklearn.metrics regression and classification losses ---------------------------
@entry(Y_PRED)
def mse_loss(y_pred):
    return metrics.mean_squared_error(Y_TRUE, y_pred)


@entry(Y_PRED, np.array([1.0, 2.0, 0.5, 1.0, 1.5]), wrt=(0, 1))
def weighted_mse_loss(y_pred, w):
    return metrics.mean_squared_error(Y_TRUE, y_pred, sample_weight=w)


@entry(Y_PRED)
def rmse_loss(y_pred):
    return metrics.root_mean_squared_error(Y_TRUE, y_pred)


@entry(Y_PRED)
def mae_loss(y_pred):
    return metrics.mean_absolute_error(Y_TRUE, y_pred)


@entry(Y_PRED)
def r2_loss(y_pred):
    return -metrics.r2_score(Y_TRUE, y_pred)


@entry(Y_PRED)
def explained_variance_loss(y_pred):
    return -metrics.explained_variance_score(Y_TRUE, y_pred)


@entry(Y_PRED)
def pinball_loss(y_pred):
    return metrics.mean_pinball_loss(Y_TRUE, y_pred, alpha=0.3)


@entry(POS_PRED)
def msle_loss(y_pred):
    return metrics.mean_squared_log_error(POS_TRUE, y_pred)


@entry(POS_PRED)
def mape_loss(y_pred):
    return metrics.mean_absolute_percentage_error(POS_TRUE, y_pred)


@entry(POS_PRED)
def poisson_deviance_loss(y_pred):
    return metrics.mean_poisson_deviance(POS_TRUE, y_pred)


@entry(POS_PRED)
def gamma_deviance_loss(y_pred):
    return metrics.mean_gamma_deviance(POS_TRUE, y_pred)


@entry(POS_PRED)
def tweedie_deviance_loss(y_pred):
    return metrics.mean_tweedie_deviance(POS_TRUE, y_pred, power=1.5)


@entry(PROBS)
def sk_log_loss(p):
    return metrics.log_loss(LABELS, p)


@entry(PROBS)
def brier_loss(p):
    return metrics.brier_score_loss(LABELS, p)


@entry(Y_PRED)
def hinge_metric_loss(decision):
    return metrics.hinge_loss(np.array([1, -1, -1, 1, 1]), decision)


# --- sklearn.metrics.pairwise kernels and distances -----------------------------------
@entry(X43, Z23, wrt=(0, 1))
def rbf_kernel_loss(x, z):
    return np.sum(pairwise.rbf_kernel(x, z, gamma=0.5))


@entry(X43, Z23, wrt=(0, 1))
def linear_kernel_loss(x, z):
    return np.sum(pairwise.linear_kernel(x, z) ** 2)


@entry(X43, Z23, wrt=(0, 1))
def polynomial_kernel_loss(x, z):
    return np.sum(pairwise.polynomial_kernel(x, z, degree=2))


@entry(X43, Z23, wrt=(0, 1))
def sigmoid_kernel_loss(x, z):
    return np.sum(pairwise.sigmoid_kernel(x, z))


@entry(X43, Z23, wrt=(0, 1))
def laplacian_kernel_loss(x, z):
    return np.sum(pairwise.laplacian_kernel(x, z))


@entry(X43, Z23, wrt=(0, 1))
def cosine_similarity_loss(x, z):
    return np.sum(pairwise.cosine_similarity(x, z))


@entry(X43, Z23, wrt=(0, 1))
def euclidean_distances_loss(x, z):
    return np.sum(pairwise.euclidean_distances(x, z))


@entry(X43, Z23, wrt=(0, 1))
def manhattan_distances_loss(x, z):
    return np.sum(pairwise.manhattan_distances(x, z))


@entry(X43, X43[::-1].copy(), wrt=(0, 1))
def paired_euclidean_loss(x, z):
    return np.sum(pairwise.paired_euclidean_distances(x, z))


@entry(np.abs(X43), np.abs(Z23) + 0.1, wrt=(0, 1))
def chi2_kernel_loss(x, z):
    return np.sum(pairwise.chi2_kernel(x, z))


# --- sklearn.utils.extmath -------------------------------------------------------------
@entry(X43)
def squared_norm_loss(x):
    return extmath.squared_norm(x)


@entry(X43)
def row_norms_loss(x):
    return np.sum(extmath.row_norms(x, squared=True))


@entry(X43, Z23, wrt=(0, 1))
def safe_sparse_dot_loss(x, z):
    return np.sum(extmath.safe_sparse_dot(x, z.T) ** 2)


@entry(LOGITS)
def extmath_softmax_loss(x):
    return np.sum(extmath.softmax(x, copy=True) * ONEHOT)


@entry(np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]]))
def fast_logdet_loss(a):
    return extmath.fast_logdet(a)


@entry(Y_PRED)
def stable_cumsum_loss(x):
    return np.sum(extmath.stable_cumsum(x) ** 2)


@entry(Y_PRED)
def safe_sqr_loss(x):
    return np.sum(extmath.safe_sqr(x))


# --- sklearn.neural_network loss functions and activations --------------------------
@entry(Y_PRED.reshape(5, 1))
def nn_squared_loss(y_pred):
    return nn_base.squared_loss(Y_TRUE.reshape(5, 1), y_pred)


@entry(PROBS.reshape(5, 1))
def nn_binary_log_loss(p):
    return nn_base.binary_log_loss(LABELS.reshape(5, 1), p)


@entry(np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]))
def nn_log_loss(p):
    return nn_base.log_loss(ONEHOT, p)


@entry(POS_PRED.reshape(5, 1))
def nn_poisson_loss(y_pred):
    return nn_base.poisson_loss(POS_TRUE.reshape(5, 1), y_pred)


@entry(LOGITS)
def nn_inplace_tanh_loss(x):
    h = x.copy()
    nn_base.inplace_tanh(h)
    return np.sum(h ** 2)


@entry(LOGITS)
def nn_inplace_softmax_loss(x):
    h = x.copy()
    nn_base.inplace_softmax(h)
    return np.sum(h * ONEHOT)


@entry(LOGITS)
def nn_logistic_sigmoid_loss(x):
    return np.sum(nn_base.logistic_sigmoid(x))


# --- sklearn.gaussian_process kernels ----------------------------------------------------
@entry(X43)
def gp_rbf_kernel_loss(x):
    k = gpk.RBF(length_scale=1.3)
    return np.sum(k(x))


@entry(X43)
def gp_matern_kernel_loss(x):
    k = gpk.Matern(length_scale=0.9, nu=2.5)
    return np.sum(k(x))


@entry(X43)
def gp_rational_quadratic_loss(x):
    k = gpk.RationalQuadratic(length_scale=1.1, alpha=0.7)
    return np.sum(k(x))


_RBF = gpk.RBF(length_scale=1.3) + gpk.WhiteKernel(0.1)


@entry(X43)
def gp_sum_kernel_method_loss(x):
    return np.sum(_RBF(x, x[:2]))
