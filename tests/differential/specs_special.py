"""Specs of the special family's scipy.special ops (``rt.<name>``: the kernels that run
SciPy's ufuncs), each on its real domain: positive arguments for the gamma family and the
Bessel functions of the second kind, (0, 1) for ``betainc``'s x, ``1 + lmbda y > 0`` for
``inv_boxcox``.  Orders (Bessel ``v``, ``expn``'s ``n``) and ``betainc``'s ``a``, ``b`` are
constants: they have no derivative rule (tests/test_rules_special_more.py checks the
located error when they are active).  JAX is the oracle where ``jax.scipy.special`` (or
``jax.numpy``) has the function; ``eager`` runs the op on tensors where every argument
is differentiated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from st_autodiff.ir.ops import Op

if TYPE_CHECKING:
    from .specs import Spec

_JNP = {"sp_log1p": "log1p", "sp_expm1": "expm1", "sp_cbrt": "cbrt", "sp_exp2": "exp2"}
_JSP = {"gamma", "gammasgn", "loggamma", "erfcx", "dawsn", "i0", "i0e", "i1", "i1e", "exp1",
        "expi", "spence", "beta", "zeta", "expn", "boxcox1p", "owens_t", "poch", "betainc"}


def _jax(name: str, *constants: float) -> Callable[..., Any] | None:
    """The JAX spelling of ``rt.<name>(*constants, *args)``, or None where JAX has none."""
    if name in _JNP:
        return lambda jnp, *a: getattr(jnp, _JNP[name])(*a)
    if name == "exp10":
        return lambda jnp, a0: 10.0 ** a0
    if name not in _JSP:
        return None

    def call(jnp: Any, *a: Any) -> Any:
        return getattr(__import__("jax.scipy.special").scipy.special, name)(*constants, *a)

    return call


def _sp(name: str, *domains: str, jax: bool = True, **kw: Any) -> Spec:
    """``rt.<name>(a0, ...)``, every argument differentiated, eager runtime included."""
    from .specs import BINARY_SHAPES, UNARY_SHAPES, Spec  # noqa: PLC0415  (see _build)

    args = ", ".join(f"a{k}" for k in range(len(domains)))
    shapes = UNARY_SHAPES if len(domains) == 1 else BINARY_SHAPES
    return Spec(name, f"rt.{name}({args})", (Op(name),), kw.pop("shapes", shapes), domains,
                (Op(name), {}), jax=_jax(name) if jax else None, **kw)


def _in_x(name: str, domain: str, *constants: float, label: str | None = None,
          jax: bool = True, **kw: Any) -> Spec:
    """``rt.<name>(*constants, a0)``: differentiated in x only (an order, ``betainc``'s a
    and b are constants); no eager case (the runtime's ops take tensors for every input)."""
    from .specs import UNARY_SHAPES, Spec  # noqa: PLC0415  (see _build)

    head = "".join(f"{c!r}, " for c in constants)
    return Spec(label or name, f"rt.{name}({head}a0)", (Op(name),), UNARY_SHAPES, (domain,),
                None, jax=_jax(name, *constants) if jax else None, **kw)


def _build() -> tuple[Spec, ...]:
    """The specs, built on first access: ``specs.py`` imports this module at its end, so
    reading ``specs`` here at import time would be circular (PEP 562 ``__getattr__``)."""
    from .specs import BINARY_SHAPES, UNARY_SHAPES, Spec  # noqa: PLC0415

    return (
        _sp("gamma", "positive"),
        _sp("rgamma", "positive"),
        _sp("loggamma", "positive"),
        # piecewise constant: the gradient of gammasgn(x) * x is gammasgn(x)
        Spec("gammasgn", "rt.gammasgn(a0) * a0", (Op.GAMMASGN,), UNARY_SHAPES, ("nonzero",), None,
             jax=lambda jnp, a0: __import__("jax.scipy.special").scipy.special.gammasgn(a0) * a0),
        _sp("erfcinv", "prob"),
        _sp("erfcx", "real"),
        _sp("erfi", "small"),
        _sp("dawsn", "real"),
        _sp("i0", "real"),
        _sp("i0e", "nonzero"),
        _sp("i1", "real"),
        _sp("i1e", "nonzero"),
        _sp("j0", "real"),
        _sp("j1", "real"),
        _sp("y0", "positive"),
        _sp("y1", "positive"),
        _sp("k0", "positive"),
        _sp("k0e", "positive"),
        _sp("k1", "positive"),
        _sp("k1e", "positive"),
        _sp("exp1", "positive", jax=False),  # JAX cannot take forward over reverse of exp1
        _sp("expi", "nonzero"),
        _sp("spence", "positive", jax=False),  # JAX's spence has a NaN gradient
        _sp("sp_log1p", "positive"),
        _sp("sp_expm1", "real"),
        _sp("cosm1", "real"),
        _sp("exprel", "real"),
        _sp("sp_cbrt", "positive"),
        _sp("sp_exp2", "real"),
        _sp("exp10", "small"),
        _sp("sindg", "real"),
        _sp("cosdg", "real"),
        _sp("beta", "positive", "positive", jax=False),  # (float, float32): SciPy float64, JAX not
        _sp("boxcox1p", "positive", "real"),
        _sp("inv_boxcox", "unit", "unit", jax=False),
        _sp("owens_t", "real", "real", jax=False),  # JAX's owens_t of float32 is float64
        _sp("poch", "positive", "positive", jax=False),  # JAX's poch JVP breaks on float32
        Spec("binom", "rt.binom(a0 + 3.0, a1)", (Op.BINOM,), BINARY_SHAPES,
             ("positive", "positive"), None, jax=None),
        _in_x("iv", "positive", 1.5),
        _in_x("ive", "nonzero", 2.0),
        _in_x("jv", "positive", 1.5),
        _in_x("yv", "positive", 0.5),
        _in_x("yn", "positive", 2),
        _in_x("kv", "positive", 1.5),
        _in_x("kve", "positive", 0.5),
        _in_x("zeta", "positive", 3.0),
        _in_x("expn", "positive", 2, jax=False),  # JAX cannot take forward over reverse
        _in_x("expn", "positive", 0, label="expn0", jax=False),  # JAX cannot trace order 0
        _in_x("betainc", "prob", 2.5, 1.5),
        # riemann_zeta of an inactive value: no rule is needed, the op is in the graph
        Spec("riemann_zeta", "a0 * rt.riemann_zeta(np.ones_like(a0) * 3.5)",
             (Op.RIEMANN_ZETA,), UNARY_SHAPES[1:], ("real",), None, jax=None),
    )


_BUILT: list[tuple[Spec, ...]] = []


def __getattr__(name: str) -> Any:
    if name == "SPECS_SPECIAL":  # SPECS_SPECIAL: tuple[Spec, ...]
        if not _BUILT:
            _BUILT.append(_build())
        return _BUILT[0]
    raise AttributeError(name)
