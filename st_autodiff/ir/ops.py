"""The op table: every operation the IR can hold, with its signature and spellings.

One ``Op`` per operation and one ``OpInfo`` per op.  The table is the single source of
truth for the rest of the project:

* ``transforms/lower`` maps NumPy callables and array methods to ops through
  ``numpy``, ``aliases`` and ``methods`` and binds call arguments with ``inputs`` and
  ``params``;
* ``transforms/codegen`` spells a node through ``spelling``/``numpy``/``infix``;
* ``ir/interpret`` evaluates a node with ``kernel``;
* ``derivatives`` keys its rule table by ``Op``;
* the eager runtime names its graph nodes through ``torch``.

Inputs are runtime values (arrays, scalars, runtime integers such as shapes); params are
compile-time constants (axes, flags, ``ord``) and are stored sorted on the node.  An input
name starting with ``*`` is variadic.  This module imports nothing of ours.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class _Required:
    """Default of a param that every use must give (NumPy has no default for it)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


class Spelling(enum.Enum):
    """How codegen writes a node of this op."""

    INFIX = "infix"  # a + b
    PREFIX = "prefix"  # -a
    CALL = "call"  # xp.path(inputs..., param=value)
    SEQCALL = "seqcall"  # xp.path((inputs...), param=value)
    METHOD = "method"  # input0.path(params...)
    SPECIAL = "special"  # written by a dedicated emitter in codegen


@dataclass(frozen=True)
class OpInfo:
    """Static facts about one op (see the module docstring)."""

    name: str
    inputs: tuple[str, ...]
    params: tuple[tuple[str, Any], ...] = ()
    numpy: str | None = None
    spelling: Spelling = Spelling.CALL
    infix: str | None = None
    torch: str | None = None
    elementwise: bool = False
    data_shape: bool = False  # output shape depends on input values, not shapes
    multi: bool = False  # the op returns a tuple; its parts are read with ITEM
    aliases: tuple[str, ...] = ()  # more NumPy attribute paths meaning this op
    methods: tuple[str, ...] = ()  # ndarray method names meaning this op

    @property
    def variadic(self) -> bool:
        """True when the last input takes any number of values."""
        return bool(self.inputs) and self.inputs[-1].startswith("*")

    @property
    def param_defaults(self) -> dict[str, Any]:
        """Params with their default values."""
        return dict(self.params)

    @property
    def backward_name(self) -> str:
        """PyTorch-style node name, e.g. ``MulBackward0`` for ``mul``."""
        base = self.torch or self.name
        return "".join(part.capitalize() for part in base.split("_")) + "Backward0"


class Op(enum.Enum):
    """Every operation of the IR; the value is the printed name."""

    # structure
    ARG = "arg"
    CONST = "const"
    ITEM = "item"
    TUPLE = "tuple"
    SHAPE = "shape"
    GETITEM = "getitem"
    SCATTER_ADD = "scatter_add"
    INDEX_ADD = "index_add"
    UNBROADCAST = "unbroadcast"
    COPY = "copy"
    ASARRAY = "asarray"
    STOP_GRADIENT = "stop_gradient"
    PY_FLOAT = "py_float"
    PY_INT = "py_int"
    PY_BOOL = "py_bool"
    CALL = "call"
    CALL_VJP = "call_vjp"
    OPAQUE_CALL = "opaque_call"
    ASTYPE = "astype"
    SETITEM = "setitem"
    # structured control flow (regions: params hold sub-graphs) and runtime lists
    IF = "if"
    FOR = "for"
    WHILE = "while"
    LIST = "list"
    LIST_GET = "list_get"
    LIST_LEN = "list_len"
    LIST_CONCAT = "list_concat"
    LIST_STACK = "list_stack"
    LIST_SUM = "list_sum"
    LIST_ZEROS = "list_zeros"
    LIST_ADD = "list_add"
    LIST_UNSTACK = "list_unstack"
    LIST_INDEX_ADD = "list_index_add"
    LIST_SLICE = "list_slice"
    LIST_REVERSE = "list_reverse"
    LIST_GATHER = "list_gather"
    LIST_UNGATHER = "list_ungather"
    LIST_CATENATE = "list_catenate"
    LIST_SPLIT_LIKE = "list_split_like"
    # elementwise unary
    NEG = "neg"
    POSITIVE = "positive"
    ABS = "abs"
    SIGN = "sign"
    EXP = "exp"
    EXP2 = "exp2"
    EXPM1 = "expm1"
    LOG = "log"
    LOG2 = "log2"
    LOG10 = "log10"
    LOG1P = "log1p"
    SQRT = "sqrt"
    CBRT = "cbrt"
    SQUARE = "square"
    RECIPROCAL = "reciprocal"
    SIN = "sin"
    COS = "cos"
    TAN = "tan"
    ARCSIN = "arcsin"
    ARCCOS = "arccos"
    ARCTAN = "arctan"
    SINH = "sinh"
    COSH = "cosh"
    TANH = "tanh"
    ARCSINH = "arcsinh"
    ARCCOSH = "arccosh"
    ARCTANH = "arctanh"
    DEG2RAD = "deg2rad"
    RAD2DEG = "rad2deg"
    # elementwise binary
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    POW = "pow"
    MOD = "mod"
    FLOORDIV = "floordiv"
    ARCTAN2 = "arctan2"
    HYPOT = "hypot"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    FMAX = "fmax"
    FMIN = "fmin"
    LOGADDEXP = "logaddexp"
    LOGADDEXP2 = "logaddexp2"
    WHERE = "where"
    CLIP = "clip"
    # comparisons and logic (no gradient)
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"
    LOGICAL_AND = "logical_and"
    LOGICAL_OR = "logical_or"
    LOGICAL_NOT = "logical_not"
    LOGICAL_XOR = "logical_xor"
    ISNAN = "isnan"
    ISINF = "isinf"
    ISFINITE = "isfinite"
    FLOOR = "floor"
    CEIL = "ceil"
    ROUND = "round"
    RINT = "rint"
    TRUNC = "trunc"
    ANY = "any"
    ALL = "all"
    ARGMAX = "argmax"
    ARGMIN = "argmin"
    ARGSORT = "argsort"
    NONZERO = "nonzero"
    # creation (no gradient)
    ZEROS = "zeros"
    ONES = "ones"
    FULL = "full"
    EYE = "eye"
    ARANGE = "arange"
    LINSPACE = "linspace"
    ZEROS_LIKE = "zeros_like"
    ONES_LIKE = "ones_like"
    FULL_LIKE = "full_like"
    # reductions and scans
    SUM = "sum"
    MEAN = "mean"
    PROD = "prod"
    MAX = "max"
    MIN = "min"
    VAR = "var"
    STD = "std"
    CUMSUM = "cumsum"
    CUMPROD = "cumprod"
    # linear algebra
    MATMUL = "matmul"
    DOT = "dot"
    VDOT = "vdot"
    INNER = "inner"
    OUTER = "outer"
    TENSORDOT = "tensordot"
    EINSUM = "einsum"
    TRACE = "trace"
    DIAG = "diag"
    DIAGONAL = "diagonal"
    NORM = "norm"
    INV = "inv"
    SOLVE = "solve"
    DET = "det"
    SLOGDET = "slogdet"
    CHOLESKY = "cholesky"
    # shape and data movement
    RESHAPE = "reshape"
    RAVEL = "ravel"
    TRANSPOSE = "transpose"
    SWAPAXES = "swapaxes"
    MOVEAXIS = "moveaxis"
    EXPAND_DIMS = "expand_dims"
    SQUEEZE = "squeeze"
    BROADCAST_TO = "broadcast_to"
    CONCATENATE = "concatenate"
    STACK = "stack"
    HSTACK = "hstack"
    VSTACK = "vstack"
    SPLIT = "split"
    TILE = "tile"
    REPEAT = "repeat"
    FLIP = "flip"
    ROLL = "roll"
    PAD = "pad"
    SORT = "sort"
    TAKE = "take"
    TAKE_ALONG_AXIS = "take_along_axis"
    TRIU = "triu"
    TRIL = "tril"
    # neural-network activations (no single NumPy function; kernels in ir/kernels.py)
    SIGMOID = "sigmoid"
    RELU = "relu"
    SOFTMAX = "softmax"
    LOG_SOFTMAX = "log_softmax"
    LOGSUMEXP = "logsumexp"
    # scipy.special ufuncs and NumPy's sinc (kernels in ir/kernels_special.py, rules in
    # derivatives/special.py)
    EXPIT = "expit"
    LOGIT = "logit"
    LOG_EXPIT = "log_expit"
    GAMMALN = "gammaln"
    DIGAMMA = "digamma"
    ERF = "erf"
    ERFC = "erfc"
    ERFINV = "erfinv"
    NDTR = "ndtr"
    LOG_NDTR = "log_ndtr"
    NDTRI = "ndtri"
    ENTR = "entr"
    SINC = "sinc"
    POLYGAMMA = "polygamma"
    XLOGY = "xlogy"
    XLOG1PY = "xlog1py"
    REL_ENTR = "rel_entr"
    KL_DIV = "kl_div"
    HUBER = "huber"
    PSEUDO_HUBER = "pseudo_huber"
    BOXCOX = "boxcox"
    BETALN = "betaln"
    GAMMAINC = "gammainc"
    GAMMAINCC = "gammaincc"
    # special family (issue 11): more scipy.special ufuncs (kernels in
    # ir/kernels_special_more.py, rules in derivatives/special_more.py)
    GAMMA = "gamma"
    RGAMMA = "rgamma"
    GAMMASGN = "gammasgn"
    LOGGAMMA = "loggamma"
    ERFCINV = "erfcinv"
    ERFCX = "erfcx"
    ERFI = "erfi"
    DAWSN = "dawsn"
    I0 = "i0"
    I0E = "i0e"
    I1 = "i1"
    I1E = "i1e"
    J0 = "j0"
    J1 = "j1"
    Y0 = "y0"
    Y1 = "y1"
    K0 = "k0"
    K0E = "k0e"
    K1 = "k1"
    K1E = "k1e"
    EXP1 = "exp1"
    EXPI = "expi"
    SPENCE = "spence"
    SP_LOG1P = "sp_log1p"
    SP_EXPM1 = "sp_expm1"
    COSM1 = "cosm1"
    EXPREL = "exprel"
    SP_CBRT = "sp_cbrt"
    SP_EXP2 = "sp_exp2"
    EXP10 = "exp10"
    SINDG = "sindg"
    COSDG = "cosdg"
    RIEMANN_ZETA = "riemann_zeta"
    BETA = "beta"
    IV = "iv"
    IVE = "ive"
    JV = "jv"
    YV = "yv"
    YN = "yn"
    KV = "kv"
    KVE = "kve"
    ZETA = "zeta"
    EXPN = "expn"
    BOXCOX1P = "boxcox1p"
    INV_BOXCOX = "inv_boxcox"
    OWENS_T = "owens_t"
    BINOM = "binom"
    POCH = "poch"
    BETAINC = "betainc"
    # numpy-more family: ufuncs whose values only NumPy's kernel gives exactly
    FMOD = "fmod"
    LDEXP = "ldexp"
    # decompositions (rules in derivatives/linalg.py)
    EIGH = "eigh"
    EIGVALSH = "eigvalsh"
    SVD = "svd"
    SVDVALS = "svdvals"
    # fft family: a complex spectrum is a pair of real arrays (transforms/complex_pairs.py;
    # rules in derivatives/fft.py, kernels in ir/kernels_fft.py)
    FFT_C2C = "fft_c2c"
    FFT_R2C = "fft_r2c"
    FFT_C2R = "fft_c2r"
    CMUL = "cmul"
    CDIV = "cdiv"
    # linalg family (issue 11): rules in derivatives/linalg_more.py, kernels in
    # ir/kernels_linalg.py, types in ir/infer_linalg_more.py
    QR = "qr"
    EIG = "eig"
    EIGVALS = "eigvals"
    MATRIX_EXP = "matrix_exp"
    LU = "lu"

    # stats (scipy.stats decompositions): identity whose derivative is a located error
    NO_DERIVATIVE = "no_derivative"

def _linalg_more_table() -> dict[Op, OpInfo]:
    """The linalg family's ops: NumPy reaches them through ``decompositions`` (their
    kernels are ``rt.<name>``), the eager runtime through ``torch.linalg``."""
    return {
        Op.QR: OpInfo("qr", ("x",), (("mode", "reduced"),), numpy="rt.qr", multi=True,
                      torch="linalg_qr"),
        Op.EIG: OpInfo("eig", ("x",), (("scipy", False),), numpy="rt.eig", multi=True,
                       torch="linalg_eig"),
        Op.EIGVALS: OpInfo("eigvals", ("x",), (("scipy", False),), numpy="rt.eigvals",
                           torch="linalg_eigvals"),
        Op.MATRIX_EXP: OpInfo("matrix_exp", ("x",), numpy="rt.matrix_exp",
                              torch="linalg_matrix_exp"),
        Op.LU: OpInfo("lu", ("x",), numpy="rt.lu", multi=True, torch="linalg_lu"),
    }


_AXIS = (("axis", None),)
_REDUCE = (("axis", None), ("keepdims", False))
_DTYPE = (("dtype", None),)


def _unary(name: str, **kw: Any) -> OpInfo:
    kw.setdefault("numpy", name)
    return OpInfo(name, ("x",), elementwise=True, **kw)


def _binary(name: str, **kw: Any) -> OpInfo:
    kw.setdefault("numpy", name)
    return OpInfo(name, ("x", "y"), elementwise=True, **kw)


def _infix(name: str, symbol: str, numpy: str, **kw: Any) -> OpInfo:
    return _binary(name, numpy=numpy, spelling=Spelling.INFIX, infix=symbol, **kw)


def _special(name: str, *inputs: str, torch: str | None = None, **kw: Any) -> OpInfo:
    """A scipy.special ufunc (or ``np.sinc``): elementwise, run by ``rt.<name>``."""
    return OpInfo(name, inputs or ("x",), numpy=f"rt.{name}", elementwise=True,
                  torch=torch or f"special_{name}", **kw)


# --- special family (issue 11): more scipy.special ufuncs; kernels in
# ir/kernels_special_more.py, rules in derivatives/special_more.py ---------------------

_SPECIAL_MORE_UNARY = (
    "gamma", "rgamma", "gammasgn", "loggamma", "erfcinv", "erfcx", "erfi", "dawsn", "i0",
    "i0e", "i1", "i1e", "j0", "j1", "y0", "y1", "k0", "k0e", "k1", "k1e", "exp1", "expi",
    "spence", "sp_log1p", "sp_expm1", "cosm1", "exprel", "sp_cbrt", "sp_exp2", "exp10",
    "sindg", "cosdg", "riemann_zeta",
)
_SPECIAL_MORE_NARY = (
    ("beta", "a", "b"), ("iv", "v", "x"), ("ive", "v", "x"), ("jv", "v", "x"),
    ("yv", "v", "x"), ("yn", "n", "x"), ("kv", "v", "x"), ("kve", "v", "x"),
    ("zeta", "x", "q"), ("expn", "n", "x"), ("boxcox1p", "x", "lmbda"),
    ("inv_boxcox", "y", "lmbda"), ("owens_t", "h", "a"), ("binom", "x", "y"),
    ("poch", "z", "m"), ("betainc", "a", "b", "x"),
)


def _special_more_table() -> dict[Op, OpInfo]:
    """One elementwise op per scipy.special ufunc above (``sp_<name>`` where NumPy has an
    op of the same name: SciPy's own kernel runs, so values are SciPy's)."""
    table = {Op(name): _special(name) for name in _SPECIAL_MORE_UNARY}
    table.update({Op(name): _special(name, *inputs) for name, *inputs in _SPECIAL_MORE_NARY})
    return table


def _special_table() -> dict[Op, OpInfo]:
    return {
        Op.EXPIT: _special("expit"), Op.LOGIT: _special("logit"),
        Op.LOG_EXPIT: _special("log_expit"), Op.GAMMALN: _special("gammaln", torch="lgamma"),
        Op.DIGAMMA: _special("digamma"), Op.ERF: _special("erf"), Op.ERFC: _special("erfc"),
        Op.ERFINV: _special("erfinv"), Op.NDTR: _special("ndtr"),
        Op.LOG_NDTR: _special("log_ndtr"), Op.NDTRI: _special("ndtri"),
        Op.ENTR: _special("entr"), Op.SINC: _special("sinc", torch="sinc", aliases=("sinc",)),
        Op.POLYGAMMA: _special("polygamma", "n", "x"), Op.XLOGY: _special("xlogy", "x", "y"),
        Op.XLOG1PY: _special("xlog1py", "x", "y"), Op.REL_ENTR: _special("rel_entr", "x", "y"),
        Op.KL_DIV: _special("kl_div", "x", "y"), Op.HUBER: _special("huber", "delta", "r"),
        Op.PSEUDO_HUBER: _special("pseudo_huber", "delta", "r"),
        Op.BOXCOX: _special("boxcox", "x", "lmbda"), Op.BETALN: _special("betaln", "a", "b"),
        Op.GAMMAINC: _special("gammainc", "a", "x"), Op.GAMMAINCC: _special("gammaincc", "a", "x"),
        # numpy-more family: np.fmod (C's remainder, sign of x), np.ldexp (x * 2**i)
        Op.FMOD: _binary("fmod"), Op.LDEXP: OpInfo("ldexp", ("x", "i"), numpy="ldexp",
                                                   elementwise=True),
        Op.EIGH: OpInfo("eigh", ("x",), (("UPLO", "L"),), numpy="linalg.eigh", multi=True,
                        torch="linalg_eigh"),
        Op.EIGVALSH: OpInfo("eigvalsh", ("x",), (("UPLO", "L"),), numpy="linalg.eigvalsh",
                            torch="linalg_eigvalsh"),
        # np.linalg.svd is read by decompositions/ (compute_uv=False is svdvals)
        Op.SVD: OpInfo("svd", ("x",), (("full_matrices", True),), numpy="rt.svd", multi=True,
                       torch="linalg_svd"),
        Op.SVDVALS: OpInfo("svdvals", ("x",), numpy="linalg.svdvals", torch="linalg_svdvals"),
        **_special_more_table(),  # special family (issue 11)
    }


def _fft_table() -> dict[Op, OpInfo]:
    """fft family: transforms of real pairs ``(re, im)`` over ``axes`` (sizes already
    fitted by the caller); ``lib`` names the library whose kernel runs (numpy or scipy)."""
    common = (("axes", REQUIRED), ("norm", "backward"), ("lib", "numpy"))
    return {
        Op.FFT_C2C: OpInfo("fft_c2c", ("re", "im"), (*common, ("inverse", False)),
                           numpy="rt.fft_c2c", multi=True, torch="fft_fftn"),
        Op.FFT_R2C: OpInfo("fft_r2c", ("x",), common, numpy="rt.fft_r2c", multi=True,
                           torch="fft_rfftn"),
        Op.FFT_C2R: OpInfo("fft_c2r", ("re", "im"), (*common, ("n", REQUIRED)),
                           numpy="rt.fft_c2r", torch="fft_irfftn"),
        # the product and quotient of two pairs, by NumPy's complex multiply and divide
        # (its values, bit for bit)
        Op.CMUL: OpInfo("cmul", ("ar", "ai", "br", "bi"), numpy="rt.cmul", multi=True,
                        torch="mul"),
        Op.CDIV: OpInfo("cdiv", ("ar", "ai", "br", "bi"), numpy="rt.cdiv", multi=True,
                        torch="div"),
    }


def _table() -> dict[Op, OpInfo]:
    special = Spelling.SPECIAL
    t: dict[Op, OpInfo] = {
        Op.ARG: OpInfo("arg", (), (("name", None),), spelling=special),
        Op.CONST: OpInfo("const", (), (("value", None),), spelling=special),
        Op.ITEM: OpInfo("item", ("x",), (("index", 0),), spelling=special),
        Op.TUPLE: OpInfo("tuple", ("*items",), spelling=special),
        Op.SHAPE: OpInfo("shape", ("x",), spelling=special, numpy="shape"),
        Op.GETITEM: OpInfo("getitem", ("x", "*index"), (("index", None),), spelling=special,
                           torch="index", data_shape=True),
        Op.SCATTER_ADD: OpInfo("scatter_add", ("shape", "g", "*index"), (("index", None),),
                               spelling=special, numpy="rt.scatter_add", torch="index_put"),
        Op.INDEX_ADD: OpInfo("index_add", ("x", "g", "*index"), (("index", None),),
                             spelling=special, numpy="rt.index_add", torch="index_put"),
        Op.UNBROADCAST: OpInfo("unbroadcast", ("x", "shape"), numpy="rt.unbroadcast",
                               torch="sum_to_size"),
        Op.COPY: _unary("copy", torch="clone", methods=("copy",)),
        Op.STOP_GRADIENT: OpInfo("stop_gradient", ("x",), numpy="rt.stop_gradient",
                                 torch="detach"),
        # float(x) / x.item() of a float: a Python float, which NumPy promotes as a weak
        # scalar (float(s) * x32 stays float32, where the NumPy scalar s would not)
        Op.PY_FLOAT: OpInfo("py_float", ("x",), numpy="rt.python_float", torch="item"),
        # int(x), math.floor(x), x.item() of an integer: a Python int, whose ``//``, ``%``
        # and ``**`` are Python's (``3 // 0`` raises where NumPy's int64 gives 0)
        Op.PY_INT: OpInfo("py_int", ("x",), numpy="rt.python_int", torch="item"),
        # bool(x): a Python bool (``bool(a) + bool(b)`` is 2 where NumPy's bools give True)
        Op.PY_BOOL: OpInfo("py_bool", ("x",), numpy="rt.python_bool", torch="item"),
        Op.CALL: OpInfo("call", ("*args",), (("fn", REQUIRED), ("out_type", None)),
                        spelling=special, torch="custom"),
        # a call the compiler passes through (print, a random draw, a C function): run
        # once per call of the compiled code, in program order, never while compiling;
        # ``method``: call ``inputs[0].method(...)``; the last ``len(keywords)`` inputs
        # are keyword arguments (transforms/effects.py)
        Op.OPAQUE_CALL: OpInfo("opaque_call", ("*args",), (
            ("fn", None), ("method", None), ("keywords", ()), ("effect", True),
            ("out_type", None), ("name", ""), ("block", None)), spelling=special,
            torch="opaque"),
        Op.CALL_VJP: OpInfo("call_vjp", ("g", "out", "*args"), (("fn", REQUIRED),),
                            spelling=special, multi=True, torch="custom"),
        # a[index] = v as a value: a copy of ``a`` with ``v`` written at ``index``
        # (codegen writes into ``a`` itself when nothing reads ``a`` afterwards)
        Op.SETITEM: OpInfo("setitem", ("x", "v", "*index"), (("index", None),),
                           spelling=special, numpy="rt.setitem", torch="index_put"),
        Op.IF: OpInfo("if", ("cond", "*ins"), (("then", REQUIRED), ("orelse", REQUIRED)),
                      spelling=special, multi=True, torch="cond"),
        Op.FOR: OpInfo("for", ("start", "stop", "step", "*ins"),
                       (("body", REQUIRED), ("n_xs", 0), ("n_carry", 0), ("n_ys", 0),
                        ("reverse", False), ("has_break", False)),
                       spelling=special, multi=True, torch="scan"),
        Op.WHILE: OpInfo("while", ("*ins",),
                         (("body", REQUIRED), ("has_break", True), ("n_carry", 0),
                          ("n_ys", 0)), spelling=special, multi=True, torch="while_loop"),
        Op.LIST: OpInfo("list", ("*items",), spelling=special, torch="list"),
        Op.LIST_GET: OpInfo("list_get", ("items", "index"), spelling=special,
                            torch="list_index"),
        Op.LIST_LEN: OpInfo("list_len", ("items",), numpy="len", spelling=special),
        Op.LIST_CONCAT: OpInfo("list_concat", ("a", "b"), spelling=special,
                               torch="list_concat"),
        Op.LIST_STACK: OpInfo("list_stack", ("items",), (("axis", 0),), numpy="stack",
                              torch="stack"),
        Op.LIST_SUM: OpInfo("list_sum", ("items",), numpy="rt.list_sum", torch="sum_list"),
        Op.LIST_ZEROS: OpInfo("list_zeros", ("items",), numpy="rt.list_zeros",
                              torch="zeros_list"),
        Op.LIST_ADD: OpInfo("list_add", ("a", "b"), numpy="rt.list_add", torch="add_list"),
        Op.LIST_UNSTACK: OpInfo("list_unstack", ("x",), (("axis", 0),),
                                numpy="rt.list_unstack", torch="unbind"),
        Op.LIST_INDEX_ADD: OpInfo("list_index_add", ("items", "index", "g"),
                                  numpy="rt.list_index_add", torch="list_index_add"),
        Op.LIST_SLICE: OpInfo("list_slice", ("items", "start", "stop"), spelling=special,
                              torch="list_slice"),
        Op.LIST_REVERSE: OpInfo("list_reverse", ("items",), spelling=special,
                                torch="list_reverse"),
        # appends that not every iteration makes: one list per append site, one list of
        # flags per site that may not append (None where it always does), interleaved
        Op.LIST_GATHER: OpInfo("list_gather", ("*parts",), numpy="rt.list_gather",
                               torch="list_gather"),
        Op.LIST_UNGATHER: OpInfo("list_ungather", ("g", "*flags"), (("site", 0),),
                                 numpy="rt.list_ungather", torch="list_ungather"),
        Op.LIST_CATENATE: OpInfo("list_catenate", ("items",), (("axis", 0),),
                                 numpy="concatenate", torch="cat"),
        Op.LIST_SPLIT_LIKE: OpInfo("list_split_like", ("x", "items"), (("axis", 0),),
                                   numpy="rt.list_split_like", torch="split_with_sizes"),
        Op.ASARRAY: OpInfo("asarray", ("x",), numpy="asarray", aliases=("array",),
                           torch="alias"),
        Op.ASTYPE: OpInfo("astype", ("x",), (*_DTYPE, ("copy", True)), numpy="astype",
                          spelling=Spelling.METHOD,
                          torch="to_copy", methods=("astype",)),
        Op.NEG: _unary("neg", numpy="negative", spelling=Spelling.PREFIX, infix="-"),
        Op.POSITIVE: _unary("positive", spelling=Spelling.PREFIX, infix="+"),
        Op.ABS: _unary("abs", aliases=("absolute",)),  # np.fabs: a decomposition (dtype)
        Op.SIGN: _unary("sign"),
        Op.EXP: _unary("exp"),
        Op.EXP2: _unary("exp2"),
        Op.EXPM1: _unary("expm1"),
        Op.LOG: _unary("log"),
        Op.LOG2: _unary("log2"),
        Op.LOG10: _unary("log10"),
        Op.LOG1P: _unary("log1p"),
        Op.SQRT: _unary("sqrt"),
        Op.CBRT: _unary("cbrt"),
        Op.SQUARE: _unary("square"),
        Op.RECIPROCAL: _unary("reciprocal"),
        Op.SIN: _unary("sin"),
        Op.COS: _unary("cos"),
        Op.TAN: _unary("tan"),
        Op.ARCSIN: _unary("arcsin", torch="asin"),
        Op.ARCCOS: _unary("arccos", torch="acos"),
        Op.ARCTAN: _unary("arctan", torch="atan"),
        Op.SINH: _unary("sinh"),
        Op.COSH: _unary("cosh"),
        Op.TANH: _unary("tanh"),
        Op.ARCSINH: _unary("arcsinh", torch="asinh"),
        Op.ARCCOSH: _unary("arccosh", torch="acosh"),
        Op.ARCTANH: _unary("arctanh", torch="atanh"),
        Op.DEG2RAD: _unary("deg2rad", aliases=("radians",)),
        Op.RAD2DEG: _unary("rad2deg", aliases=("degrees",)),
        Op.ADD: _infix("add", "+", "add"),
        Op.SUB: _infix("sub", "-", "subtract"),
        Op.MUL: _infix("mul", "*", "multiply"),
        Op.DIV: _infix("div", "/", "divide", aliases=("true_divide",)),
        Op.POW: _infix("pow", "**", "power"),
        Op.MOD: _infix("mod", "%", "mod", aliases=("remainder",), torch="remainder"),
        Op.FLOORDIV: _infix("floordiv", "//", "floor_divide", torch="floor_divide"),
        Op.ARCTAN2: _binary("arctan2", torch="atan2"),
        Op.HYPOT: _binary("hypot"),
        Op.MAXIMUM: _binary("maximum"),
        Op.MINIMUM: _binary("minimum"),
        Op.FMAX: _binary("fmax"),
        Op.FMIN: _binary("fmin"),
        Op.LOGADDEXP: _binary("logaddexp"),
        Op.LOGADDEXP2: _binary("logaddexp2"),
        Op.WHERE: OpInfo("where", ("condition", "x", "y"), numpy="where", elementwise=True),
        Op.CLIP: OpInfo("clip", ("x", "a_min", "a_max"), numpy="clip", elementwise=True,
                        torch="clamp", methods=("clip",)),
        Op.EQ: _infix("eq", "==", "equal"),
        Op.NE: _infix("ne", "!=", "not_equal"),
        Op.LT: _infix("lt", "<", "less"),
        Op.LE: _infix("le", "<=", "less_equal"),
        Op.GT: _infix("gt", ">", "greater"),
        Op.GE: _infix("ge", ">=", "greater_equal"),
        Op.LOGICAL_AND: _binary("logical_and"),
        Op.LOGICAL_OR: _binary("logical_or"),
        Op.LOGICAL_NOT: _unary("logical_not"),
        Op.LOGICAL_XOR: _binary("logical_xor"),
        Op.ISNAN: _unary("isnan"),
        Op.ISINF: _unary("isinf"),
        Op.ISFINITE: _unary("isfinite"),
        Op.FLOOR: _unary("floor"),
        Op.CEIL: _unary("ceil"),
        Op.ROUND: OpInfo("round", ("x",), (("decimals", 0),), numpy="round",
                         aliases=("around",), methods=("round",), elementwise=True),
        Op.RINT: _unary("rint"),
        Op.TRUNC: _unary("trunc", aliases=("fix",)),
        Op.ANY: OpInfo("any", ("x",), _REDUCE, numpy="any", methods=("any",)),
        Op.ALL: OpInfo("all", ("x",), _REDUCE, numpy="all", methods=("all",)),
        Op.ARGMAX: OpInfo("argmax", ("x",), _AXIS, numpy="argmax", methods=("argmax",)),
        Op.ARGMIN: OpInfo("argmin", ("x",), _AXIS, numpy="argmin", methods=("argmin",)),
        Op.ARGSORT: OpInfo("argsort", ("x",), (("axis", -1), ("kind", None)), numpy="argsort",
                           methods=("argsort",)),
        Op.NONZERO: OpInfo("nonzero", ("x",), numpy="nonzero", multi=True, data_shape=True,
                           methods=("nonzero",)),
        # np.empty is read as np.zeros: a program that reads an element before writing
        # it has no defined value to differentiate anyway
        Op.ZEROS: OpInfo("zeros", ("shape",), _DTYPE, numpy="zeros", aliases=("empty",)),
        Op.ONES: OpInfo("ones", ("shape",), _DTYPE, numpy="ones"),
        Op.FULL: OpInfo("full", ("shape", "fill_value"), _DTYPE, numpy="full"),
        Op.EYE: OpInfo("eye", ("N",), (("M", None), ("k", 0), ("dtype", None)), numpy="eye"),
        Op.ARANGE: OpInfo("arange", ("start", "stop", "step"), _DTYPE, numpy="arange"),
        Op.LINSPACE: OpInfo("linspace", ("start", "stop"), (("num", 50),), numpy="linspace"),
        Op.ZEROS_LIKE: OpInfo("zeros_like", ("x",), _DTYPE, numpy="zeros_like",
                              aliases=("empty_like",)),
        Op.ONES_LIKE: OpInfo("ones_like", ("x",), _DTYPE, numpy="ones_like"),
        Op.FULL_LIKE: OpInfo("full_like", ("x", "fill_value"), _DTYPE, numpy="full_like"),
        Op.SUM: OpInfo("sum", ("x",), _REDUCE, numpy="sum", methods=("sum",)),
        Op.MEAN: OpInfo("mean", ("x",), _REDUCE, numpy="mean", methods=("mean",)),
        Op.PROD: OpInfo("prod", ("x",), _REDUCE, numpy="prod", methods=("prod",)),
        Op.MAX: OpInfo("max", ("x",), _REDUCE, numpy="max", aliases=("amax",),
                       methods=("max",), torch="amax"),
        Op.MIN: OpInfo("min", ("x",), _REDUCE, numpy="min", aliases=("amin",),
                       methods=("min",), torch="amin"),
        Op.VAR: OpInfo("var", ("x",), _REDUCE + (("ddof", 0),), numpy="var", methods=("var",)),
        Op.STD: OpInfo("std", ("x",), _REDUCE + (("ddof", 0),), numpy="std", methods=("std",)),
        Op.CUMSUM: OpInfo("cumsum", ("x",), _AXIS, numpy="cumsum", methods=("cumsum",)),
        Op.CUMPROD: OpInfo("cumprod", ("x",), _AXIS, numpy="cumprod", methods=("cumprod",)),
        Op.MATMUL: OpInfo("matmul", ("x", "y"), numpy="matmul", spelling=Spelling.INFIX,
                          infix="@", torch="mm"),
        Op.DOT: OpInfo("dot", ("x", "y"), numpy="dot", methods=("dot",)),
        Op.VDOT: OpInfo("vdot", ("x", "y"), numpy="vdot"),
        Op.INNER: OpInfo("inner", ("x", "y"), numpy="inner"),
        Op.OUTER: OpInfo("outer", ("x", "y"), numpy="outer"),
        Op.TENSORDOT: OpInfo("tensordot", ("x", "y"), (("axes", 2),), numpy="tensordot"),
        Op.EINSUM: OpInfo("einsum", ("*operands",), (("subscripts", REQUIRED),), numpy="einsum",
                          spelling=special),
        Op.TRACE: OpInfo("trace", ("x",), (("offset", 0), ("axis1", 0), ("axis2", 1)),
                         numpy="trace", methods=("trace",)),
        Op.DIAG: OpInfo("diag", ("x",), (("k", 0),), numpy="diag"),
        Op.DIAGONAL: OpInfo("diagonal", ("x",), (("offset", 0), ("axis1", 0), ("axis2", 1)),
                            numpy="diagonal", methods=("diagonal",)),
        Op.NORM: OpInfo("norm", ("x",), (("ord", None), ("axis", None), ("keepdims", False)),
                        numpy="linalg.norm", torch="linalg_vector_norm"),
        Op.INV: OpInfo("inv", ("x",), numpy="linalg.inv", torch="linalg_inv_ex"),
        Op.SOLVE: OpInfo("solve", ("a", "b"), numpy="linalg.solve", torch="linalg_solve_ex"),
        Op.DET: OpInfo("det", ("x",), numpy="linalg.det", torch="linalg_det"),
        Op.SLOGDET: OpInfo("slogdet", ("x",), numpy="linalg.slogdet", multi=True,
                           torch="linalg_slogdet"),
        Op.CHOLESKY: OpInfo("cholesky", ("x",), numpy="linalg.cholesky",
                            torch="linalg_cholesky_ex"),
        Op.RESHAPE: OpInfo("reshape", ("x", "shape"), numpy="reshape", methods=("reshape",),
                           torch="view"),
        Op.RAVEL: OpInfo("ravel", ("x",), numpy="ravel", methods=("ravel", "flatten")),
        Op.TRANSPOSE: OpInfo("transpose", ("x",), (("axes", None),), numpy="transpose",
                             methods=("transpose",), torch="permute"),
        Op.SWAPAXES: OpInfo("swapaxes", ("x",), (("axis1", REQUIRED), ("axis2", REQUIRED)),
                            numpy="swapaxes", methods=("swapaxes",), torch="transpose"),
        Op.MOVEAXIS: OpInfo("moveaxis", ("x",), (("source", REQUIRED), ("destination", REQUIRED)),
                            numpy="moveaxis", torch="movedim"),
        Op.EXPAND_DIMS: OpInfo("expand_dims", ("x",), (("axis", REQUIRED),), numpy="expand_dims",
                               torch="unsqueeze"),
        Op.SQUEEZE: OpInfo("squeeze", ("x",), _AXIS, numpy="squeeze", methods=("squeeze",)),
        Op.BROADCAST_TO: OpInfo("broadcast_to", ("x", "shape"), numpy="broadcast_to",
                                torch="expand"),
        Op.CONCATENATE: OpInfo("concatenate", ("*arrays",), (("axis", 0),),
                               numpy="concatenate", spelling=Spelling.SEQCALL, torch="cat"),
        Op.STACK: OpInfo("stack", ("*arrays",), (("axis", 0),), numpy="stack",
                         spelling=Spelling.SEQCALL),
        Op.HSTACK: OpInfo("hstack", ("*arrays",), numpy="hstack", spelling=Spelling.SEQCALL),
        Op.VSTACK: OpInfo("vstack", ("*arrays",), numpy="vstack", spelling=Spelling.SEQCALL),
        Op.SPLIT: OpInfo("split", ("x",), (("indices_or_sections", REQUIRED), ("axis", 0)),
                         numpy="split", multi=True),
        Op.TILE: OpInfo("tile", ("x",), (("reps", REQUIRED),), numpy="tile", torch="repeat"),
        Op.REPEAT: OpInfo("repeat", ("x",), (("repeats", REQUIRED), ("axis", None)), numpy="repeat",
                          methods=("repeat",), torch="repeat_interleave"),
        Op.FLIP: OpInfo("flip", ("x",), _AXIS, numpy="flip"),
        Op.ROLL: OpInfo("roll", ("x",), (("shift", REQUIRED), ("axis", None)), numpy="roll"),
        Op.PAD: OpInfo("pad", ("x",), (("pad_width", REQUIRED), ("constant_values", 0)),
                       numpy="pad", torch="constant_pad_nd"),
        Op.SORT: OpInfo("sort", ("x",), (("axis", -1),), numpy="sort"),
        Op.TAKE: OpInfo("take", ("x", "indices"), _AXIS, numpy="take", methods=("take",)),
        Op.TAKE_ALONG_AXIS: OpInfo("take_along_axis", ("x", "indices"), (("axis", REQUIRED),),
                                   numpy="take_along_axis", torch="gather"),
        Op.TRIU: OpInfo("triu", ("x",), (("k", 0),), numpy="triu"),
        Op.TRIL: OpInfo("tril", ("x",), (("k", 0),), numpy="tril"),
        Op.SIGMOID: _unary("sigmoid", numpy="rt.sigmoid"),
        Op.RELU: _unary("relu", numpy="rt.relu"),
        Op.SOFTMAX: OpInfo("softmax", ("x",), (("axis", -1),), numpy="rt.softmax"),
        Op.LOG_SOFTMAX: OpInfo("log_softmax", ("x",), (("axis", -1),), numpy="rt.log_softmax"),
        Op.LOGSUMEXP: OpInfo("logsumexp", ("x",), _REDUCE, numpy="rt.logsumexp"),
        **_special_table(),
        **_fft_table(),
        **_linalg_more_table(),
        # stats: ``rt.no_derivative(x, what)`` is ``x``; an active ``x`` is a located error
        # (binom's integer n, the point of a discrete distribution, betainc's a and b)
        Op.NO_DERIVATIVE: OpInfo("no_derivative", ("x",), (("what", ""),),
                                 numpy="rt.no_derivative", torch="no_derivative"),
    }
    missing = set(Op) - set(t)
    assert not missing, f"ops without OpInfo: {missing}"
    return t


OP_INFO: dict[Op, OpInfo] = _table()

#: Ops whose inputs and output are all of one broadcast shape.
ELEMENTWISE: frozenset[Op] = frozenset(op for op, info in OP_INFO.items() if info.elementwise)

#: Ops whose result is an integer or boolean array or a Python int: never differentiable,
#: and never carries a gradient to its inputs.
INTEGER_VALUED: frozenset[Op] = frozenset({
    Op.SHAPE, Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.LOGICAL_AND, Op.LOGICAL_OR,
    Op.LOGICAL_NOT, Op.LOGICAL_XOR, Op.ISNAN, Op.ISINF, Op.ISFINITE, Op.ANY, Op.ALL,
    Op.ARGMAX, Op.ARGMIN, Op.ARGSORT, Op.NONZERO,
})
