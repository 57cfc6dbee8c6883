"""``st_autodiff.profiler``: PyTorch's ``torch.profiler`` (part "autograd", issue 12).

>>> import st_autodiff as torch
>>> with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
...     y = torch.ones(3) * 2
>>> prof.key_averages()[0].key
'aten::ones'
"""

from __future__ import annotations

from .runtime.profiler import (
    EventList,
    FunctionEvent,
    FunctionEventAvg,
    ProfilerAction,
    ProfilerActivity,
    record_function,
    schedule,
)
from .runtime.profiler import torch_profile as profile

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction",
           "ProfilerActivity", "profile", "record_function", "schedule"]
