"""``torch.autograd.profiler`` / ``torch.profiler``: a per-op CPU profile (part "autograd").

While a ``profile`` is active, every public op is timed: the Tensor methods and
operators, the public functions of ``torch``, ``torch.nn.functional``, ``torch.linalg``,
``torch.special`` and ``torch.fft`` (found by identity wherever the runtime's modules
refer to them, so a layer calling ``F.linear`` is seen too), and every graph node's
backward.  Ops are named as PyTorch's dispatcher names them (``aten::mul``; a node is
``MulBackward0`` inside ``autograd::engine::evaluate_function: MulBackward0``), and
``record_function`` adds user ranges.  The wrappers are installed when the first profile
starts and removed when the last one stops, so code outside a profile pays nothing.

Events nest by time: an op's self time is its time minus its children's.  ``key_averages``
groups events by name (and input shapes with ``group_by_input_shape``); ``table`` prints
PyTorch's layout (Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
# of Calls, Input Shapes when recorded).  Only the CPU is timed: ``use_cuda`` and
``ProfilerActivity.CUDA`` are accepted as in PyTorch without a CUDA column.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from types import FunctionType
from typing import Any

from .function import Node
from .profiler_events import EventList, FunctionEvent, FunctionEventAvg
from .tensor import Tensor

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction",
           "ProfilerActivity", "profile", "record_function", "schedule"]


# --- recording ------------------------------------------------------------------------------

class _Recorder(threading.local):
    def __init__(self) -> None:
        self.open: list[FunctionEvent] = []


_REC = _Recorder()
_ACTIVE: list[profile] = []


def _shapes(args: tuple[Any, ...]) -> list[Any]:
    return [list(a._data.shape) if isinstance(a, Tensor) else [] for a in args]


def _begin(name: str, args: tuple[Any, ...] = (), user: bool = False,
           shapes: list[Any] | None = None) -> FunctionEvent | None:
    prof = _ACTIVE[-1] if _ACTIVE else None
    if prof is None or not prof._recording:
        return None
    stack = _REC.open
    evt = FunctionEvent(len(prof._events), name, prof._now(),
                        (shapes if shapes is not None else _shapes(args))
                        if prof.record_shapes and not user else [], user)
    if stack:
        evt.cpu_parent = stack[-1]
        stack[-1].cpu_children.append(evt)
    stack.append(evt)
    prof._events.append(evt)
    return evt


def _end(evt: FunctionEvent | None) -> None:
    if evt is None or not _ACTIVE:
        return
    evt.end_us = _ACTIVE[-1]._now()
    stack = _REC.open
    if stack and stack[-1] is evt:
        stack.pop()


def _timed(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        stack = _REC.open
        if stack and stack[-1].name == name:  # a method that is the function itself
            return fn(*args, **kwargs)
        evt = _begin(name, args)
        try:
            return fn(*args, **kwargs)
        finally:
            _end(evt)

    return wrapper


def _aten_of_node(cls: type) -> str:
    """``AddmmBackward0`` -> ``aten::addmm``: the dispatcher op a graph node records."""
    stem = re.sub(r"Backward\d*$", "", cls.__name__)
    stem = re.sub(r"(\d)D", r"\1d", stem)
    return "aten::" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", stem).lower()


def _noted(record: Callable[..., Any]) -> Callable[..., Any]:
    """``tensor_ops.record`` that also lists the op its node stands for (``linear`` records
    an ``AddmmBackward0``, so the profile shows ``aten::addmm`` inside ``aten::linear``, as
    PyTorch's dispatcher does); the op already ran, so the event only counts."""

    @functools.wraps(record)
    def wrapper(cls: type, *rest: Any) -> Any:
        name = _aten_of_node(cls)
        stack = _REC.open
        if name.startswith("aten::") and not (stack and stack[-1].name == name):
            _end(_begin(name, rest[1] if len(rest) > 1 else ()))
        return record(cls, *rest)

    return wrapper


def _timed_backward(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(node: Node, grads: list[Any], ops: Any) -> Any:
        name = node.name()
        outer = _begin(f"autograd::engine::evaluate_function: {name}")
        inner = _begin(name, shapes=[[] if g is None else list(getattr(g, "shape", ()))
                                     for g in grads])
        try:
            return fn(node, grads, ops)
        finally:
            _end(inner)
            _end(outer)

    return wrapper


def _timed_apply(original: classmethod[Any, Any, Any]) -> classmethod[Any, Any, Any]:
    fn = original.__func__

    def apply(cls: type, *args: Any) -> Any:
        evt = _begin(cls.__name__, args)
        try:
            return fn(cls, *args)
        finally:
            _end(evt)

    return classmethod(functools.wraps(fn)(apply))


_DUNDERS = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
            "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
            "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div",
            "__itruediv__": "div_", "__floordiv__": "floor_divide", "__mod__": "remainder",
            "__matmul__": "matmul", "__rmatmul__": "matmul", "__pow__": "pow",
            "__rpow__": "pow", "__ipow__": "pow_", "__neg__": "neg", "__abs__": "abs",
            "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__eq__": "eq",
            "__ne__": "ne", "__and__": "bitwise_and", "__or__": "bitwise_or",
            "__xor__": "bitwise_xor", "__invert__": "bitwise_not", "__getitem__": "index",
            "__setitem__": "index_put_"}
_NOT_OPS = {"backward", "register_hook", "register_post_accumulate_grad_hook", "retain_grad",
            "size", "dim", "ndimension", "numel", "nelement", "element_size", "get_device",
            "is_floating_point", "is_inference", "is_complex", "tolist", "numpy", "item",
            "requires_grad_", "type", "data_ptr", "storage", "untyped_storage", "stride",
            "is_contiguous", "grad", "manual_seed", "seed", "initial_seed", "is_tensor",
            "is_grad_enabled", "is_inference_mode_enabled", "set_default_dtype",
            "get_default_dtype", "set_printoptions", "get_rng_state", "set_rng_state",
            "promote_types", "result_type", "save", "load", "compile", "typename",
            "set_default_device", "get_default_device", "use_deterministic_algorithms",
            "is_storage", "can_cast", "set_grad_enabled", "from_numpy", "is_nonzero"}
_ATEN_NAMES = {"cross_entropy": "cross_entropy_loss", "multiply": "mul", "subtract": "sub",
               "true_divide": "div", "divide": "div", "negative": "neg", "absolute": "abs"}


def _public_functions() -> dict[int, tuple[FunctionType, str]]:
    """The public op functions, by identity, with their ``aten::`` names."""
    found: dict[int, tuple[FunctionType, str]] = {}
    for modname in ("st_autodiff", "st_autodiff.nn.functional", "st_autodiff.linalg",
                    "st_autodiff.special", "st_autodiff.fft"):
        mod = sys.modules.get(modname)
        if mod is None:
            continue
        prefix = "aten::linalg_" if modname.endswith("linalg") else (
            "aten::special_" if modname.endswith("special") else (
                "aten::fft_" if modname.endswith("fft") else "aten::"))
        for attr, val in vars(mod).items():
            if (isinstance(val, FunctionType) and not attr.startswith("_")
                    and attr not in _NOT_OPS and id(val) not in found
                    and val.__module__.startswith("st_autodiff.runtime")):  # not the compiler's
                found[id(val)] = (val, prefix + _ATEN_NAMES.get(attr, attr))
    return found


class _Patches:
    """The wrappers installed while some profile is active (installed once, undone once)."""

    def __init__(self) -> None:
        self.undo: list[tuple[Any, str, Any]] = []

    def install(self) -> None:
        for name, fn in list(vars(Tensor).items()):
            if not isinstance(fn, FunctionType) or name in _NOT_OPS:
                continue
            if name.startswith("_") and name not in _DUNDERS:
                continue
            self._set(Tensor, name, _timed(fn, "aten::" + _DUNDERS.get(name, name)))
        public = _public_functions()
        wrappers = {key: _timed(fn, name) for key, (fn, name) in public.items()}
        for modname, mod in list(sys.modules.items()):
            if not modname.startswith("st_autodiff") or mod is None:
                continue
            for attr, val in list(vars(mod).items()):
                if isinstance(val, FunctionType) and id(val) in wrappers:
                    self._set(mod, attr, wrappers[id(val)])
        from . import tensor_ops  # noqa: PLC0415

        notes = {id(f): _noted(f) for f in (tensor_ops.record, tensor_ops.record_multi)}
        for modname, mod in list(sys.modules.items()):
            if modname.startswith("st_autodiff.runtime") and mod is not None:
                for attr, val in list(vars(mod).items()):
                    if id(val) in notes:
                        self._set(mod, attr, notes[id(val)])
        for cls in _node_classes():
            self._set(cls, "backward", _timed_backward(cls.__dict__["backward"]))
        autograd = sys.modules.get("st_autodiff.autograd")
        if autograd is not None:  # a custom Function's forward is a range named after it
            self._set(autograd.Function, "apply", _timed_apply(autograd.Function.__dict__["apply"]))

    def _set(self, owner: Any, attr: str, value: Any) -> None:
        # the raw entry (``vars``): a classmethod must come back as the classmethod
        self.undo.append((owner, attr, vars(owner)[attr]))
        setattr(owner, attr, value)

    def remove(self) -> None:
        for owner, attr, original in reversed(self.undo):
            setattr(owner, attr, original)
        self.undo.clear()


def _node_classes() -> Iterable[type]:
    seen: set[type] = set()
    todo = [Node]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return [c for c in [Node, *seen] if "backward" in c.__dict__]


_PATCHES = _Patches()
_LOCK = threading.Lock()


class ProfilerActivity(enum.Enum):
    """The devices a ``torch.profiler.profile`` records (only the CPU is timed here)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a ``schedule`` asks for at one step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0,
             skip_first: int = 0, skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """Step ``n`` -> action: skip ``skip_first``, then cycles of wait, warmup and active
    steps (``repeat`` cycles; 0 repeats forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      UserWarning, stacklevel=2)
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step = step - skip_first + (wait if skip_first_wait else 0)
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


class profile:  # noqa: N801  (spelled like torch.autograd.profiler.profile)
    """Time every op run inside ``with profile() as prof:``; then ``prof.key_averages()``."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False,
                 use_device: str | None = None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = True,
                 use_cpu: bool = True, experimental_config: Any = None,
                 acc_events: bool = False, custom_trace_id_callback: Any = None) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.use_device = "cuda" if use_cuda else use_device
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
        if self.use_device == "cuda":
            from .cuda import is_available

            if not is_available():
                warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
                self.use_device = None
        self.function_events: EventList | None = None
        self._events: list[FunctionEvent] = []
        self._recording = False
        self._running = False
        self._t0 = 0

    def _now(self) -> float:
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Begin recording (the ``with`` statement calls it)."""
        if not self.enabled or self._running:
            return
        with _LOCK:
            if not _ACTIVE:
                _PATCHES.install()
            _ACTIVE.append(self)
        self._running = True
        self._t0 = time.perf_counter_ns()
        self._events = []
        self._recording = self._records_now()

    def _records_now(self) -> bool:
        return True

    def stop(self) -> None:
        """End recording and build ``function_events``."""
        if not self._running:
            return
        self._running = False
        self._recording = False
        with _LOCK:
            if self in _ACTIVE:
                _ACTIVE.remove(self)
            if not _ACTIVE:
                _PATCHES.remove()
        self._finish()

    def _finish(self) -> None:
        _REC.open = [e for e in _REC.open if e not in self._events]
        self.function_events = EventList(sorted(self._events, key=lambda e: e.start_us))

    def _check_finish(self) -> EventList:
        """The finished events (empty before the profile ran or while it runs, as torch)."""
        return EventList() if self.function_events is None else self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """The events grouped by name (and input shapes), one ``FunctionEventAvg`` each."""
        return self._check_finish().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self._check_finish().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        return self._check_finish().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._check_finish().self_cpu_time_total

    def events(self) -> EventList:
        return self._check_finish()

    def export_chrome_trace(self, path: str) -> None:
        self._check_finish().export_chrome_trace(path)

    def __str__(self) -> str:
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def __repr__(self) -> str:
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)


class torch_profile(profile):  # noqa: N801
    """``torch.profiler.profile``: ``activities``, ``schedule`` with ``step()`` and
    ``on_trace_ready`` (called with the profile at the end of each active cycle)."""

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[[Any], Any] | None = None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None,
                 execution_trace_observer: Any = None, acc_events: bool = False,
                 use_cuda: bool | None = None) -> None:
        super().__init__(record_shapes=record_shapes)
        self.activities = set(activities) if activities else {ProfilerActivity.CPU}
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0

    def _action(self) -> ProfilerAction:
        if self.schedule is None:
            return ProfilerAction.RECORD
        return self.schedule(self.step_num)

    def _records_now(self) -> bool:
        return self._action() in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    def step(self) -> None:
        """Mark the end of a training step (drives the ``schedule``)."""
        if self.schedule is None:
            return
        finished = self._action()
        self.step_num += 1
        if finished == ProfilerAction.RECORD_AND_SAVE:
            self._finish()
            self._events = []
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        self._recording = self._running and self._records_now()

    def stop(self) -> None:
        if not self._running:
            return
        pending = self._recording and bool(self._events)
        last = self.function_events
        super().stop()
        if self.schedule is not None and not pending and last is not None:
            self.function_events = last  # keep the last saved cycle
            return
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)


class record_function(contextlib.ContextDecorator):  # noqa: N801
    """A named range in the profile: ``with record_function("name"):`` or a decorator."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._evt: list[FunctionEvent | None] = []

    def __enter__(self) -> record_function:
        self._evt.append(_begin(self.name, user=True))
        return self

    def __exit__(self, *exc: object) -> None:
        _end(self._evt.pop() if self._evt else None)
