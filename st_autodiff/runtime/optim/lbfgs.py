"""``LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search, as in PyTorch.

The optimizer works on all parameters flattened into one vector.  Each ``step(closure)``
runs up to ``max_iter`` iterations: the two-loop recursion turns the gradient into a search
direction from the last ``history_size`` curvature pairs ``(s, y)``, then the parameters move
by ``t * d`` with ``t = lr`` (the first iteration ever: ``min(1, 1/|g|_1) * lr``) or with the
step found by the strong-Wolfe search (``line_search_fn='strong_wolfe'``, cubic
interpolation, conditions ``c1=1e-4``, ``c2=0.9``).  Iterations stop on PyTorch's tests:
``max|g| <= tolerance_grad``, ``max|t * d| <= tolerance_change``, a loss change under
``tolerance_change``, ``max_eval`` closure calls.

Scalars that PyTorch keeps as 0-d tensors (the slopes ``g.d``, ``1/(y.s)``, the diagonal
scaling) are NumPy scalars of the parameters' dtype here, so they round the same way; the
dot products sum in another order than PyTorch's, so runs agree closely, not bit for bit.
The state (``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``,
``prev_flat_grad``, ``prev_loss``, ``func_evals``, ``n_iter``) lives on the first parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..device import is_device, xp_of
from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor, plain
from . import rounding as r
from .optimizer import Optimizer, array_of, grad_array

__all__ = ["LBFGS"]


def _cubic_minimum(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any,
                   bounds: tuple[Any, Any] | None = None) -> Any:
    """The minimiser of the cubic through two points with slopes, clipped to ``bounds``
    (default: between the points); the bounds' midpoint when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1**2 - g1 * g2
    if disc >= 0:
        d2 = r.sqrt(xp_of(disc).asarray(disc))[()]
        if x1 <= x2:
            at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(at, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(evaluate: Callable[[Any], tuple[float, Any]], t: Any, d: Any, f: float,
                  g: Any, gtd: Any, c1: float = 1e-4, c2: float = 0.9,
                  tolerance_change: float = 1e-9, max_ls: int = 25) -> tuple[Any, Any, Any, int]:
    """Search along ``d`` for a step satisfying the strong Wolfe conditions: bracket, then
    zoom.  Returns the loss, gradient and step chosen, and the number of evaluations."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    it = 0
    while it < max_ls:
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev):
            points = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new.copy(), gtd_new]]
            break
        if abs(gtd_new) <= -c2 * gtd:
            points = [[t, f_new, g_new, gtd_new]]
            done = True
            break
        if gtd_new >= 0:
            points = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new.copy(), gtd_new]]
            break
        lo, hi = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = t, _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, (lo, hi))
        f_prev, g_prev, gtd_prev = f_new, g_new.copy(), gtd_new
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        points = [[0, f, g, None], [t, f_new, g_new, None]]
    stuck = False
    low, high = (0, 1) if points[0][1] <= points[-1][1] else (1, 0)
    while not done and it < max_ls:
        a, b = points[0][0], points[1][0]
        if abs(b - a) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(a, points[0][1], points[0][3], b, points[1][1], points[1][3])
        top, bottom = max(a, b), min(a, b)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if stuck or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= points[low][1]:
            points[high] = [t, f_new, g_new.copy(), gtd_new]
            low, high = (0, 1) if points[0][1] <= points[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (points[high][0] - points[low][0]) >= 0:
                points[high] = list(points[low])
            points[low] = [t, f_new, g_new.copy(), gtd_new]
    t, f_new, g_new, _ = points[low]
    return f_new, g_new, t, evals


def _as_tensor(value: Any) -> Any:
    """A NumPy array or scalar stored in the state as a tensor (as PyTorch keeps them)."""
    if is_device(value):  # kept on its device
        return plain(value.copy())
    return plain(np.array(value)) if isinstance(value, (np.ndarray, np.generic)) else value


def _as_array(value: Any) -> Any:
    if isinstance(value, Tensor):
        a = value._data
        return a[()] if np.ndim(a) == 0 else a
    return value


class LBFGS(Optimizer):
    """The L-BFGS optimizer (see the module docstring); ``step`` needs a closure."""

    def __init__(self, params: Any, lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> Any:
        parts = []
        xp = xp_of(array_of(self._params[0]))  # the parameters' device
        for p in self._params:
            g = grad_array(p)
            parts.append(xp.zeros(p.numel(), array_of(p).dtype) if g is None
                         else xp.asarray(g).reshape(-1))
        return xp.concatenate(parts)

    def _move(self, t: Any, d: Any) -> None:
        offset = 0
        for p in self._params:
            data = array_of(p)
            n = data.size
            data[...] = r.add(data, d[offset:offset + n].reshape(data.shape), t)
            p._bump()
            offset += n

    def _evaluate(self, closure: Callable[[], Any], t: Any, d: Any) -> tuple[float, Any]:
        """Loss and flat gradient at ``x + t * d``; the parameters are restored after."""
        saved = [array_of(p).copy() for p in self._params]
        self._move(t, d)
        loss = float(closure())
        grad = self._flat_grad()
        for p, old in zip(self._params, saved):
            array_of(p)[...] = old
            p._bump()
        return loss, grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Run up to ``max_iter`` iterations; ``closure`` recomputes the loss and gradients."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]

        def evaluate() -> Any:
            with enable_grad():
                return closure()

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tol_grad:
            return orig_loss
        d, t = _as_array(state.get("d")), _as_array(state.get("t"))
        old_dirs = [_as_array(v) for v in state.get("old_dirs") or []]
        old_stps = [_as_array(v) for v in state.get("old_stps") or []]
        ro = [_as_array(v) for v in state.get("ro") or []]
        h_diag = _as_array(state.get("H_diag"))
        prev_flat_grad = _as_array(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = -flat_grad, [], [], [], 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                al = state.setdefault("al", [None] * history_size)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = _as_array(old_stps[i].dot(q) * ro[i])
                    q = r.add(q, old_dirs[i], -_as_array(al[i]))
                d = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(d) * ro[i]
                    d = r.add(d, old_stps[i], _as_array(al[i]) - be_i)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    # mypy cannot infer a lambda with a default (d=d binds this pass's d)
                    lambda step, d=d: self._evaluate(evaluate, step, d),  # type: ignore[misc]
                    t, d, loss, flat_grad, gtd, max_ls=max_eval - evals)
                self._move(t, d)
                done = np.abs(flat_grad).max() <= tol_grad
            else:
                self._move(t, d)
                done = False
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    done = np.abs(flat_grad).max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if (n_iter == max_iter or evals >= max_eval or done
                    or np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change):
                break
        if "al" in state:
            state["al"] = [_as_tensor(v) for v in state["al"]]
        state.update(d=_as_tensor(d), t=_as_tensor(t),
                     old_dirs=[_as_tensor(v) for v in old_dirs],
                     old_stps=[_as_tensor(v) for v in old_stps], ro=[_as_tensor(v) for v in ro],
                     H_diag=_as_tensor(h_diag), prev_flat_grad=_as_tensor(prev_flat_grad),
                     prev_loss=prev_loss)
        return orig_loss
