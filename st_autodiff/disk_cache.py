"""An opt-in disk cache of generated code, so that a new process does not compile again.

Enabled by ``st.config.cache_dir = path`` (or ``ST_AUTODIFF_CACHE_DIR``).  One file per
specialisation, named by a SHA-256 of everything that decides the generated code: the
function's source text and bytecode, its module and name, the mode, ``wrt``, the
options, the static/dynamic argument spec, the specialisation key (argument kinds), the
array backend, and the versions of st_autodiff (a hash of its own source files),
NumPy and Python.  The file holds the generated source of each function (forward and
backward for ``vjp``), a recipe for its globals, and a recipe for its guards.

Only what can be rebuilt safely is persisted:

* guards on globals (of imported modules), names that fell through to the builtins,
  closure cells of the differentiated function, and inlined functions (found again by
  module and qualified name, and required to have the same source and bytecode);
  each guarded value is checked on load (numbers and strings by value, arrays by dtype
  and shape, small integer arrays by contents, functions, classes and modules by
  name), then the guards are rebuilt from the values found, exactly as compiling
  records them;
* globals of the generated code: arrays that are guarded globals are taken from the
  global again (never a copy: in-place writes stay visible); other arrays and plain
  values are stored; functions by module and name.

A specialisation that read anything else (attributes of objects, items of lists and
dicts, a bound method's receiver, a derivative of a gradient) is not persisted, and
the reason is logged.  Writes go to a temporary file in the same directory, then
``os.replace`` (atomic): concurrent processes each write a whole file and the last one
wins.  An unreadable, truncated or stale file is ignored with a log line.  The cache
directory is trusted as Python trusts ``__pycache__``: its files are code.
"""

from __future__ import annotations

import hashlib
import inspect
import linecache
import logging
import os
import pickle
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import numpy as np

from .config import config
from .transforms.codegen import Generated
from .transforms.guards import Guards
from .transforms.load import load

log = logging.getLogger("st_autodiff")

FORMAT = 1
_MISSING = object()
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_package_digest: str | None = None


class NotPersistable(Exception):
    """Why a specialisation cannot be rebuilt in another process."""


class Stale(Exception):
    """A stored specialisation that no longer matches what the process has."""


class DiskEntry:
    """The file of one specialisation of one compiled function."""

    def __init__(self, path: Path, owner: Any, xp: Any) -> None:
        self.path = path
        self.xp = xp
        self.target = owner._target
        self.name = owner.__qualname__

    @staticmethod
    def for_call(owner: Any, key: Any, xp: Any) -> DiskEntry | None:
        """The entry for this call, or None when the disk cache is off or the function
        cannot be persisted (logged)."""
        root = config.cache_dir
        if root is None:
            return None
        try:
            digest = _digest(owner, key, xp)
        except NotPersistable as exc:
            log.info("st_autodiff: %s is not kept in the disk cache: %s", owner.__qualname__,
                     exc)
            return None
        stem = "".join(c if c.isalnum() or c in "_-" else "_" for c in owner.__qualname__)
        return DiskEntry(Path(root) / f"{stem[:60]}-{digest}.stad", owner, xp)

    def load(self, owner: Any) -> Any:
        """The stored specialisation, rebuilt, or None (missing, corrupt or stale)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("st_autodiff: cannot read the disk cache file %s: %s", self.path, exc)
            return None
        try:
            payload = pickle.loads(data)  # noqa: S301 (our own files, see the docstring)
            if not isinstance(payload, dict) or payload.get("format") != FORMAT:
                raise ValueError("unknown format")
            return _rebuild(payload, self.target, self.xp)
        except Stale as exc:
            log.info("st_autodiff: the disk cache entry of %s is stale (%s); compiling",
                     self.name, exc)
        except Exception as exc:  # noqa: BLE001 (a corrupt file must not stop the call)
            log.warning("st_autodiff: ignoring the corrupt disk cache file %s (%s: %s)",
                        self.path, type(exc).__name__, exc)
        return None

    def store(self, compiled: Any) -> None:
        """Write the specialisation (atomically), or log why it cannot be persisted."""
        try:
            payload = _payload(compiled, self.target)
        except NotPersistable as exc:
            log.info("st_autodiff: %s is not kept in the disk cache: %s", self.name, exc)
            return
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-",
                                       suffix=".stad")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError as exc:
            log.warning("st_autodiff: cannot write the disk cache file %s: %s", self.path, exc)


# --- the key ----------------------------------------------------------------------------


def _digest(owner: Any, key: Any, xp: Any) -> str:
    from .api import GradFunction  # noqa: PLC0415  (api imports this module)

    target = owner._target
    if isinstance(owner._fn, GradFunction) or owner._seeds:
        raise NotPersistable("a derivative of a compiled gradient is compiled per process")
    if owner._receiver:
        raise NotPersistable("a bound method reads its receiver, which another process "
                             "does not have")
    if type(target) is not types.FunctionType:
        raise NotPersistable(f"it is a {type(target).__name__}, not a Python function")
    if not _plain(key):
        raise NotPersistable("an argument kind (a static argument?) is not a plain value "
                             "(numbers, strings, tuples, dtypes) whose text is the same in "
                             "every process")
    source = _source(target)
    base = getattr(xp, "__st_namespace__", xp)  # (backends: the namespace and its version)
    parts = (FORMAT, _package(), np.__version__, sys.version, getattr(xp, "__name__", ""),
             getattr(base, "__version__", ""),
             owner._mode, repr(owner._wrt_spec), owner._has_aux, repr(owner._options),
             repr(owner._argspec), repr(key), target.__module__, target.__qualname__,
             source, _code_digest(target.__code__))
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:40]


def _plain(v: Any) -> bool:
    if isinstance(v, _PLAIN) or isinstance(v, np.dtype):
        return True
    if isinstance(v, tuple):
        return all(_plain(x) for x in v)
    if isinstance(v, type):  # (an array type of another backend: cupy.ndarray, ...)
        return v.__module__ != "__main__" and "<locals>" not in v.__qualname__
    if type(v).__name__.lower() == "dtype":  # an array-API dtype (array_api_strict.float64)
        return True
    from .transforms.parse import Layout  # noqa: PLC0415

    return isinstance(v, Layout)


def _source(fn: Any) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError) as exc:
        raise NotPersistable(f"the source of {fn.__qualname__} cannot be read ({exc})"
                             ) from None


def _code_digest(code: types.CodeType) -> str:
    """A digest of bytecode that is the same in every process (``marshal`` is not)."""
    h = hashlib.sha256()
    h.update(code.co_code)
    for c in code.co_consts:
        h.update((_code_digest(c) if isinstance(c, types.CodeType) else repr(c)).encode())
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                   code.co_flags, code.co_argcount, code.co_kwonlyargcount)).encode())
    return h.hexdigest()


def _package() -> str:
    """A digest of st_autodiff's own source files (its version for the cache)."""
    global _package_digest
    if _package_digest is None:
        h = hashlib.sha256()
        root = Path(__file__).parent
        for p in sorted(root.rglob("*.py")):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
        _package_digest = h.hexdigest()
    return _package_digest


# --- what is stored ---------------------------------------------------------------------


def _payload(compiled: Any, target: Any) -> dict[str, Any]:
    checks = list(compiled.guards._checks.values())
    guard_specs: list[tuple[Any, ...]] = []
    refs: dict[int, int] = {}  # id(guarded value) -> index of its guard spec
    arrays = {id(c[3]) for c in checks if c[0] in ("global", "cell") and len(c) > 3}
    for kind, holder, key, *expected in checks:
        if kind == "array":
            if id(holder) in arrays:
                continue  # its contents are part of the global's spec
            raise NotPersistable("it used the values of an array it got from outside")
        if kind in ("global", "builtin"):
            module = _module_of(holder)
            if kind == "builtin":
                guard_specs.append(("builtin", module, key))
                continue
            refs.setdefault(id(expected[0]), len(guard_specs))
            guard_specs.append(("global", module, key, _value_spec(expected[0], what=(
                f"global {key!r}"))))
        elif kind == "cell":
            names = target.__code__.co_freevars
            cells = target.__closure__ or ()
            where = [n for n, c in zip(names, cells) if c is holder]
            if not where:
                raise NotPersistable("it read a closure variable of an inlined function")
            refs.setdefault(id(expected[0]), len(guard_specs))
            guard_specs.append(("cell", where[0], _value_spec(expected[0], what=(
                f"closure variable {where[0]!r}"))))
        elif kind == "function":
            guard_specs.append(("function", *_function_spec(holder)))
        else:
            what = "an attribute of an object" if kind == "attr" else "the items of a " \
                f"{type(holder).__name__}"
            raise NotPersistable(f"it read {what}, which another process does not have")
    functions = {}
    for role in ("fn", "fwd", "bwd"):
        fn = getattr(compiled, role)
        if fn is not None:
            functions[role] = _function_payload(fn, refs)
    return {"format": FORMAT, "guards": guard_specs, "functions": functions,
            "out_tree": compiled.out_tree}


def _function_payload(fn: Any, refs: dict[int, int]) -> dict[str, Any]:
    filename = fn.__code__.co_filename
    source = "".join(linecache.getlines(filename))
    if not source:
        raise NotPersistable("its generated source is not in linecache")
    namespace = {}
    for name, v in fn.__globals__.items():
        if name in ("xp", "rt", "__name__", "__builtins__") or (
                isinstance(v, types.FunctionType) and v.__code__.co_filename == filename):
            continue
        namespace[name] = ("ref", refs[id(v)]) if id(v) in refs else _value_spec(v, True)
    return {"name": fn.__name__, "source": source, "globals": namespace,
            "line_map": dict(getattr(fn, "__st_line_map__", {}))}


def _module_of(glb: dict[Any, Any]) -> str:
    name = glb.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if module is None or vars(module) is not glb:
        raise NotPersistable("it read the globals of code that is not an imported module")
    return name  # type: ignore[return-value]


def _function_spec(fn: Any) -> tuple[str, str, str]:
    if type(fn) is not types.FunctionType or "<locals>" in fn.__qualname__:
        raise NotPersistable(f"it inlined {getattr(fn, '__qualname__', fn)}, which cannot be "
                             "found by module and name")
    if _resolve(fn.__module__, fn.__qualname__) is not fn:
        raise NotPersistable(f"{fn.__qualname__} is not {fn.__module__}.{fn.__qualname__}")
    return fn.__module__, fn.__qualname__, _source(fn) + _code_digest(fn.__code__)


def _value_spec(v: Any, data: bool = False, what: str = "its code") -> tuple[Any, ...]:
    """How to find ``v`` again (or, ``data``: store it, for values no one else holds)."""
    if isinstance(v, _PLAIN) or isinstance(v, np.generic) or _plain(v) and not isinstance(
            v, type):
        return ("value", v)
    if isinstance(v, np.ndarray):
        if data:
            return ("value", v)
        small = v.dtype.kind in "iub" and v.size <= 32
        return ("array", v.dtype.str, v.shape, v.tobytes() if small else None)
    if isinstance(v, (np.dtype, slice)):
        return ("value", v)
    if isinstance(v, types.ModuleType):
        return ("module", v.__name__)
    if isinstance(v, np.ufunc) and getattr(np, v.__name__, None) is v:
        return ("ufunc", v.__name__)  # type: ignore[union-attr]  # (`is v` narrows v to Any | None)
    if isinstance(v, types.FunctionType):
        return ("function", *_function_spec(v))
    module, qualname = getattr(v, "__module__", None), getattr(v, "__qualname__", None)
    if isinstance(v, (type, types.BuiltinFunctionType)) and isinstance(module, str) and \
            isinstance(qualname, str) and _resolve(module, qualname) is v:
        return ("named", module, qualname)
    raise NotPersistable(f"{what} is a {type(v).__name__}, which another process cannot "
                         "find again")


def _resolve(module: str, qualname: str) -> Any:
    obj: Any = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, _MISSING)
        if obj is _MISSING:
            return None
    return obj


# --- rebuilding -------------------------------------------------------------------------


def _found(spec: tuple[Any, ...], what: str) -> Any:
    kind = spec[0]
    if kind == "value":
        return spec[1]
    if kind == "module":
        if spec[1] not in sys.modules:
            raise Stale(f"module {spec[1]} is not imported")
        return sys.modules[spec[1]]
    if kind == "ufunc":
        return getattr(np, spec[1])
    if kind == "function":
        fn = _resolve(spec[1], spec[2])
        if type(fn) is not types.FunctionType or _source(fn) + _code_digest(
                fn.__code__) != spec[3]:
            raise Stale(f"{spec[1]}.{spec[2]} changed")
        return fn
    if kind == "named":
        got = _resolve(spec[1], spec[2])
        if got is None:
            raise Stale(f"{spec[1]}.{spec[2]} is missing")
        return got
    raise Stale(f"unknown recipe for {what}")


def _matches(v: Any, spec: tuple[Any, ...], what: str) -> Any:
    """``v`` when it is what ``spec`` recorded, else ``Stale``."""
    if spec[0] == "array":
        ok = isinstance(v, np.ndarray) and v.dtype.str == spec[1] and v.shape == spec[2] and (
            spec[3] is None or v.tobytes() == spec[3])
    elif spec[0] == "value":
        ok = type(v) is type(spec[1]) and bool(v == spec[1])
    else:
        ok = v is _found(spec, what)
    if not ok:
        raise Stale(f"{what} changed")
    return v


def _rebuild(payload: dict[str, Any], target: Any, xp: Any) -> Any:
    from .runtime import support  # noqa: PLC0415
    from .transforms import Compiled, Stages  # noqa: PLC0415

    guards = Guards()
    values: list[Any] = []
    for spec in payload["guards"]:
        kind = spec[0]
        if kind == "builtin":
            glb = vars(sys.modules[spec[1]]) if spec[1] in sys.modules else None
            if glb is None or spec[2] in glb:
                raise Stale(f"global {spec[2]!r} of {spec[1]} now shadows a builtin")
            guards.builtin_read(glb, spec[2])
            values.append(None)
        elif kind == "global":
            if spec[1] not in sys.modules:
                raise Stale(f"module {spec[1]} is not imported")
            glb = vars(sys.modules[spec[1]])
            v = _matches(glb.get(spec[2], _MISSING), spec[3], f"global {spec[2]!r}")
            guards.global_read(glb, spec[2], v)
            values.append(v)
        elif kind == "cell":
            cells = dict(zip(target.__code__.co_freevars, target.__closure__ or ()))
            cell = cells.get(spec[1])
            if cell is None:
                raise Stale(f"closure variable {spec[1]!r} is gone")
            v = _matches(cell.cell_contents, spec[2], f"closure variable {spec[1]!r}")
            guards.cell_read(cell, v)
            values.append(v)
        else:  # an inlined function
            guards.function_read(_found(spec, "an inlined function"))
            values.append(None)
    loaded: dict[str, Any] = {}
    gens: dict[str, Generated] = {}
    for role, fp in payload["functions"].items():
        ns = {name: values[s[1]] if s[0] == "ref" else _found(s, name)
              for name, s in fp["globals"].items()}
        gen = Generated(fp["name"], fp["source"], ns, dict(fp["line_map"]))
        loaded[role] = load(gen, xp, support)
        gens[role] = gen
    stages = Stages()
    stages["codegen"] = "\n\n".join(g.source for g in gens.values())
    for stage in ("parse", "lower", "activity", "adjoint", "optimize"):
        stages[stage] = (f"({stage}: not available, this specialisation was loaded from "
                         "st.config.cache_dir; set it to None to compile and see it)\n")
    main = gens.get("fn") or gens["bwd"]
    compiled = Compiled(loaded.get("fn"), main, stages, fwd=loaded.get("fwd"),
                        bwd=loaded.get("bwd"), out_tree=payload["out_tree"])
    compiled.guards = guards
    if compiled.fn is not None:
        compiled.fn.__st_guards__ = guards  # type: ignore[attr-defined]
    return compiled

