"""``LRScheduler``: the shared machinery of PyTorch's learning-rate schedules.

A scheduler remembers each group's starting rate (``initial_lr``, ``base_lrs``) and counts
epochs in ``last_epoch``.  Building one takes the first step (``last_epoch`` becomes 0);
each ``step()`` then computes new rates with the subclass's ``get_lr`` (usually the
"chainable" form, which scales the groups' current rates, as PyTorch does: the same float
operations give the same bits) and writes them into the optimizer.  ``step(epoch)`` uses
the closed form where a schedule has one.  As in PyTorch, the optimizer's ``step`` is
wrapped so that calling ``scheduler.step()`` before any ``optimizer.step()`` warns.
"""

from __future__ import annotations

import warnings
from functools import wraps
from typing import Any
from weakref import ref

from ..optimizer import Optimizer

__all__ = ["EPOCH_DEPRECATION_WARNING", "LRScheduler", "current_lrs", "set_lr"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")

_DOCS = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


def current_lrs(optimizer: Optimizer, key: str = "lr") -> list[Any]:
    """Every group's ``key`` setting (tensors copied)."""
    return [g[key].clone() if hasattr(g[key], "clone") else g[key]
            for g in optimizer.param_groups]


def set_lr(group: dict[str, Any], value: Any, key: str = "lr") -> None:
    """Store ``value`` as the group's ``key`` (filling a tensor setting in place)."""
    if hasattr(group[key], "fill_"):
        group[key].fill_(float(value))
    else:
        group[key] = value


def _track_optimizer_steps(scheduler: LRScheduler, optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` once so that it records ``_opt_called``."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(optimizer)
    func = optimizer.step.__func__  # type: ignore[attr-defined]

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = opt_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


class LRScheduler:
    """Base class of the schedules (see the module docstring)."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                lr = group["lr"]
                group.setdefault("initial_lr", lr.clone() if hasattr(lr, "clone") else lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        "when:\n1. You're trying to resume training from a checkpoint but "
                        "haven't properly loaded the optimizer state\n2. You're using "
                        "last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs: list[Any] = current_lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(self, optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and take the first step (``last_epoch`` -1 -> 0)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[Any]:
        """The rates for the current ``last_epoch`` (defined by each schedule)."""
        raise NotImplementedError

    def _check_inside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=3)

    def get_last_lr(self) -> list[Any]:
        """The rates set by the latest step, one per parameter group."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated) and update the rates."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    f"before `lr_scheduler.step()`. See more details at {_DOCS}",
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    f"schedule. See more details at {_DOCS}", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            set_lr(group, lr)
        self._last_lr: list[Any] = current_lrs(self.optimizer)

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore attributes saved by ``state_dict``."""
        self.__dict__.update(state_dict)
