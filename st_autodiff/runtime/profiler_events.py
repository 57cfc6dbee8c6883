"""The profiler's events and PyTorch's summary table (part "autograd", issue 12).

``FunctionEvent`` is one timed range (start and end in microseconds since the profile
started, children nested inside it); ``FunctionEventAvg`` sums the events of one key;
``EventList.table`` lays them out as ``torch.autograd.profiler_util`` prints them: a
name column as wide as the longest key plus 4 (at most 55), 12-wide right-aligned number
columns separated by two spaces, percentages of the summed self CPU time, times in
us/ms/s with three decimals.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


class FunctionEvent:
    """One timed range: an op call, a node's backward or a ``record_function`` block."""

    def __init__(self, id: int, name: str, start_us: float, input_shapes: list[Any],
                 is_user_annotation: bool = False) -> None:
        self.id = id
        self.name = self.key = name
        self.start_us = start_us
        self.end_us = start_us
        self.input_shapes = input_shapes
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.is_user_annotation = is_user_annotation
        self.count = 1
        self.node_id = -1
        self.device_time_total = self.self_device_time_total = 0.0
        self.thread = threading.get_ident()

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    cpu_time = cpu_time_total

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time="
                f"{_format_time(self.cpu_time_total)} start_us={self.start_us:.3f} end_us="
                f"{self.end_us:.3f} cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one key summed (``count`` calls)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes: Any = None
        self.is_user_annotation = False
        self.node_id = -1
        self.device_time_total = self.self_device_time_total = 0.0

    def add(self, other: Any) -> FunctionEventAvg:
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time="
                f"{_format_time(self.self_cpu_time_total)} cpu_time="
                f"{_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


def _time_str(attr: str) -> property:
    """A property showing the time ``attr`` as text."""
    return property(lambda self: _format_time(getattr(self, attr)))


for _attr in ("cpu_time_total", "self_cpu_time_total", "cpu_time"):
    for _cls in (FunctionEvent, FunctionEventAvg):
        setattr(_cls, _attr + "_str", _time_str(_attr))


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _share(us: float, total: float) -> str:
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


class EventList(list[Any]):
    """A list of events with PyTorch's summaries (``key_averages``, ``table``)."""

    def key_averages(self, group_by_input_shapes: bool = False,
                     group_by_stack_n: int = 0) -> EventList:
        stats: dict[tuple[Any, ...], FunctionEventAvg] = {}
        for evt in self:
            key = (evt.key, str(evt.input_shapes)) if group_by_input_shapes else (evt.key,)
            stats.setdefault(key, FunctionEventAvg()).add(evt)
        out = EventList(stats.values())
        if not group_by_input_shapes:
            for avg in out:
                avg.input_shapes = ""
        return out

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for evt in self:
            total.count += evt.count
            total.cpu_time_total += evt.cpu_time_total
            total.self_cpu_time_total += evt.self_cpu_time_total
        total.key = "Total"
        return total

    @property
    def self_cpu_time_total(self) -> float:
        total: float = sum(e.self_cpu_time_total for e in self)
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """The summary table, laid out as PyTorch prints it."""
        return _table(self, sort_by, row_limit, max_name_column_width,
                      max_shapes_column_width, header, top_level_events_only, time_unit)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``) JSON file."""
        import json

        trace = [{"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total,
                  "tid": e.thread, "pid": "CPU functions", "args": {}}
                 for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": trace}, f)


def _unit(us: float, default: str, unit: str | None) -> str:
    if unit == "s":
        return f"{us / 1e6:.3f}s"
    if unit == "ms":
        return f"{us / 1e3:.3f}ms"
    if unit == "us":
        return f"{us:.3f}us"
    return default


def _table(events: list[Any], sort_by: str | None, row_limit: int, max_name: int | None,
           max_shapes: int | None, header: str | None, top_only: bool,
           unit: str | None) -> str:
    if not events:
        return ""
    has_shapes = any(e.input_shapes for e in events)
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by.replace("cuda", "device")),
                        reverse=True)
    name_w = max(len(e.key) for e in events) + 4
    if max_name is not None:
        name_w = min(name_w, max_name)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes is not None:
        shapes_w = min(shapes_w, max_shapes)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
               "# of Calls"]
    widths = [name_w] + [12] * 6
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_w)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2
    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [sep, row_format.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_only and getattr(e, "cpu_parent", None) is not None:
            continue
        shown += 1
        name = e.key
        if max_name is not None and len(name) >= max_name - 3:
            name = name[:max_name - 3] + "..."
        row = [name, _share(e.self_cpu_time_total, total),
               _unit(e.self_cpu_time_total, _format_time(e.self_cpu_time_total), unit),
               _share(e.cpu_time_total, total),
               _unit(e.cpu_time_total, _format_time(e.cpu_time_total), unit),
               _unit(e.cpu_time, _format_time(e.cpu_time), unit), e.count]
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        lines.append(row_format.format(*row))
    lines += [sep, f"Self CPU time total: {_unit(total, _format_time(total), unit)}"]
    return "".join(line + "\n" for line in lines)
