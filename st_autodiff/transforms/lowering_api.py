"""What the lowering mixins may use of one another, for the type checker.

``lower.Lowerer`` is assembled from mixins (``ControlLowering``, ``ExpressionLowering``,
``WriteLowering``, ...), and each mixin calls methods and reads state that another one
(or ``Lowerer`` itself) defines.  ``LowererAPI`` declares that shared part: its state and
the signatures of the methods used across mixins.  Each mixin derives from it only while
type checking (``if TYPE_CHECKING``; ``object`` at run time), so nothing here runs: the
real definitions stay where they are, and mypy checks every mixin against this list and
``Lowerer`` against all of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import types

    import libcst as cst

    from ..errors import CompileError
    from ..ir.graph import GraphBuilder, Loc, Node
    from ..ir.ops import Op
    from .aliasing import _Write
    from .external import ExternalObjects
    from .generators import GeneratorValue
    from .guards import Guards
    from .lists import Appender, TupleList
    from .objects import Built
    from .parse import ParsedFunction
    from .scope import Scope


class LowererAPI(Protocol):
    """The state and methods of ``lower.Lowerer`` that its mixins share."""

    # --- state (``Lowerer.__init__``) -------------------------------------------------
    b: GraphBuilder
    fn_stack: list[ParsedFunction]
    code_stack: list[Any]
    active_scopes: list[Scope]
    external: ExternalObjects
    guards: Guards
    region_depth: int
    main_builder: GraphBuilder | None
    maybe_none: set[Node]

    # --- lower.Lowerer ----------------------------------------------------------------
    @property
    def fn(self) -> ParsedFunction: ...

    def loc(self, node: cst.CSTNode) -> Loc: ...

    def fail(self, message: str, node: cst.CSTNode, hint: str | None = None,
             kind: type[CompileError] = ...) -> CompileError: ...

    def const_of_global(self, name: str, value: Any) -> Any: ...

    def static_attribute(self, base: Any, attr: str) -> Any: ...

    def emit(self, op: Op, inputs: list[Any], params: dict[str, Any] | None,
             where: cst.CSTNode) -> Node: ...

    def to_node(self, v: Any, where: cst.CSTNode) -> Node: ...

    def define(self, stmt: cst.FunctionDef, scope: Scope) -> None: ...

    def statement(self, s: Any, scope: Scope) -> Any: ...

    def assign(self, target: cst.BaseExpression, value: Any, scope: Scope) -> None: ...

    def unpack(self, value: Any, n: int, where: cst.CSTNode) -> list[Any]: ...

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any: ...

    def inline_python(self, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any],
                      where: cst.CSTNode) -> Any: ...

    def lower_function(self, fn: ParsedFunction, args: list[Any], kwargs: dict[str, Any],
                       scope: Scope, where: cst.CSTNode | None) -> Any: ...

    # --- control.ControlLowering ------------------------------------------------------
    def run_stmts(self, stmts: Any, scope: Scope) -> None: ...

    def compound(self, stmt: Any, scope: Scope) -> None: ...

    def branch(self, cond: Node, then_fn: Callable[[Scope], None],
               else_fn: Callable[[Scope], None] | None, scope: Scope,
               where: cst.CSTNode) -> None: ...

    def may_be_none(self, v: Any) -> bool: ...

    def guarded(self, stopped: Node, fn: Callable[[Scope], None], scope: Scope,
                where: cst.CSTNode) -> None: ...

    def flow_state(self, scope: Scope, where: cst.CSTNode) -> Any: ...

    @staticmethod
    def suite(block: Any) -> list[Any]: ...

    def example(self, v: Any) -> Any: ...

    def condition(self, v: Any, where: cst.CSTNode) -> Any: ...

    def building(self, sub: GraphBuilder) -> Any: ...

    def finish_region(self, sub: GraphBuilder, outputs: list[Node], args: list[Node]
                      ) -> Any: ...

    # --- loops.LoopLowering ----------------------------------------------------------
    def for_items(self, stmt: cst.For, it: Any, scope: Scope) -> None: ...

    def tuple_items(self, it: Any, where: cst.CSTNode) -> Any: ...

    def streams(self, it: Any, where: cst.CSTNode) -> list[tuple[Any, ...]] | None: ...

    # --- binding.BindingLowering --------------------------------------------------------
    def call_arguments(self, e: cst.Call, scope: Scope) -> tuple[list[Any], dict[str, Any]]:
        ...

    def star_items(self, v: Any, where: cst.CSTNode) -> list[Any]: ...

    # --- expressions.ExpressionLowering -----------------------------------------------
    def expr(self, e: cst.BaseExpression, scope: Scope) -> Any: ...

    def name(self, e: cst.Name, scope: Scope) -> Any: ...

    def binary(self, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any: ...

    def logical(self, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any: ...

    def index_spec(self, parts: Any, e: cst.CSTNode) -> tuple[tuple[Any, ...], list[Node]]:
        ...

    def index_part(self, el: cst.SubscriptElement, scope: Scope) -> Any: ...

    # --- writes.WriteLowering and aliasing.LoopAliasing -------------------------------
    def note_carried(self, arg: Node, before: Node | None) -> None: ...

    def check_loop_aliases(self, sub: Any, slots: list[tuple[str, Any]], args: list[Node],
                           outs: list[Node], sites: list[tuple[str, Node]], mark: int
                           ) -> None: ...

    def check_list_unshared(self, name: str, lst: Any, scope: Scope, where: Any,
                            update: str | None = None) -> None: ...

    def check_container_unshared(self, name: str, value: Any, scope: Scope,
                                 where: Any, region: str = "loop") -> None: ...

    def _write_log(self) -> list[_Write]: ...

    def _line_of(self, listed: str, sc: Scope) -> str: ...

    def _parents(self, n: Node) -> tuple[Node, ...]: ...

    def _same_frame(self, sc: Scope, scope: Scope) -> bool: ...

    def _whose(self, sc: Scope, scope: Scope) -> str: ...

    # --- lists.ListLowering -----------------------------------------------------------
    def appended_last(self, app: Appender, index: Any, scope: Scope, where: cst.CSTNode
                      ) -> Any: ...

    def last_slots(self, body: list[Any], appended: list[str], before: dict[str, Any],
                   where: cst.CSTNode) -> list[str]: ...

    def append_sites(self, sc: Scope, name: str, sub: GraphBuilder, ys: list[Node],
                     where: cst.CSTNode
                     ) -> tuple[int | None, list[tuple[list[int], int | None]]]: ...

    def gathered(self, node: Node, n_slots: int,
                 sites: tuple[int | None, list[tuple[list[int], int | None]]],
                 prefix: Any, where: cst.CSTNode) -> Any: ...

    def tuple_list_item(self, lst: TupleList, index: Any, e: cst.CSTNode
                        ) -> tuple[Any, ...]: ...

    # --- generators.GeneratorLowering and comprehensions.ComprehensionLowering --------
    def generator_items(self, it: Any, where: cst.CSTNode) -> Any: ...

    def consume_generator(self, gen: GeneratorValue, where: cst.CSTNode, direct: bool
                          ) -> Any: ...

    def for_generator(self, stmt: cst.For, gen: GeneratorValue, scope: Scope) -> None: ...

    def generator_call(self, fn: Any, args: list[Any], kwargs: dict[str, Any],
                       e: cst.Call) -> Any: ...

    def comprehension(self, e: Any, scope: Scope) -> Any: ...

    def _static_items(self, it: Any, where: cst.CSTNode) -> list[Any] | None: ...

    def dict_view(self, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call
                  ) -> Any: ...

    # --- objects.ObjectLowering -------------------------------------------------------
    def built_of(self, obj: Any) -> Built | None: ...

    def object_attribute(self, base: Any, attr: str, e: cst.CSTNode) -> Any: ...
