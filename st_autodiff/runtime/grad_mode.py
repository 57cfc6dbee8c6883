"""Grad modes: whether ops are recorded for backward, per thread.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` switch the
calling thread's mode; each is a context manager and a decorator (with or without
parentheses, on plain functions and on generator functions, whose every step then runs
in the mode).  A new thread starts with grad mode on and inference mode off, as in
PyTorch.  The state lives in a ``threading.local`` that the op recorder reads on every
op, so reading it is kept to one attribute access (``STATE.enabled``).
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
    "no_grad", "set_grad_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    """Per-thread mode flags (class attributes are each new thread's initial values)."""

    enabled: bool = True
    inference: bool = False


STATE = _State()


def is_grad_enabled() -> bool:
    """True when ops on tensors that require grad are recorded (the default)."""
    return STATE.enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return STATE.inference


class _ModeContext:
    """Base of the modes: ``_enter`` sets the flags, ``__exit__`` restores them.

    Used as a decorator, a fresh copy of the mode wraps every call, so one decorated
    function can be re-entered and called from several threads.
    """

    def _enter(self) -> None:
        raise NotImplementedError

    def clone(self) -> _ModeContext:
        """A new manager with the same settings (one per decorated call)."""
        return self.__class__()

    def __enter__(self) -> None:
        self._saved = (STATE.enabled, STATE.inference)
        self._enter()

    def __exit__(self, *exc: object) -> None:
        STATE.enabled, STATE.inference = self._saved

    def __call__(self, fn: F) -> F:
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return run  # type: ignore[return-value]

    def _wrap_generator(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                gen = fn(*args, **kwargs)
            sent: Any = None
            while True:
                try:
                    with self.clone():
                        item = gen.send(sent)
                except StopIteration as stop:
                    return stop.value
                try:
                    sent = yield item
                except GeneratorExit:
                    with self.clone():
                        gen.close()
                    raise

        return run


class _BareDecorator(_ModeContext):
    """A mode that may decorate without parentheses: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:
        self = super().__new__(cls)
        if func is None:
            return self
        cls.__init__(self)
        return self(func)


class no_grad(_BareDecorator):  # noqa: N801  (spelled like torch.no_grad)
    """Do not record ops: results of ops have ``requires_grad=False``.

    >>> import st_autodiff as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def _enter(self) -> None:
        STATE.enabled = False


class enable_grad(_BareDecorator):  # noqa: N801
    """Record ops again, e.g. inside a ``no_grad`` block."""

    def _enter(self) -> None:
        STATE.enabled = True


class set_grad_enabled(_ModeContext):  # noqa: N801
    """Set grad mode to ``mode``: at once when called, and back on leaving a ``with``.

    ``torch.set_grad_enabled(False)`` on its own line switches recording off for the
    thread, like PyTorch; as a context manager or decorator it restores the previous mode.
    """

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._before = (STATE.enabled, STATE.inference)
        STATE.enabled = self.mode

    def clone(self) -> set_grad_enabled:
        prev = STATE.enabled
        twin = set_grad_enabled(self.mode)
        STATE.enabled = prev
        return twin

    def __enter__(self) -> None:
        self._saved = self._before
        STATE.enabled = self.mode

    def __call__(self, fn: F) -> F:
        STATE.enabled = self._before[0]  # decorating must not change the caller's mode
        return super().__call__(fn)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class inference_mode(_ModeContext):  # noqa: N801
    """No recording and no version tracking: tensors created inside are inference tensors.

    ``inference_mode(False)`` leaves the mode (grad mode is then on).  An inference
    tensor cannot later be saved for backward or updated in place outside the mode.
    """

    def __new__(cls, mode: Any = True) -> Any:
        self = super().__new__(cls)
        if isinstance(mode, bool):
            return self
        cls.__init__(self, True)
        return self(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)

    def _enter(self) -> None:
        STATE.inference = self.mode
        STATE.enabled = not self.mode
