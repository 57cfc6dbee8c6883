"""The backward engine: runs the graph of ``grad_fn`` nodes from roots to leaves.

One pass finds every node reachable from the roots and counts, for each, the edges that
lead into it (its dependencies).  A node runs once, when its last dependency delivered
its gradient; gradients arriving at the same node are summed first.  Ready nodes wait in
a heap ordered by creation (most recent first, leaf accumulators before anything else),
which is PyTorch's order, so hooks fire in the same sequence.  Both passes are loops
over explicit stacks: a chain of 100,000 ops needs no recursion.

Around each node: hooks registered on its output tensors (``Tensor.register_hook``) and
``retain_grad`` see the summed gradient first, then ``register_prehook`` hooks, then the
node runs, then ``register_hook`` hooks see inputs and outputs.  Without
``create_graph`` the values are raw arrays (hooks get them wrapped in Tensors) and grad
mode is off; with it the values are Tensors and every op is recorded.  A node's saved
values are released after it ran unless the graph is retained.

Rules get an ``ops`` namespace: raw arrays (``array_ops_for``) or recording Tensors
(``tensor_ops_for``, with ``create_graph``), each for one device.  A graph may cross devices
(``.cuda()``, ``.cpu()`` inside it), so once this process has met a device array
(``device.SEEN``) each node's rule runs in the namespace of its own gradient, which lives
where the node's output does: the constants a rule makes from shapes join their operands
there.  A host-only program never pays for that choice.

``inputs`` (``backward(inputs=...)`` and ``autograd.grad``) restricts the run to nodes
that lead to those tensors; ``autograd.grad`` captures their gradients instead of
accumulating them into ``.grad``.
"""

from __future__ import annotations

import heapq
import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .device import SEEN, is_device
from .device_ops import tensor_ops_for
from .float_errors import ALL, quiet, restore
from .function import AccumulateGrad, Node
from .grad_mode import STATE
from .tensor import Tensor, edge_of, plain
from .tensor_ops import array_ops_for

__all__ = ["backward", "grad"]

_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)
_warned_cycle = [False]


def _as_tuple(values: Any) -> tuple[Any, ...]:
    if values is None:
        return ()
    if isinstance(values, Tensor):
        return (values,)
    return tuple(values)


def _roots(tensors: tuple[Any, ...], grads: Any, create_graph: bool) -> tuple[list[Any], list[Any]]:
    """Validate outputs and their gradients; return root edges and root gradient values."""
    if grads is None and len(tensors) == 1 and not create_graph:  # per-op cost: loss.backward()
        t = tensors[0]
        if isinstance(t, Tensor) and t._requires_grad:
            data = t._data
            kind = type(data)
            if kind is np.ndarray or isinstance(data, np.generic):
                if data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                # the implicit gradient below (ones of the output's dtype), without a Tensor
                fn = t._grad_fn
                edge = (fn, t._output_nr) if fn is not None else edge_of(t)
                one = data.dtype.type(1) if kind is not np.ndarray else \
                    np.ones(data.shape, data.dtype)
                return [edge], [one]
    grads = _as_tuple(grads) if grads is not None else (None,) * len(tensors)
    if len(grads) < len(tensors):  # (PyTorch ignores extra gradients)
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    if len(grads) > len(tensors):
        grads = grads[:len(tensors)]
    edges, values = [], []
    for i, (t, g) in enumerate(zip(tensors, grads, strict=True)):
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            data = t._data
            # dists family: ``x ** 0`` is 1 for inf and nan too (``x * 0 + 1`` made the
            # implicit gradient of an infinite output nan)
            # (tensor part: NumPy scalar ``**`` costs microseconds; ones are the same value)
            g_data: Any
            if isinstance(data, np.generic):
                g_data = data.dtype.type(1)
            elif type(data) is np.ndarray:
                g_data = np.ones(data.shape, data.dtype)
            else:
                g_data = (data**0).astype(data.dtype)
            g = plain(g_data)
        elif not isinstance(g, Tensor):
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        elif g._data.shape != t._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                f"output[{i}] has a shape of {t.shape}.")
        if g._data.dtype != t._data.dtype:
            g = g.to(t.dtype)
        edges.append(edge_of(t))
        values.append(g if create_graph else g._data)
    return edges, values


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves (or ``inputs``)."""
    tensors = _as_tuple(tensors)
    targets = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        targets = inputs
        for t in inputs:  # part "autograd": torch retains the grads of non-leaf inputs
            if not t._requires_grad:  # (PyTorch's engine calls retain_grad on each input)
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            if t._grad_fn is not None:
                t.retain_grad()
    if create_graph and not _warned_cycle[0]:
        _warned_cycle[0] = True
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=3)
    edges, values = _roots(tensors, grad_tensors, create_graph)
    keep = create_graph if retain_graph is None else retain_graph
    _execute(edges, values, keep, create_graph, targets, capture=False)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None,
         materialize_grads: bool = False) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (``.grad`` is untouched)."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
    edges, values = _roots(outputs, grad_outputs, create_graph)  # (outputs checked first)
    for t in inputs:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    keep = create_graph if retain_graph is None else retain_graph
    found = _execute(edges, values, keep, create_graph, inputs, capture=True) if edges \
        else [None] * len(inputs)  # (no outputs: no input is used)
    result = []
    for i, (t, g) in enumerate(zip(inputs, found, strict=True)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                g = plain(np.zeros_like(t._array()))
        elif not isinstance(g, Tensor):
            g = plain(g)
        result.append(g)
    return tuple(result)


class _Task:
    """The state of one backward run."""

    def __init__(self, keep: bool, create_graph: bool, ops: Any) -> None:
        self.keep = keep
        self.ops = ops  # the rules' namespace: the root's, then the running node's
        self.tensors = create_graph
        self.by_type: dict[type, Any] = {}  # ``_node_ops``: namespace per gradient array type
        self.buffers: dict[Node, list[Any]] = {}
        self.deps: dict[Node, int] = {}
        self.heap: list[Any] = []
        self.tick = itertools.count()


def _discover(roots: list[Any]) -> dict[Node, int]:
    """Every node reachable from the roots, with its number of incoming edges."""
    deps: dict[Node, int] = {}
    stack = []
    for node, _nr in roots:
        if node not in deps:
            deps[node] = 0
            stack.append(node)
        deps[node] += 1
    get, push, pop = deps.get, stack.append, stack.pop  # (per-op cost: bound once)
    while stack:
        node = pop()
        for fn, _nr in node.next_functions:
            if fn is None:
                continue
            n = get(fn)
            if n is None:
                deps[fn] = 1
                push(fn)
            else:
                deps[fn] = n + 1
    return deps


def _restrict(deps: dict[Node, int], roots: list[Any], wanted: set[Node], capture: bool
              ) -> tuple[dict[Node, int], set[Node]]:
    """Keep the nodes that lead to a wanted node; return their dependencies and which run."""
    reach: dict[Node, bool] = {}
    runs: set[Node] = set()
    get = reach.get
    # children before parents: creation order, with the accumulators (sinks) first
    for node in sorted(deps, key=lambda n: -1 if isinstance(n, AccumulateGrad) else n._seq):
        child = False
        for fn, _ in node.next_functions:  # (``any`` over a generator, unrolled)
            if fn is not None and get(fn, False):
                child = True
                break
        reach[node] = child or node in wanted
        if child or (node in wanted and not capture and isinstance(node, AccumulateGrad)):
            runs.add(node)
    kept = {n: 0 for n, r in reach.items() if r}
    for node, _nr in roots:
        if node in kept:
            kept[node] += 1
    for node in runs:
        for fn, _ in node.next_functions:
            if fn is not None and fn in kept:
                kept[fn] += 1
    return kept, runs


def _execute(roots: list[Any], values: list[Any], keep: bool, create_graph: bool,
             targets: Sequence[Tensor] | None, capture: bool) -> list[Any]:
    ops = tensor_ops_for(values[0]) if create_graph else array_ops_for(values[0])
    task = _Task(keep, create_graph, ops)
    deps = _discover(roots)
    runs: set[Node] | None = None
    wanted: dict[Node, list[Any]] = {}
    if targets is not None:
        for slot, t in enumerate(targets):
            fn, nr = edge_of(t)
            wanted.setdefault(fn, []).append((nr, slot, t))
        deps, runs = _restrict(deps, roots, set(wanted), capture)
    task.deps = deps
    found: list[Any] = [None] * (len(targets) if targets is not None else 0)
    prev = STATE.enabled
    STATE.enabled = create_graph
    token = quiet(ALL)  # ``np.errstate(all="ignore")``, cheaper
    try:
        buffers, heap = task.buffers, task.heap
        for (node, nr), g in zip(roots, values, strict=True):
            left = deps.get(node)
            if left is not None:  # ``task.add`` and ``task.done_edge``, inlined
                buf = buffers.get(node)
                if buf is None:
                    buf = buffers[node] = [None] * node._nout
                if g is not None:
                    old = buf[nr]
                    buf[nr] = g if old is None else old + g
                deps[node] = left - 1
                if left == 1:
                    heapq.heappush(heap, (-node._seq, next(task.tick), node))
        _loop(task, wanted, runs, found, capture)
    finally:
        restore(token)
        STATE.enabled = prev
    return found


_ACC_BACKWARD = AccumulateGrad.backward  # speedcore: the unwrapped original

# speed2: node classes that stand for a small fixed sub-graph (a recurrent step) whose
# nodes the class's runner may execute in one call: ``run(node, grads, keep, send, deps,
# buffers)`` runs ``node`` and the step's other nodes exactly as this loop would (same
# arithmetic, same order of deliveries through ``send(fn, nr, g)``), or returns False to
# leave them to it (``deps`` and ``buffers`` tell it whether anything else feeds them).
FUSED: dict[type, Callable[..., bool]] = {}


def _loop(task: _Task, wanted: dict[Any, Any], runs: set[Any] | None, found: list[Any],
          capture: bool) -> None:
    """Run ready nodes until none is left (the hot loop: kept flat on purpose)."""
    heap = task.heap
    buffers = task.buffers
    deps = task.deps
    get_dep = deps.get
    ops = task.ops
    keep = task.keep
    tick = task.tick
    pop, push = heapq.heappop, heapq.heappush
    # speedcore: a leaf without hooks takes its gradient directly, unless the profiler or
    # anomaly mode wrapped AccumulateGrad.backward
    plain_leaves = not wanted and runs is None and AccumulateGrad.backward is _ACC_BACKWARD
    # speed2: fused steps only where nothing could tell them apart (no profiler, anomaly
    # mode, ``inputs``, ``create_graph``); each runner checks its nodes' hooks and saves
    fused_get = FUSED.get if plain_leaves and not task.tensors and FUSED else None
    # a graph may cross devices (``.cuda()``, ``.cpu()`` inside it) once device arrays exist:
    # then each node's rule runs in the namespace of its own gradient, not the root's
    per_node = SEEN[0]
    tensors = task.tensors
    kind: Any = None  # the type of the arrays the current ``ops`` was chosen for

    def send(fn: Node, nr: int, g: Any) -> None:
        """One edge's delivery, as the loop below makes it."""
        left = get_dep(fn)
        if left is None:
            return
        if g is not None:
            buf = buffers.get(fn)
            if buf is None:
                buf = buffers[fn] = [None] * fn._nout
            old = buf[nr]
            buf[nr] = g if old is None else old + g
        left -= 1
        deps[fn] = left
        if left == 0:
            push(heap, (-fn._seq, next(tick), fn))

    nxt = None  # per-op cost: the node that runs next, when it need not wait in the heap
    while True:
        if nxt is not None:
            node = nxt
            nxt = None
        elif heap:
            node = pop(heap)[2]
        else:
            break
        grads = buffers.pop(node, None) or [None] * node._nout
        if per_node:
            g0 = grads[0]
            if type(node) is AccumulateGrad and g0 is not None:
                grads = _leaf_device(node, grads)
                g0 = grads[0]
            if g0 is None or type(g0._data if tensors else g0) is not kind:
                ops, kind = _node_ops(task, grads)
        hooks = node._hooks
        if hooks is None:
            if type(node) is AccumulateGrad:
                if plain_leaves:
                    var = node.variable
                    ex = var._extra
                    if ex is None or (ex.hooks is None and ex.post is None):
                        if grads[0] is not None:
                            var._accumulate(grads[0], ops)
                        continue
                grads = _tensor_hooks(task, node, grads)
            elif fused_get is not None:
                run = fused_get(type(node))
                if run is not None and run(node, grads, keep, send, deps, buffers):
                    continue
        else:
            grads = _tensor_hooks(task, node, grads)
        if wanted and node in wanted:
            _capture(task, node, grads, wanted[node], found, capture)
        if runs is not None and node not in runs:
            continue
        if hooks is not None and hooks.pre:
            grads = _call_pre_hooks(task, hooks.pre, grads)
        if grads[0] is None and all(g is None for g in grads):
            out: Sequence[Any] = [None] * len(node.next_functions)
        else:
            out = node.backward(grads, ops)
        if hooks is not None and hooks.post:
            out = _call_post_hooks(task, hooks.post, out, grads)
        if not keep:
            node._release()
        ready = None  # the last node this one made ready, not yet in the heap
        for (fn, nr), g in zip(node.next_functions, out):
            if fn is None:
                continue
            # (``send`` above, inlined: a call per edge costs more than the delivery)
            left = get_dep(fn)
            if left is None:  # outside the run (``inputs`` restricted it)
                continue
            if g is not None:
                buf = buffers.get(fn)
                if buf is None:
                    buf = buffers[fn] = [None] * fn._nout
                old = buf[nr]
                buf[nr] = g if old is None else old + g
            left -= 1
            deps[fn] = left
            if left == 0:
                if ready is not None:
                    push(heap, (-ready._seq, next(tick), ready))
                ready = fn
        if ready is not None:
            # it runs next without the heap when it comes strictly before every waiting node
            # (the heap would hand it out first: same order, ties included)
            if not heap or -ready._seq < heap[0][0]:
                nxt = ready
            else:
                push(heap, (-ready._seq, next(tick), ready))


def _node_ops(task: _Task, grads: list[Any]) -> tuple[Any, Any]:
    """The rules' namespace for a node whose output gradients are ``grads``: the one of
    their device (a node's gradient lives where its output does, as in PyTorch), so the
    constants a rule makes from shapes (an ``eye``, index grids, zeros) join its other
    operands there.  Also becomes ``task.ops`` for the node's hooks and ``retain_grad``.
    Returns the namespace and the array type it stands for (None: keep asking)."""
    for g in grads:
        if g is not None:
            break
    else:
        return task.ops, None
    data = g._data if isinstance(g, Tensor) else g
    key = type(data)
    ops = task.by_type.get(key)
    if ops is None:
        ops = task.by_type[key] = tensor_ops_for(data) if task.tensors else array_ops_for(data)
    task.ops = ops
    return ops, (key if g is grads[0] else None)


def _leaf_device(node: AccumulateGrad, grads: list[Any]) -> list[Any]:
    """A host leaf's 0-d gradient that arrives from the device (the leaf joined a device op
    as a scalar) moves to the host, as PyTorch's engine moves a 0-d gradient to its input's
    device: ``.grad`` and ``autograd.grad`` answer on the leaf's device."""
    g = grads[0]
    data = g._data if isinstance(g, Tensor) else g
    if getattr(data, "ndim", 1) or not is_device(data) or is_device(node.variable._data):
        return grads
    return [g.cpu() if isinstance(g, Tensor) else data.get()]


def _wrap(task: _Task, g: Any) -> Any:
    return g if task.tensors or g is None else plain(g)


def _unwrap(task: _Task, g: Any) -> Any:
    if g is None or task.tensors:
        return g
    return g._data if isinstance(g, Tensor) else g


def _tensor_hooks(task: _Task, node: Node, grads: list[Any]) -> list[Any]:
    """Hooks registered on the node's output tensors, then ``retain_grad``."""
    if isinstance(node, AccumulateGrad):
        leaf_hooks = node.variable._leaf_hooks()
        per_output = {0: leaf_hooks} if leaf_hooks else {}
        retain: dict[Any, Any] = {}
    else:
        assert node._hooks is not None  # (the caller calls this for a node with hooks)
        per_output = node._hooks.tensor
        retain = node._hooks.retain
    if not per_output and not retain:
        return grads
    grads = list(grads)
    for nr, registry in per_output.items():
        if grads[nr] is None or not registry:
            continue
        for hook in list(registry.values()):
            new = hook(_wrap(task, grads[nr]))
            if new is not None:
                grads[nr] = _unwrap(task, _checked(hook, new, grads[nr]))
    for nr, ref in retain.items():
        t = ref()
        if t is not None and grads[nr] is not None:
            t._accumulate_retained(grads[nr], task.ops)
    return grads


def _capture(task: _Task, node: Node, grads: list[Any], wanted: list[Any], found: list[Any],
             capture: bool) -> None:
    for nr, slot, t in wanted:
        g = grads[nr]
        if capture:
            found[slot] = g
        elif g is not None and not isinstance(node, AccumulateGrad) and not t.retains_grad:
            t._accumulate_retained(g, task.ops)  # backward(inputs=[non_leaf]) fills .grad


def _call_pre_hooks(task: _Task, registry: dict[Any, Any], grads: list[Any]) -> list[Any]:
    for hook in list(registry.values()):
        new = hook(tuple(_wrap(task, g) for g in grads))
        if new is not None:
            grads = [_unwrap(task, _checked(hook, n, g)) for n, g in _same_count(hook, new, grads)]
    return grads


def _call_post_hooks(task: _Task, registry: dict[Any, Any], out: Sequence[Any],
                     grads: list[Any]) -> list[Any]:
    out = list(out)
    for hook in list(registry.values()):
        new = hook(tuple(_wrap(task, g) for g in out), tuple(_wrap(task, g) for g in grads))
        if new is not None:
            out = [_unwrap(task, _checked(hook, n, g)) for n, g in _same_count(hook, new, out)]
    return out


# --- part "autograd" (issue 12): torch's checks on values returned by hooks --------------
def _hook_name(hook: Any) -> str:
    return getattr(hook, "__name__", "<unknown>")


def _same_count(hook: Any, new: Any, old: Sequence[Any]) -> list[Any]:
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(new)}, but expected {len(old)})")
    return list(zip(new, old, strict=True))


def _checked(hook: Any, new: Any, old: Any) -> Any:
    """``new`` (a hook's replacement for gradient ``old``), refused when its kind differs."""
    if new is None:
        return new
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    old_shape = tuple(getattr(old, "shape", ()))
    if tuple(new._data.shape) != old_shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    old_dtype = old._data.dtype if isinstance(old, Tensor) else old.dtype
    if new._data.dtype != old_dtype:
        was = (old if isinstance(old, Tensor) else plain(old)).type()
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{was} got {new.type()})")
    return new
