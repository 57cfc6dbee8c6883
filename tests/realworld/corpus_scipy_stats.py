"""SciPy special functions and distributions (log-densities, entropies, moments),
imported and called from small user wrappers."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .entry import Registry

REG = Registry("scipy")
entry = REG.entry

X5 = np.array([0.3, -1.2, 0.8, 2.1, -0.4])
P5 = np.array([0.1, 0.25, 0.3, 0.15, 0.2])
Q5 = np.array([0.2, 0.2, 0.2, 0.25, 0.15])
POS5 = np.array([0.4, 1.3, 2.2, 0.9, 3.1])
U5 = np.array([0.15, 0.4, 0.55, 0.7, 0.9])


# --- scipy.special: Python wrappers -------------------------------------------------
@entry(X5)
def special_logsumexp_loss(x):
    return special.logsumexp(x)


@entry(X5, P5, wrt=(0, 1))
def special_logsumexp_b_loss(x, b):
    return special.logsumexp(x, b=b)


@entry(np.array([[0.3, -1.2, 0.8], [2.1, -0.4, 0.0]]))
def special_logsumexp_axis_loss(x):
    return np.sum(special.logsumexp(x, axis=1))


@entry(X5)
def special_softmax_loss(x):
    return np.sum(special.softmax(x) * np.arange(5.0))


@entry(X5)
def special_log_softmax_loss(x):
    return -special.log_softmax(x)[2]


@entry(np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]]))
def special_multigammaln_loss(a):
    return special.multigammaln(np.sum(a ** 2) + 3.0, 2)


# --- scipy.special: ufuncs a user would differentiate ---------------------------------
@entry(X5)
def special_expit_loss(x):
    return np.sum(special.expit(x))


@entry(X5)
def special_log_expit_loss(x):
    return np.sum(special.log_expit(x))


@entry(U5)
def special_logit_loss(p):
    return np.sum(special.logit(p) ** 2)


@entry(POS5)
def special_gammaln_loss(x):
    return np.sum(special.gammaln(x))


@entry(POS5)
def special_digamma_loss(x):
    return np.sum(special.digamma(x))


@entry(POS5, POS5[::-1].copy(), wrt=(0, 1))
def special_betaln_loss(a, b):
    return np.sum(special.betaln(a, b))


@entry(X5)
def special_erf_loss(x):
    return np.sum(special.erf(x) * special.erfc(x))


@entry(X5)
def special_ndtr_loss(x):
    return np.sum(special.log_ndtr(x)) + np.sum(special.ndtr(x))


@entry(P5, POS5, wrt=(0, 1))
def special_xlogy_loss(p, y):
    return np.sum(special.xlogy(p, y))


@entry(P5)
def special_entr_loss(p):
    return np.sum(special.entr(p))


@entry(P5, Q5, wrt=(0, 1))
def special_rel_entr_loss(p, q):
    return np.sum(special.rel_entr(p, q))


@entry(P5, Q5, wrt=(0, 1))
def special_kl_div_loss(p, q):
    return np.sum(special.kl_div(p, q))


@entry(X5)
def special_huber_loss(r):
    return np.sum(special.huber(1.0, r))


@entry(X5)
def special_pseudo_huber_loss(r):
    return np.sum(special.pseudo_huber(0.5, r))


@entry(POS5, 0.3, wrt=(0, 1))
def special_boxcox_loss(x, lmbda):
    return np.sum(special.boxcox(x, lmbda))


@entry(POS5)
def special_gammainc_loss(x):
    return np.sum(special.gammainc(2.0, x))


# --- scipy.stats: distributions' log densities ---------------------------------------
@entry(X5, 0.2, 1.3, wrt=(0, 1, 2))
def norm_logpdf_loss(x, mu, sigma):
    return np.sum(stats.norm.logpdf(x, loc=mu, scale=sigma))


@entry(X5, 0.2, 1.3, wrt=(0, 1, 2))
def norm_logcdf_loss(x, mu, sigma):
    return np.sum(stats.norm.logcdf(x, loc=mu, scale=sigma))


@entry(X5, 4.0, wrt=(0, 1))
def t_logpdf_loss(x, df):
    return np.sum(stats.t.logpdf(x, df))


@entry(POS5, 2.5, 1.5, wrt=(0, 1, 2))
def gamma_logpdf_loss(x, a, scale):
    return np.sum(stats.gamma.logpdf(x, a, scale=scale))


@entry(U5, 2.0, 3.0, wrt=(0, 1, 2))
def beta_logpdf_loss(x, a, b):
    return np.sum(stats.beta.logpdf(x, a, b))


@entry(POS5, 0.7, wrt=(0, 1))
def expon_logpdf_loss(x, scale):
    return np.sum(stats.expon.logpdf(x, scale=scale))


@entry(X5, 0.1, 0.9, wrt=(0, 1, 2))
def laplace_logpdf_loss(x, mu, b):
    return np.sum(stats.laplace.logpdf(x, mu, b))


@entry(X5, 0.1, 0.9, wrt=(0, 1, 2))
def cauchy_logpdf_loss(x, mu, gamma):
    return np.sum(stats.cauchy.logpdf(x, mu, gamma))


@entry(X5, 0.1, 0.9, wrt=(0, 1, 2))
def logistic_logcdf_loss(x, mu, s):
    return np.sum(stats.logistic.logcdf(x, mu, s))


@entry(POS5, 0.6, wrt=(0, 1))
def lognorm_logpdf_loss(x, s):
    return np.sum(stats.lognorm.logpdf(x, s))


@entry(POS5, 1.7, wrt=(0, 1))
def weibull_min_logpdf_loss(x, c):
    return np.sum(stats.weibull_min.logpdf(x, c))


@entry(2.3)
def poisson_logpmf_loss(mu):
    return np.sum(stats.poisson.logpmf(np.array([0, 1, 3, 2, 5]), mu))


@entry(0.35)
def binom_logpmf_loss(p):
    return np.sum(stats.binom.logpmf(np.array([2, 5, 3]), 8, p))


@entry(np.array([0.3, -0.2]), np.array([0.1, 0.4]), wrt=(0, 1))
def multivariate_normal_logpdf_loss(x, mean):
    cov = np.array([[1.0, 0.3], [0.3, 2.0]])
    return stats.multivariate_normal.logpdf(x, mean=mean, cov=cov)


@entry(X5, 0.2, 1.3, wrt=(0, 1, 2))
def norm_frozen_logpdf_loss(x, mu, sigma):
    dist = stats.norm(mu, sigma)
    return np.sum(dist.logpdf(x))


@entry(X5, 0.2, 1.3, wrt=(1, 2))
def norm_nnlf_loss(x, mu, sigma):
    return stats.norm.nnlf((mu, sigma), x)


@entry(X5)
def norm_sf_ppf_loss(x):
    return np.sum(stats.norm.sf(x)) + np.sum(stats.norm.ppf(stats.norm.cdf(x) * 0.5))


# --- scipy.stats: summaries ----------------------------------------------------------
@entry(P5, Q5, wrt=(0, 1))
def stats_entropy_loss(p, q):
    return stats.entropy(p, q)


@entry(P5)
def stats_entropy_base_loss(p):
    return stats.entropy(p, base=2)


@entry(X5)
def stats_zscore_loss(x):
    return np.sum(stats.zscore(x) ** 3)


@entry(POS5)
def stats_gmean_loss(x):
    return stats.gmean(x)


@entry(POS5)
def stats_hmean_loss(x):
    return stats.hmean(x)


@entry(POS5)
def stats_pmean_loss(x):
    return stats.pmean(x, 2.5)


@entry(X5)
def stats_skew_loss(x):
    return stats.skew(x)


@entry(X5)
def stats_kurtosis_loss(x):
    return stats.kurtosis(x)


@entry(X5)
def stats_moment_loss(x):
    return stats.moment(x, order=3)


@entry(POS5)
def stats_variation_loss(x):
    return stats.variation(x)


@entry(X5)
def stats_trim_mean_loss(x):
    return stats.trim_mean(x, 0.2)


@entry(X5, POS5, wrt=(0, 1))
def stats_wasserstein_loss(u, v):
    return stats.wasserstein_distance(u, v)


@entry(X5, POS5, wrt=(0, 1))
def stats_energy_distance_loss(u, v):
    return stats.energy_distance(u, v)


@entry(X5, POS5, wrt=(0, 1))
def stats_pearsonr_loss(x, y):
    return stats.pearsonr(x, y)[0]


@entry(X5)
def stats_sem_loss(x):
    return stats.sem(x)


# --- found by the hunt beyond the corpus ----------------------------------------------
@entry(X5, modes=True)
def special_xlog1py_loss(x):
    return np.sum(special.xlog1py(x, x ** 2))


@entry(U5)
def special_ndtri_erfinv_loss(p):
    return np.sum(special.ndtri(p) + special.erfinv(2 * p - 1))


@entry(X5, 4.0, 0.5, 2.0, wrt=(0, 2, 3))
def t_logsf_loss(x, df, mu, s):
    return np.sum(stats.t.logsf(x, df, loc=mu, scale=s))


@entry(X5, 0.3, 1.7, wrt=(0, 1, 2), modes=True)
def norm_frozen_pdf_loss(x, mu, sigma):
    return np.sum(stats.norm(mu, sigma).pdf(x))


@entry(POS5, 3.0, 5.0, wrt=(0, 1, 2))
def f_logpdf_loss(x, a, b):
    return np.sum(stats.f.logpdf(x, a, b))


@entry(X5, 2.0, wrt=(0, 1))
def vonmises_logpdf_loss(x, kappa):
    return np.sum(stats.vonmises.logpdf(x, kappa))


@entry(X5, np.array([[0.0], [0.5], [1.0]]), wrt=(0, 1))
def norm_broadcast_loc_loss(x, mu):
    return np.sum(stats.norm.logpdf(x, loc=mu, scale=1.3))


@entry(1.3, 0.05, wrt=(0, 1), modes=True)
def gumbel_ppf_scale_loss(scale, loc):  # ``_a * scale`` with _a = -inf, never selected
    return np.sum(stats.gumbel_r.ppf(U5, loc=loc, scale=scale) ** 2)


@entry(1.3, 0.05, wrt=(0, 1))
def weibull_isf_scale_loss(scale, loc):
    return np.sum(stats.weibull_min.isf(U5, 1.7, loc=loc, scale=scale))
