"""The order in which C++'s ``std::sort`` (libstdc++'s introsort) leaves a sequence: the
order PyTorch's CPU ``sort`` gives equal elements when ``stable`` is not asked for.

libstdc++ sorts in three stages: an introsort loop that partitions around the median of
three elements until the pieces have at most 16 elements (falling back to heapsort after
``2 * floor(log2(n))`` levels), then one insertion sort over the whole range.  Partitioning
moves equal elements past each other, so for sequences longer than 16 with ties the order
of equal elements is neither the original one nor simple to predict; this module replays
the algorithm step by step on indices.  It is pure Python: callers use it only where the
result can differ from a stable sort (a row longer than 16 with equal elements).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["std_nth_element_order", "std_partial_sort_order", "std_sort_order"]

_THRESHOLD = 16


def std_sort_order(keys: list[Any], less: Callable[[Any, Any], bool]) -> list[int]:
    """The original positions of ``keys`` in the order ``std::sort(..., less)`` leaves
    them."""
    return _Sorter(keys, less).run()


def std_nth_element_order(keys: list[Any], nth: int, less: Callable[[Any, Any], bool]) -> list[int]:
    """The positions in the order ``std::nth_element(first, first + nth, last, less)``
    leaves them (introselect: the element at ``nth`` is where a full sort would put it)."""
    sorter = _Sorter(keys, less)
    sorter.nth_element(nth)
    return sorter.a


def std_partial_sort_order(keys: list[Any], middle: int, less: Callable[[Any, Any], bool]
                           ) -> list[int]:
    """The positions in the order ``std::partial_sort(first, first + middle, last, less)``
    leaves them (heap selection, then the heap sorted)."""
    sorter = _Sorter(keys, less)
    sorter.heap_select(0, middle, len(keys))
    sorter.sort_heap(0, middle)
    return sorter.a


def std_sort_range(order: list[Any], keys: list[Any], first: int, last: int,
                   less: Callable[[Any, Any], bool]) -> list[int]:
    """``order`` with ``std::sort`` run over ``order[first:last]``."""
    sorter = _Sorter(keys, less)
    sorter.a = list(order)
    sorter.sort(first, last)
    return sorter.a


class _Sorter:
    """One run of the algorithm over ``self.a``, a list of positions into ``keys``."""

    def __init__(self, keys: list[Any], less: Callable[[Any, Any], bool]) -> None:
        self.a = list(range(len(keys)))
        self.keys = keys
        self.less = less

    def lt(self, i: int, j: int) -> bool:
        return self.less(self.keys[i], self.keys[j])

    def run(self) -> list[int]:
        self.sort(0, len(self.a))
        return self.a

    def sort(self, first: int, last: int) -> None:
        n = last - first
        if n > 1:
            self.introsort(first, last, 2 * int(math.floor(math.log2(n))))
            if n > _THRESHOLD:
                self.insertion_sort(first, first + _THRESHOLD)
                for i in range(first + _THRESHOLD, last):
                    self.linear_insert(i)
            else:
                self.insertion_sort(first, last)

    def partition_pivot(self, first: int, last: int) -> int:
        """Median of three moved to ``first``, then an unguarded partition around it."""
        a = self.a
        self.median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        lo, hi = first + 1, last
        while True:
            while self.lt(a[lo], a[first]):
                lo += 1
            hi -= 1
            while self.lt(a[first], a[hi]):
                hi -= 1
            if not lo < hi:
                return lo
            a[lo], a[hi] = a[hi], a[lo]
            lo += 1

    def nth_element(self, nth: int) -> None:
        first, last = 0, len(self.a)
        if first == last or nth == last:
            return
        depth = 2 * int(math.floor(math.log2(last - first)))
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self.a[first], self.a[nth] = self.a[nth], self.a[first]
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)

    def heap_select(self, first: int, middle: int, last: int) -> None:
        a = self.a
        length = middle - first
        if length >= 2:
            for parent in range((length - 2) // 2, -1, -1):
                self.adjust_heap(first, parent, length, a[first + parent])
        for i in range(middle, last):
            if self.lt(a[i], a[first]):
                value = a[i]
                a[i] = a[first]
                self.adjust_heap(first, 0, length, value)

    def sort_heap(self, first: int, last: int) -> None:
        a = self.a
        while last - first > 1:
            last -= 1
            value = a[last]
            a[last] = a[first]
            self.adjust_heap(first, 0, last - first, value)

    def introsort(self, first: int, last: int, depth: int) -> None:
        while last - first > _THRESHOLD:
            if depth == 0:
                self.heap_select(first, last, last)
                self.sort_heap(first, last)
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            self.introsort(cut, last, depth)
            last = cut

    def median_to_first(self, result: int, x: int, y: int, z: int) -> None:
        a, lt = self.a, self.lt
        if lt(a[x], a[y]):
            pick = y if lt(a[y], a[z]) else (z if lt(a[x], a[z]) else x)
        elif lt(a[x], a[z]):
            pick = x
        else:
            pick = z if lt(a[y], a[z]) else y
        a[result], a[pick] = a[pick], a[result]

    def insertion_sort(self, first: int, last: int) -> None:
        a = self.a
        for i in range(first + 1, last):
            if self.lt(a[i], a[first]):
                a[first:i + 1] = [a[i]] + a[first:i]
            else:
                self.linear_insert(i)

    def linear_insert(self, last: int) -> None:
        a = self.a
        val = a[last]
        while self.lt(val, a[last - 1]):
            a[last] = a[last - 1]
            last -= 1
        a[last] = val

    def adjust_heap(self, first: int, hole: int, length: int, value: int) -> None:
        a, lt = self.a, self.lt
        top = child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if lt(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and lt(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value
