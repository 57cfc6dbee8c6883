"""Pass 6, codegen: a joint graph -> readable Python source, its globals and a line map.

Input: a ``Graph`` (primal nodes first, then adjoint nodes, which carry a ``role``) and
the shape of the return value.  Output: ``Generated``.

The code calls NumPy directly through the global ``xp`` (NumPy or CuPy), and ``rt`` (the
runtime support module) only for what NumPy has no one-call spelling for.  Names are
deterministic: source names (``z``, then ``z_1`` if reassigned), adjoints ``z_bar``,
temporaries ``_t0``.  An unnamed value read once, on the same source line, is written
inline into its reader.  Each group of lines starts with a comment quoting the user's
source line.  Arrays are deleted after their last use to free memory early.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .. import trees
from ..ir.graph import Graph, Node, index_may_repeat, is_multi
from ..ir.names import Namespace
from ..ir.ops import OP_INFO, REQUIRED, Op, Spelling
from ..ir.regions import REGIONS
from ..trees_classes import Record, Static, source_call
from .codegen_regions import RegionWriter
from .effects import opaque_text
from .regions import ACCUMULATE
from .with_blocks import with_lines

_ATOM = 100
_PREC = {"**": 15, "@": 13, "*": 13, "/": 13, "//": 13, "%": 13, "+": 12, "-": 12,
         "==": 7, "!=": 7, "<": 7, "<=": 7, ">": 7, ">=": 7}
_UNARY = 14
_WIDTH = 92  # longest statement before subexpressions are split out
_MAX_INLINE = 48  # most nodes one statement's expression holds (well over _WIDTH's worth)


@dataclass
class Generated:
    """Generated source and the globals it needs (besides ``xp`` and ``rt``)."""

    name: str
    source: str
    globals: dict[str, Any] = field(default_factory=dict)
    line_map: dict[int, str] = field(default_factory=dict)  # generated line -> user loc


def generate(graph: Graph, returns: Any, name: str | None = None,
             defaults: dict[str, str] | None = None, functional: bool = False) -> Generated:
    """Write ``graph`` as a Python function; ``returns`` is a ``trees`` spec of output indices.

    ``functional=True`` writes code the compiler accepts again (for higher derivatives):
    no ``del``, no writes into arrays (scatters are ``rt.scatter_add``/``rt.index_add``).
    """
    return _Writer(graph, name or graph.name, defaults or {}, functional).write(returns)


def generate_split(graph: Graph, fwd_returns: Any, bwd_returns: Any, name: str,
                   defaults: dict[str, str] | None = None) -> tuple[Generated, Generated]:
    """Write ``graph`` as a forward function returning residuals and a backward function."""
    return _Writer(graph, name, defaults or {}).write_split(fwd_returns, bwd_returns)


def _maybe_number(n: Node) -> bool:
    """Whether ``n`` may hold a Python number at run time: a float or bool, or a 0-d seed
    argument (a region body's seed ``NAME_bar`` is typed like the output it seeds, but
    the ``out_bar=1.0`` that arrives from outside is a Python float)."""
    t = n.type
    if t is None:
        return False
    return t.kind in ("float", "bool") or (n.op is Op.ARG and t.kind == "array"
                                           and t.shape == () and (n.role == "seed" or str(
                                               n.name or "").endswith("_bar")))


class _Writer(RegionWriter):
    def __init__(self, graph: Graph, name: str, defaults: dict[str, str],
                 functional: bool = False, parent: _Writer | None = None,
                 private: frozenset[Node] = frozenset()) -> None:
        self.g = graph
        self.name = name
        self.defaults = defaults
        self.functional = functional
        self.parent = parent
        self.region_text: dict[Node, str] = {}
        self.users = graph.users()
        self.outputs = set(graph.outputs)
        self.ns: Namespace = Namespace("_t", {name}) if parent is None else parent.ns
        self.names: dict[Node, str] = {}
        self.globals: dict[str, Any] = {} if parent is None else parent.globals
        self.adjoint = self._sections()
        self.private = private  # body arguments the region owns (carried, never pushed)
        self.split = False  # NAME_bwd of write_split: its residuals outlive one call
        self.writes = {} if functional else self._writes_in_place()
        self.inline = self._bounded({n for n in graph.nodes if self._inlinable(n)})
        self.acc_add: set[Node] = set()
        self.in_place, self.chain_name = ({}, {}) if functional else self._in_place_chains()
        # user functions called through the globals
        self.fn_names: dict[Any, str] = {} if parent is None else parent.fn_names

    # --- decisions ----------------------------------------------------------------------

    def _sections(self) -> set[Node]:
        """Nodes of the adjoint sweep: rule outputs and everything that reads the seed."""
        adj: set[Node] = {a for a in self.g.args if a.role == "seed"}
        for n in self.g.nodes:
            if n.op is not Op.ARG and (n.role is not None or any(i in adj for i in n.inputs)):
                adj.add(n)
        return adj

    def _writes_in_place(self) -> dict[Node, Node]:
        """``a[i] = v`` and ``a[i] += v`` nodes that can write into ``a`` itself: nothing
        else reads ``a`` (not a later line, not the adjoint, not a stack) and ``a`` is ours
        to change (not an argument or a constant, unless a loop owns it)."""
        out: dict[Node, Node] = {}
        for n in self.g.nodes:
            if n.op is not Op.SETITEM and (n.op is not Op.INDEX_ADD or n.role is not None):
                continue
            x = n.inputs[0]
            if self.users[x] != [n] or x in self.outputs or x.op in MAY_SHARE:
                continue
            if x.op is Op.ARG and x not in self.private:
                continue
            if x.type is None or x.type.kind != "array" or x.type.shape == ():
                continue
            out[n] = x
        return out

    def _in_place_chains(self) -> tuple[dict[Node, Node], dict[Node, str | None]]:
        """``index_add`` nodes whose buffer (a fresh scatter or an earlier ``index_add``) has
        no other reader: they add into that buffer in place, under one name (the name of
        the chain's last node, e.g. ``c_bar``)."""
        in_place: dict[Node, Node] = {}
        self.acc_add = set()
        if self.parent is not None:  # a reverse loop's accumulators: add in place
            outs = list(self.g.outputs)
            for n in self.g.nodes:
                acc = n.inputs[0] if n.role == ACCUMULATE else None
                if acc is None or acc.op is not Op.ARG or self.users[acc] != [n] or \
                        outs.count(n) != 1:
                    continue
                if n.op is Op.INDEX_ADD:
                    in_place[n] = acc
                elif n.op is Op.ADD and acc.type is not None and acc.type.kind == "array":
                    self.acc_add.add(n)
        for n in self.g.nodes:
            buf = n.inputs[0] if n.op is Op.INDEX_ADD else None
            if buf is not None and buf.op in (Op.SCATTER_ADD, Op.INDEX_ADD) and \
                    len(self.users[buf]) == 1 and buf not in self.outputs:
                in_place[n] = buf
        chain_name: dict[Node, str | None] = {}
        for n in self.g.nodes:
            if n in in_place and n not in in_place.values():  # the last of a chain
                root = n
                while root in in_place:
                    root = in_place[root]
                chain_name[root] = n.name
        return in_place, chain_name

    def _inlinable(self, n: Node) -> bool:
        if n.op in (Op.ARG, Op.SCATTER_ADD, Op.INDEX_ADD, Op.SETITEM, Op.OPAQUE_CALL) or \
                n in self.outputs or is_multi(n):  # (a passed-through call: in program order)
            return False
        if n.op is Op.ITEM and n.inputs[0].op in REGIONS:
            return False  # a region's output: the variable the region assigned
        if n in self.writes.values():
            return False  # an array written in place needs its name
        if n.op is not Op.CONST and any(u.op in REGIONS for u in self.users[n]):
            return False  # read inside a region body: it needs a name
        if n.op is Op.CONST:
            return not _needs_global(n.param("value"))
        users = self.users[n]
        if n.name is not None or len(users) != 1:
            return False
        u = users[0]
        return (u in self.adjoint) == (n in self.adjoint) and _line(u) == _line(n)

    def _bounded(self, inline: set[Node]) -> set[Node]:
        """``inline`` less the values that would make one statement's expression tree
        larger than ``_MAX_INLINE`` nodes: in graph order, a node's largest inlined inputs
        are given names of their own until its tree fits.  This keeps every walk of an
        expression (``expr``, ``_hoist``) short and shallow however long the user's line
        is (a 1000-term sum on one line is 1000 nested additions)."""
        size: dict[Node, int] = {}
        for n in self.g.nodes:
            inner = [i for i in dict.fromkeys(n.inputs) if i in inline]
            total = 1 + sum(size.get(i, 1) for i in inner)
            inner.sort(key=lambda i: size.get(i, 1))
            while total > _MAX_INLINE and inner:
                big = inner.pop()
                inline.discard(big)
                total -= size.get(big, 1)
            size[n] = total
        return inline

    # --- expressions --------------------------------------------------------------------

    def ref(self, n: Node, prec: int = 0) -> str:
        """The text that reads ``n``, parenthesised for a context of precedence ``prec``."""
        if n in self.names:
            return self.names[n]
        text, p = self.expr(n)
        return f"({text})" if p < prec else text

    def const(self, n: Node) -> tuple[str, int]:
        v = n.param("value")
        if _needs_global(v):
            if n not in self.names:
                self.names[n] = self.ns.fresh(n.name or "_const")
                self.globals[self.names[n]] = v
            return self.names[n], _ATOM
        text = literal(v)
        return text, (_UNARY if text.startswith("-") else _ATOM)

    def expr(self, n: Node) -> tuple[str, int]:
        info = OP_INFO[n.op]
        sp = info.spelling
        ins = n.inputs
        if n.op is Op.CONST:
            return self.const(n)
        if sp is Spelling.INFIX:
            p = _PREC[cast(str, info.infix)]  # (an infix op has its symbol)
            right_assoc = info.infix == "**"
            chains = p == _PREC["<"]  # a < b < c chains in Python: (a < b) < c must not
            left = self.ref(ins[0], p + 1 if right_assoc or chains else p)
            right = self.ref(ins[1], p if right_assoc else p + 1)
            return f"{left} {info.infix} {right}", p
        if sp is Spelling.PREFIX:
            return f"{info.infix}{self.ref(ins[0], _UNARY)}", _UNARY
        if n.op is Op.ITEM:
            return f"{self.ref(ins[0], _ATOM)}[{n.param('index')}]", _ATOM
        if n.op is Op.TUPLE:
            items = [self.ref(i) for i in ins]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")", _ATOM
        if n.op is Op.SHAPE:
            t = ins[0].type
            if t is not None and t.kind == "array":
                return f"{self.ref(ins[0], _ATOM)}.shape", _ATOM
            return f"xp.shape({self.ref(ins[0])})", _ATOM
        if n.op is Op.GETITEM:
            index = _full_index(n.param("index"), ins[0].type, ins[1:])
            return f"{self.ref(ins[0], _ATOM)}[{self.index(index, ins[1:])}]", _ATOM
        if n.op in (Op.SCATTER_ADD, Op.INDEX_ADD):
            idx = self.index(n.param("index"), ins[2:], as_tuple=True)
            fn = "rt.scatter_add" if n.op is Op.SCATTER_ADD else "rt.index_add"
            return f"{fn}({self.ref(ins[0])}, {self.ref(ins[1])}, {idx})", _ATOM
        if n.op is Op.LIST:
            return "[" + ", ".join(self.ref(i) for i in ins) + "]", _ATOM
        if n.op is Op.LIST_GET:
            return f"{self.ref(ins[0], _ATOM)}[{self.ref(ins[1])}]", _ATOM
        if n.op is Op.LIST_REVERSE:
            return f"list(reversed({self.ref(ins[0])}))", _ATOM
        if n.op is Op.LIST_SLICE:
            return f"{self.ref(ins[0], _ATOM)}[{self.ref(ins[1])}:{self.ref(ins[2])}]", _ATOM
        if n.op is Op.LIST_LEN:
            return f"len({self.ref(ins[0])})", _ATOM
        if n.op is Op.LIST_CONCAT:
            return f"{self.ref(ins[0], 12)} + {self.ref(ins[1], 13)}", 12
        if n.op is Op.SETITEM:
            idx = self.index(n.param("index"), ins[2:], as_tuple=True)
            return f"rt.setitem({self.ref(ins[0])}, {self.ref(ins[1])}, {idx})", _ATOM
        if n.op in (Op.CALL, Op.CALL_VJP):  # a user function, reached through the globals
            fn = n.param("fn")
            name = self.fn_names.get(fn)
            if name is None:
                name = self.fn_names[fn] = self.ns.fresh(_global_name(fn))
                self.globals[name] = fn
            return f"{name}({', '.join(self.ref(i) for i in ins)})", _ATOM
        if n.op is Op.OPAQUE_CALL:  # print, a draw, a C function: as the user wrote it
            return opaque_text(self.ref, self._fn_name, n), _ATOM
        if n.op is Op.EINSUM:
            args = [repr(n.param("subscripts"))] + [self.ref(i) for i in ins]
            return f"xp.einsum({', '.join(args)})", _ATOM
        if self._is_matrix_transpose(n):
            return f"{self.ref(ins[0], _ATOM)}.T", _ATOM
        params = self.params(n)
        if sp is Spelling.METHOD:  # (backends, issue 15) xp.astype(x, ...): the array API
            # has no array methods; a Python number or an untyped value: xp.asarray first
            x = self.ref(ins[0])
            if ins[0].type is None or ins[0].type.kind in ("float", "int", "bool"):
                x = f"xp.asarray({x})"
            return f"xp.{info.numpy}({', '.join([x] + params)})", _ATOM
        assert info.numpy is not None  # (an op spelt as a call has its NumPy name)
        fn = info.numpy if info.numpy.startswith("rt.") else "xp." + info.numpy
        if n.op in (Op.MINIMUM, Op.MAXIMUM) and all(
                i.type is not None and i.type.kind == "int" for i in ins):
            # (backends, issue 15) two Python ints (zip's length): Python's min/max, an
            # int on every backend (cupy.minimum would make a device array of it)
            fn = "min" if n.op is Op.MINIMUM else "max"
        elif n.op is Op.WHERE and _maybe_number(ins[0]):
            # a Python condition (a guard on a constant: np.where(2.0 > 0, 2.0, 1)): CuPy
            # and the array API want an array there
            refs = [f"xp.asarray({self.ref(ins[0])})"] + [self.ref(i) for i in ins[1:]]
            return f"{fn}({', '.join(refs + params)})", _ATOM
        elif not info.elementwise and not fn.startswith("rt.") and info.numpy not in (
                "asarray", "array", "asanyarray", "ascontiguousarray") and any(
                name in ("x", "y") and _maybe_number(i) for name, i in zip(info.inputs, ins)):
            # a Python number where the function takes an array (np.sum(1.0),
            # np.tensordot(a, 2.0)): CuPy and the array API take arrays only
            refs = [f"xp.asarray({self.ref(i)})" if name in ("x", "y") and _maybe_number(i)
                    else self.ref(i) for name, i in zip(info.inputs, ins)] + [
                        self.ref(i) for i in ins[len(info.inputs):]]
            return f"{fn}({', '.join(refs + params)})", _ATOM
        if sp is Spelling.SEQCALL:
            seq = "(" + ", ".join(self.ref(i) for i in ins) + ("," if len(ins) == 1 else "")
            return f"{fn}({', '.join([seq + ')'] + params)})", _ATOM
        return f"{fn}({', '.join([self.ref(i) for i in ins] + params)})", _ATOM

    @staticmethod
    def _is_matrix_transpose(n: Node) -> bool:
        """``x.T``: a full transpose, or swapping the two axes of a matrix."""
        t = n.inputs[0].type if n.inputs else None
        if t is None or t.kind != "array":
            return False
        if n.op is Op.TRANSPOSE:  # (x.T of other ranks is not in the array API)
            return n.param("axes") is None and t.ndim == 2
        return n.op is Op.SWAPAXES and t.ndim == 2 and {n.param("axis1") % 2,
                                                         n.param("axis2") % 2} == {0, 1}

    def params(self, n: Node) -> list[str]:
        defaults = OP_INFO[n.op].param_defaults
        out: list[str] = []
        for k, v in n.params:
            if defaults.get(k) is not REQUIRED and _equal(v, defaults.get(k)):
                continue
            text = dtype_text(v) if k == "dtype" and v is not None else literal(v)
            if n.op is Op.ASTYPE and k == "dtype":
                out.insert(0, text)  # positional: x.astype(xp.float32, copy=False)
            else:
                out.append(f"{k}={text}")
        return out

    def index(self, index: tuple[Any, ...], dyn: tuple[Node, ...], as_tuple: bool = False) -> str:
        def part(e: Any, top: bool) -> str:
            if isinstance(e, tuple) and e:
                if e[0] == "in":
                    return self.ref(dyn[e[1]])
                if e[0] == "slice":
                    a, b, c = (None if x is None else part(x, False) for x in e[1:])
                    if as_tuple:
                        return f"slice({a}, {b}, {c})"
                    return f"{a or ''}:{b or ''}" + (f":{c}" if c else "")
                if e[0] == "list":
                    return repr([_plain_index(v) for v in e[1]])
            return "..." if e is Ellipsis else repr(_plain_index(e))

        parts = [part(e, True) for e in index]
        if as_tuple:
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        return ", ".join(parts) if parts else "()"

    # --- statements ---------------------------------------------------------------------

    def write(self, returns: Any) -> Generated:
        """One function: primal sweep, then adjoint sweep."""
        self._name_args()
        body = self._body(self._order(), set())
        return self._assemble(self.name, list(self.g.args), body, self.returns(returns))

    def write_split(self, fwd_returns: Any, bwd_returns: Any) -> tuple[Generated, Generated]:
        """Two functions: ``NAME_fwd(args) -> (outputs, residuals)`` runs the primal sweep
        and keeps what the adjoint reads; ``NAME_bwd(*residuals, out_bar)`` runs the
        adjoint sweep.  This is what a framework calls on forward and on backward."""
        self._name_args()
        self.split = True
        order = self._order()
        fwd = [n for n in order if n not in self.adjoint]
        bwd = [n for n in order if n in self.adjoint]
        returned = [self.g.outputs[i] for i in _flatten(bwd_returns)]
        residuals = self._residuals(bwd, returned)
        fbody = self._body(fwd, set(residuals))
        res = ", ".join(self.names[r] for r in residuals) + ("," if len(residuals) == 1 else "")
        primal_args = [a for a in self.g.args if a not in self.adjoint]
        seeds = [a for a in self.g.args if a in self.adjoint]
        f = self._assemble(self.name + "_fwd", primal_args, fbody,
                           f"{_paren(self.returns(fwd_returns), fwd_returns)}, ({res})")
        bbody = self._body(bwd, set())
        b = self._assemble(self.name + "_bwd", residuals + seeds, bbody,
                           self.returns(bwd_returns))
        return f, b

    def _name_args(self) -> None:
        for a in self.g.args:
            self.names[a] = self.ns.fresh(a.name)

    def _order(self) -> list[Node]:
        return [n for n in self.g.nodes if n.op not in (Op.ARG, Op.CONST) and n not in self.inline]

    def _residuals(self, bwd: list[Node], returned: list[Node]) -> list[Node]:
        """Values of the primal sweep (arguments included) that the adjoint sweep reads or
        returns."""
        found: list[Node] = [o for o in dict.fromkeys(returned)
                             if o.op is not Op.CONST and o not in self.adjoint]

        def visit(m: Node) -> None:
            for i in m.inputs:
                if i in self.inline:
                    visit(i)
                elif i.op is not Op.CONST and i not in self.adjoint and i not in found:
                    found.append(i)

        for m in bwd:
            visit(m)
        pos = {n: k for k, n in enumerate(self.g.nodes)}
        return sorted(found, key=pos.__getitem__)

    def _body(self, order: list[Node], keep: set[Node]) -> list[tuple[str, Node | None]]:
        body: list[tuple[str, Node | None]] = []
        last_use = self._last_uses(order)
        group: Any = None
        for pos, n in enumerate(order):
            if n.op is Op.ITEM and n.inputs[0].op in REGIONS:
                continue  # named by the region that assigned it
            section = n in self.adjoint
            key = (section, _line(n))
            if key != group:
                if section and (group is None or not group[0]):
                    body.append(("# adjoint", None))
                if n.loc is not None:
                    src = n.loc.text.strip()
                    body.append((f"# {n.loc.short()}  {src}".rstrip(), None))
                group = key
            if n in self.in_place:  # adds into its buffer: same array, same name
                self.names[n] = self.names[self.in_place[n]]
            elif n in self.acc_add or n in self.writes:
                self.names[n] = self.names[n.inputs[0]]
            else:
                self.names[n] = self.ns.fresh(self.chain_name.get(n, n.name))
            hoisted = self._hoist(n)
            body.extend((self.statement(m), m) for m in hoisted)
            body.append((self.statement(n), n))
            buffers = set(self.in_place.values()) | set(self.writes.values()) | {
                m.inputs[0] for m in self.acc_add}  # their name lives on in the result
            dead = [self.names[m] for m in hoisted + last_use.get(pos, [])
                    if m not in keep and m not in buffers and self._freeable(m)]
            if dead and not self.functional and self.parent is None:
                body.append(("del " + ", ".join(dead), None))
        return with_lines(body)

    def _assemble(self, name: str, params: list[Node], body: list[tuple[str, Node | None]],
                  returns: str) -> Generated:
        has = [a.op is Op.ARG and a.name in self.defaults for a in params]
        trailing = [all(has[k:]) for k in range(len(params))]  # Python: defaults come last
        sig = ", ".join(self.names[a] + (f"={self.defaults[cast(str, a.name)]}"
                                         if trailing[k] else "")
                        for k, a in enumerate(params))
        lines = [f"def {name}({sig}):"]
        line_map: dict[int, str] = {}
        for text, node in body + [("return " + returns, None)]:
            lines.append("    " + text)
            if node is not None and node.loc is not None:
                line_map[len(lines)] = str(node.loc)
        return Generated(name, "\n".join(lines) + "\n", self.globals, line_map)

    def _hoist(self, n: Node) -> list[Node]:
        """Inlined subexpressions of ``n`` to write as statements of their own, so that no
        line is longer than ``_WIDTH``; largest first, innermost statements first."""
        hoisted: list[Node] = []
        if n.op in REGIONS:
            return hoisted
        while len(self.statement(n)) > _WIDTH:
            inner = [m for m in self._inlined_under(n) if m.op is not Op.CONST]
            if not inner:
                break
            size = {m: len(self.expr(m)[0]) for m in inner}
            excess = len(self.statement(n)) - _WIDTH + 4  # a temporary's name costs ~4
            enough = [m for m in inner if size[m] >= excess]
            big = min(enough, key=size.__getitem__) if enough else max(inner, key=size.__getitem__)
            self.inline.discard(big)
            self.names[big] = self.ns.fresh(big.name)
            hoisted = [m for m in hoisted if m not in self._inlined_under(big)]
            hoisted += self._hoist(big) + [big]
        return hoisted

    def _inlined_under(self, n: Node) -> list[Node]:
        out: list[Node] = []
        for i in n.inputs:
            if i in self.inline and i not in self.names:
                out.append(i)
                out.extend(self._inlined_under(i))
        return out

    def statement(self, n: Node) -> str:
        target = self.names[n]
        if n in self.in_place or (n.op is Op.INDEX_ADD and n in self.writes):
            return self._add_in_place(n)
        if n in self.acc_add:
            return f"{target} += {self.ref(n.inputs[1])}"
        if n.op is Op.SETITEM and not self.functional:
            idx = self.index(_full_index(n.param("index"), n.inputs[0].type, n.inputs[2:]),
                             n.inputs[2:])
            write = f"{target}[{idx}] = {self.ref(n.inputs[1])}"
            if n in self.writes:
                return write
            return f"{target} = xp.copy({self.ref(n.inputs[0])})\n    {write}"
        if n.op in REGIONS:
            return self._region(n)
        if n.op is Op.SCATTER_ADD and not self.functional:
            plain = self._scatter_inline(n)
            if plain is not None:
                return plain
        self.names.pop(n)
        text, _ = self.expr(n)
        self.names[n] = target
        if n.op is Op.OPAQUE_CALL and n.param("block") == "enter":
            return f"with {text} as {target}:"  # the body follows (with_blocks.with_lines)
        if n.op is Op.OPAQUE_CALL and not self.users[n] and n not in self.outputs:
            return text  # print(...): a statement, its value unused
        return f"{target} = {text}"

    def _fn_name(self, fn: Any) -> str:
        """The global that names a passed-through callable in the generated code
        (``_print``, ``_normal``)."""
        key = id(fn)
        name = self.fn_names.get(key)
        if name is None:
            name = self.ns.fresh(_global_name(fn))
            self.fn_names[key] = name
            self.globals[name] = fn
        return name

    def _add_in_place(self, n: Node) -> str:
        """``c_bar[3] += g`` (or ``rt.index_add_`` when an index can repeat)."""
        buf, dyn = self.names[n], n.inputs[2:]
        g = self.ref(n.inputs[1])
        if not index_may_repeat(n.param("index"), dyn) and None not in n.param("index"):
            index = _full_index(n.param("index"), n.type, dyn)
            return f"{buf}[{self.index(index, dyn)}] += {g}"
        return f"{buf} = rt.index_add_({buf}, {self.index(n.param('index'), dyn, True)}, {g})"

    def _scatter_inline(self, n: Node) -> str | None:
        """``x_bar = xp.zeros(...); x_bar[idx] = g`` when no index can repeat."""
        dyn = n.inputs[2:]
        if n.type is None or n.type.dtype is None or n.inputs[0].op is not Op.CONST:
            return None
        if index_may_repeat(n.param("index"), dyn) or None in n.param("index"):
            return None  # x[[2, 2, 0]]: repeated indices must accumulate; x[:, None]:
            # the array API writes through no newaxis (rt.scatter_add drops it)
        target = self.names[n]
        shape = self.ref(n.inputs[0])
        idx = self.index(_full_index(n.param("index"), n.type, dyn), dyn)
        return (f"{target} = xp.zeros({shape}, dtype={dtype_text(n.type.dtype)})\n    "
                f"{target}[{idx}] = {self.ref(n.inputs[1])}")

    def returns(self, spec: Any) -> str:
        """The returned expression of a ``trees`` spec over the outputs: ``a, (b, c)``,
        ``[a, b]``, ``{'k': a}``."""
        if isinstance(spec, int):
            return self.ref(self.g.outputs[spec])
        if spec is None:
            return "None"
        if isinstance(spec, Record):  # a NamedTuple or dataclass output: its class's value
            return source_call(spec, [_paren(self.returns(s), s) for s in spec.children
                                      if not isinstance(s, Static)], self.globals,
                               self.ns.fresh("_st_record"))
        if type(spec) is dict:
            return "{" + ", ".join(f"{k!r}: {_paren(self.returns(s), s)}"
                                   for k, s in spec.items()) + "}"
        if type(spec) is list:
            return "[" + ", ".join(_paren(self.returns(s), s) for s in spec) + "]"
        inner = ", ".join(_paren(self.returns(s), s) for s in spec)
        return inner + ("," if len(spec) == 1 else "")

    def _last_uses(self, order: list[Node]) -> dict[int, list[Node]]:
        pos = {n: k for k, n in enumerate(order)}
        last: dict[Node, int] = {}

        def visit(reader: Node, k: int) -> None:
            for i in reader.inputs:
                if i in self.inline:
                    visit(i, k)
                elif i in pos or i.op is Op.ARG:
                    last[i] = max(last.get(i, -1), k)

        for k, n in enumerate(order):
            visit(n, k)
        out: dict[int, list[Node]] = {}
        for n, k in last.items():
            if n in pos and k > pos[n]:
                out.setdefault(k, []).append(n)
        return out

    def _freeable(self, n: Node) -> bool:
        t = n.type
        if n in self.outputs or n.op in (Op.ARG, Op.CONST) or n not in self.names:
            return False
        return t is None or t.kind == "array" and t.shape != ()


#: ops whose result may share memory with something else (a view, a read-only broadcast,
#: an item of a list or of a region's outputs, a constant, an input returned as it is):
#: never written in place
MAY_SHARE = frozenset({Op.CONST, Op.BROADCAST_TO, Op.GETITEM, Op.RESHAPE, Op.RAVEL,
                       Op.TRANSPOSE, Op.SWAPAXES, Op.MOVEAXIS, Op.EXPAND_DIMS, Op.SQUEEZE,
                       Op.DIAGONAL, Op.ASARRAY, Op.ITEM, Op.SPLIT, Op.LIST_GET,
                       Op.UNBROADCAST, Op.STOP_GRADIENT})  # these two may return x itself


def _flatten(spec: Any) -> list[int]:
    return trees.indices(spec)


def _paren(text: str, spec: Any) -> str:
    return f"({text})" if type(spec) is tuple else text


def _line(n: Node) -> Any:
    return None if n.loc is None else (n.loc.file, n.loc.line)


def _full_index(index: tuple[Any, ...], t: Any, dyn: tuple[Any, ...] = ()) -> tuple[Any, ...]:
    """``index`` with a trailing ``...`` when it names fewer axes than the array has
    (``x[0]`` of a matrix is ``x[0, ...]``): the same in NumPy, and what the array API
    requires (backends, issue 15)."""
    if t is None or t.kind != "array" or t.ndim is None or any(e is Ellipsis for e in index):
        return index
    named = 0
    for e in index:
        if e is None:
            continue
        if isinstance(e, tuple) and e and e[0] == "in":
            et = dyn[e[1]].type if e[1] < len(dyn) else None
            if et is None or et.kind == "array" and (et.dtype in (None, "bool")):
                return index  # (a boolean mask names as many axes as it has)
            if et.kind not in ("int", "array"):
                return index
        elif isinstance(e, (bool, np.bool_)) or isinstance(e, tuple) and e and \
                e[0] == "list":
            return index
        named += 1
    return index + (Ellipsis,) if 0 < named < t.ndim else index


def _needs_global(v: Any) -> bool:
    if v is None or isinstance(v, (bool, int, str)) or v is Ellipsis:
        return False
    if isinstance(v, float) and not isinstance(v, np.generic):
        return False  # (a NumPy scalar is a global: bound as an array of other backends)
    if isinstance(v, tuple):
        return any(_needs_global(x) for x in v)
    return True


def _equal(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return False


def _plain_index(v: Any) -> Any:
    """A NumPy integer in an index as the Python int it indexes as (``a[np.int64(3)]`` is
    ``a[3]``): generated code has no ``np``."""
    return int(v) if isinstance(v, np.integer) else bool(v) if isinstance(v, np.bool_) else v


def literal(v: Any) -> str:
    """Python source for a constant (floats keep their weak Python type)."""
    if isinstance(v, float) and type(v) is not float and hasattr(v, "dtype"):
        return f"xp.{v.dtype.name}({literal(float(v))})"  # np.float64 keeps its strong type
    if isinstance(v, float):
        if math.isinf(v):
            return "xp.inf" if v > 0 else "-xp.inf"
        if math.isnan(v):
            return "xp.nan"
        return repr(v)
    if v is Ellipsis:
        return "..."
    if isinstance(v, (np.integer, np.bool_, np.floating)):  # a NumPy scalar folded
        return f"xp.{v.dtype.name}({v.item()!r})"
    if isinstance(v, tuple):
        items = [literal(x) for x in v]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":  # a static array in a param
        text = f"xp.asarray({_nested(v.tolist())}, dtype={dtype_text(v.dtype.name)})"
        return text if v.size else f"{text}.reshape({v.shape!r})"
    return repr(v)


def _nested(v: Any) -> str:
    """A (nested) list of Python numbers as source, ``inf``/``nan`` included."""
    if isinstance(v, list):
        return "[" + ", ".join(_nested(x) for x in v) + "]"
    return literal(v)


def _global_name(fn: Any) -> str:
    """``_name`` for the global that holds ``fn`` in generated code, an identifier even
    where ``fn.__name__`` is not one (``np.frompyfunc(sq, 1, 1)`` is "sq (vectorized)",
    which generated ``_sq (vectorized)(x)``)."""
    base = getattr(fn, "__name__", None) or type(fn).__name__
    if not isinstance(base, str):
        base = type(fn).__name__
    return "_" + (re.sub(r"\W+", "_", base.strip("<>").lower()).strip("_") or "fn")


def dtype_text(name: Any) -> str:
    """A dtype in generated code: ``xp.float32``, or the builtin ``object`` (NumPy 2 has
    no ``np.object``)."""
    return "object" if name == "object" else f"xp.{name}"
