"""The Hessian of a function of pytree arguments (tuples, lists, dicts, NamedTuples,
dataclasses), in JAX's nesting: for one differentiated argument ``a`` the result has
``a``'s structure, each leaf of which holds ``a``'s structure again, whose leaves are the
blocks ``d²f / da_i da_j`` of shape ``a_i.shape + a_j.shape``; for a tuple ``wrt`` a tuple
over the arguments ``i`` of argument ``i``'s structure, each leaf a tuple over the
arguments ``j`` of argument ``j``'s structure of blocks (for array arguments: ``H[i][j]``).
Computed as the Hessian of ``fn`` as a function of its leaves (the
flat function ``products._Flat`` generates), so the compiled gradient differentiated again
takes arrays and floats only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import trees
from .errors import WrtError


def tree_hessian(fn: Callable[..., Any], args: tuple[Any, ...], positions: list[int],
                 single: bool, mode: str, backend: Any = None) -> Any:
    """The Hessian of ``fn`` at ``args`` for the arguments at ``positions``, on the
    namespace ``backend`` (``hessian(backend=...)``'s; None: the arguments').  The blocks
    are the flat Hessian's own arrays, regrouped: nothing is converted or copied."""
    from .api import _is_float  # noqa: PLC0415  (products builds on api)
    from .products import _Flat, hessian  # noqa: PLC0415

    flat = _Flat(fn, args, "hessian")
    per_arg = [[k for k in flat.span(p) if _is_float(flat.leaves[k])] for p in positions]
    leaves = [k for ks in per_arg for k in ks]
    if not leaves:
        raise WrtError(f"hessian of {flat.name}: the differentiated arguments hold no "
                       "floating-point value")
    h = hessian(flat.fn, wrt=tuple(leaves), mode=mode, backend=backend)(*flat.leaves)
    at = {k: i for i, k in enumerate(leaves)}

    def row(k: int, q: int) -> Any:
        """Argument ``q``'s structure of the blocks ``d²f / d leaf_k d leaf_m``."""
        if k not in at:
            return None
        return trees.unflatten(flat.specs[q], [h[at[k]][at[m]] if m in at else None
                                               for m in flat.span(q)])

    if single:
        p = positions[0]
        return trees.unflatten(flat.specs[p], [row(k, p) for k in flat.span(p)])
    # JAX's nesting for a tuple of arguments (jacfwd of jacrev with tuple argnums):
    # H[i] has argument i's structure; each of its leaves holds a tuple over the
    # arguments j of argument j's structure of blocks: H[i][leaf][j][leaf']
    return tuple(trees.unflatten(flat.specs[p], [
        None if k not in at else tuple(row(k, q) for q in positions)
        for k in flat.span(p)]) for p in positions)
