"""statsmodels log-likelihoods, robust norms, links, variance functions, families and
evaluation measures, imported and called from small user wrappers.  The models' own
``score`` methods are the analytic gradients the likelihood entries are checked against."""

from __future__ import annotations

import numpy as np
import statsmodels.api as sm
from statsmodels.discrete.discrete_model import Logit, Poisson, Probit
from statsmodels.genmod import families
from statsmodels.genmod.families import links, varfuncs
from statsmodels.regression.linear_model import OLS, WLS
from statsmodels.robust import norms
from statsmodels.robust import scale as robust_scale
from statsmodels.stats import moment_helpers
from statsmodels.tools import eval_measures
from statsmodels.tsa import stattools

from .entry import Registry

REG = Registry("statsmodels")
entry = REG.entry

_rng = np.random.default_rng(1)
EXOG = np.column_stack([np.ones(12), _rng.standard_normal((12, 2))])
BETA = np.array([0.3, -0.5, 0.8])
Y_LIN = EXOG @ BETA + 0.3 * _rng.standard_normal(12)
Y_BIN = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0], dtype=float)
Y_CNT = np.array([0, 2, 1, 3, 0, 1, 4, 2, 1, 0, 2, 5], dtype=float)
PARAMS = np.array([0.1, -0.2, 0.3])
RESID = np.array([0.3, -2.4, 0.8, 1.7, -0.4, 3.5])
MU = np.array([0.2, 0.45, 0.7, 0.35, 0.6])
Y5 = np.array([0.0, 1.0, 1.0, 0.0, 1.0])

_OLS = OLS(Y_LIN, EXOG)
_WLS = WLS(Y_LIN, EXOG, weights=np.linspace(0.5, 2.0, 12))
_LOGIT = Logit(Y_BIN, EXOG)
_PROBIT = Probit(Y_BIN, EXOG)
_POISSON = Poisson(Y_CNT, EXOG)
_GLM_POISSON = sm.GLM(Y_CNT, EXOG, family=families.Poisson())
_GLM_GAUSS = sm.GLM(Y_LIN, EXOG, family=families.Gaussian())


def _score(model):
    """The model's own analytic score as an entry reference (one array per wrt)."""
    return lambda params: (model.score(params),)


# --- model log-likelihoods (checked against the models' own score) ------------------
@entry(np.append(BETA, 0.0), ref=None)
def ols_loglike_loss(params):
    return -_OLS.loglike(params[:3])


@entry(PARAMS, ref=_score(_LOGIT))
def logit_loglike_loss(params):
    return _LOGIT.loglike(params)


@entry(PARAMS, ref=_score(_PROBIT))
def probit_loglike_loss(params):
    return _PROBIT.loglike(params)


@entry(PARAMS, ref=_score(_POISSON))
def poisson_loglike_loss(params):
    return _POISSON.loglike(params)


@entry(PARAMS, ref=_score(_GLM_POISSON))
def glm_poisson_loglike_loss(params):
    return _GLM_POISSON.loglike(params)


@entry(PARAMS)
def glm_gaussian_loglike_loss(params):
    return _GLM_GAUSS.loglike(params, scale=1.0)


@entry(PARAMS)
def wls_loglike_loss(params):
    return _WLS.loglike(params)


@entry(PARAMS, ref=_score(_LOGIT))
def logit_loglikeobs_loss(params):
    return np.sum(_LOGIT.loglikeobs(params))


@entry(PARAMS)
def logit_built_inside_loss(params):
    model = Logit(Y_BIN, EXOG)
    return model.loglike(params)


REG.add("logit_loglike_bound_method", _LOGIT.loglike, PARAMS, ref=_score(_LOGIT))
REG.add("poisson_loglike_bound_method", _POISSON.loglike, PARAMS, ref=_score(_POISSON))


# --- robust norms ------------------------------------------------------------------------
@entry(RESID)
def huber_rho_loss(z):
    return np.sum(norms.HuberT(t=1.345).rho(z))


@entry(RESID)
def huber_psi_loss(z):
    return np.sum(norms.HuberT().psi(z) ** 2)


@entry(RESID)
def tukey_rho_loss(z):
    return np.sum(norms.TukeyBiweight(c=4.685).rho(z))


@entry(RESID)
def hampel_rho_loss(z):
    return np.sum(norms.Hampel().rho(z))


@entry(RESID)
def andrew_rho_loss(z):
    return np.sum(norms.AndrewWave().rho(z))


@entry(RESID)
def ramsay_rho_loss(z):
    return np.sum(norms.RamsayE().rho(z))


@entry(RESID)
def least_squares_rho_loss(z):
    return np.sum(norms.LeastSquares().rho(z))


@entry(RESID)
def trimmed_mean_rho_loss(z):
    return np.sum(norms.TrimmedMean(c=2.0).rho(z))


_HUBER = norms.HuberT()


@entry(RESID)
def huber_call_loss(z):
    return np.sum(_HUBER(z))


@entry(RESID)
def student_t_rho_loss(z):
    return np.sum(norms.StudentT(df=3).rho(z))


# --- links and variance functions ------------------------------------------------------
@entry(MU)
def logit_link_loss(p):
    return np.sum(links.Logit()(p) ** 2)


@entry(np.array([0.3, -1.2, 0.8, 2.1, -0.4]))
def logit_inverse_loss(eta):
    return np.sum(links.Logit().inverse(eta))


@entry(MU)
def probit_link_loss(p):
    return np.sum(links.Probit()(p))


@entry(MU)
def cloglog_link_loss(p):
    return np.sum(links.CLogLog()(p))


@entry(MU)
def log_link_deriv_loss(mu):
    return np.sum(links.Log().deriv(mu))


@entry(MU)
def power_link_loss(mu):
    return np.sum(links.Power(power=1.5)(mu))


@entry(MU)
def binomial_variance_loss(mu):
    return np.sum(varfuncs.Binomial()(mu))


@entry(MU)
def power_variance_loss(mu):
    return np.sum(varfuncs.Power(power=1.5)(mu))


# --- families ------------------------------------------------------------------------------
@entry(MU)
def binomial_family_loglike_loss(mu):
    return families.Binomial().loglike(Y5, mu)


@entry(MU)
def binomial_family_deviance_loss(mu):
    return families.Binomial().deviance(Y5, mu)


@entry(MU * 3.0)
def poisson_family_loglike_loss(mu):
    return families.Poisson().loglike(np.array([0.0, 2.0, 1.0, 3.0, 1.0]), mu)


@entry(MU * 3.0)
def gamma_family_deviance_loss(mu):
    return families.Gamma().deviance(np.array([0.5, 2.0, 1.0, 3.0, 1.5]), mu)


@entry(MU)
def family_weights_loss(mu):
    return np.sum(families.Binomial().weights(mu))


# --- evaluation measures and tools -----------------------------------------------------
@entry(RESID, RESID[::-1].copy(), wrt=(0, 1))
def eval_mse_loss(a, b):
    return eval_measures.mse(a, b)


@entry(RESID, RESID[::-1].copy(), wrt=(0, 1))
def eval_rmse_loss(a, b):
    return eval_measures.rmse(a, b)


@entry(RESID, RESID[::-1].copy(), wrt=(0, 1))
def eval_meanabs_loss(a, b):
    return eval_measures.meanabs(a, b)


@entry(RESID, RESID[::-1].copy(), wrt=(0, 1))
def eval_vare_loss(a, b):
    return eval_measures.vare(a, b)


@entry(-12.5)
def eval_aic_bic_loss(llf):
    return eval_measures.aic(llf, 20, 3) + eval_measures.bic(llf, 20, 3)


@entry(2.5)
def eval_aic_sigma_loss(sigma2):
    return eval_measures.aic_sigma(sigma2, 20, 3)


@entry(BETA)
def add_constant_loss(w):
    design = sm.add_constant(EXOG[:, 1:])
    return np.sum((design @ w - Y_LIN) ** 2)


# --- moment helpers, robust scale, time series -------------------------------------------
SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
MOMENTS = np.array([0.1, 1.2, 0.3, 3.1])


@entry(SPD)
def cov2corr_loss(cov):
    return np.sum(moment_helpers.cov2corr(cov) ** 2)


@entry(SPD, np.array([1.0, 2.0, 0.5]), wrt=(0, 1))
def corr2cov_loss(corr, std):
    return np.sum(moment_helpers.corr2cov(corr, std))


@entry(SPD)
def se_cov_loss(cov):
    return np.sum(moment_helpers.se_cov(cov))


@entry(MOMENTS)
def mc2mvsk_loss(mc):
    return np.sum(moment_helpers.mc2mvsk(mc))


@entry(MOMENTS)
def mnc2mc_loss(mnc):
    return np.sum(moment_helpers.mnc2mc(mnc))


@entry(RESID)
def huber_rho_unbound_loss(z):
    return np.sum(norms.HuberT.rho(_HUBER, z))


@entry(RESID)
def mad_loss(z):
    return robust_scale.mad(z)


@entry(RESID)
def acf_loss(z):
    return np.sum(stattools.acf(z, nlags=2))
