"""The PyTorch-style public names of the runtime, gathered for ``st_autodiff/__init__``.

Importing this module also attaches the op methods to ``Tensor`` (``methods.install``).
"""

from __future__ import annotations

import builtins
from typing import Any

from . import cuda, methods
from .distances import cdist, pdist
from .dtypes import (
    Size,
    bool_,
    cdouble,
    cfloat,
    complex64,
    complex128,
    device,
    double,
    dtype,
    float16,
    float32,
    float64,
    float_,
    get_default_dtype,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
)
from .factory import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    arange,
    as_tensor,
    bernoulli,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    scalar_tensor,
    tensor,
    zeros,
    zeros_like,
)
from .functional import (
    abs,
    absolute,
    acos,
    acosh,
    add,
    addcdiv,
    addcmul,
    addmm,
    all,
    allclose,
    amax,
    amin,
    any,
    arccos,
    arcsin,
    arctan,
    arctan2,
    argmax,
    argmin,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bmm,
    ceil,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    cos,
    cosh,
    cumsum,
    dist,
    div,
    divide,
    dot,
    eq,
    equal,
    exp,
    exp2,
    expm1,
    floor,
    floor_divide,
    fmax,
    fmin,
    ge,
    ger,
    gt,
    hypot,
    inner,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    lerp,
    log,
    log1p,
    log2,
    log10,
    log_softmax,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    logsumexp,
    lt,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mm,
    mul,
    multiply,
    mv,
    ne,
    neg,
    negative,
    norm,
    outer,
    pow,
    prod,
    reciprocal,
    relu,
    remainder,
    round,
    rsqrt,
    rsub,
    sigmoid,
    sign,
    sin,
    sinh,
    softmax,
    sqrt,
    square,
    std,
    sub,
    subtract,
    sum,
    tan,
    tanh,
    trace,
    true_divide,
    trunc,
    var,
    where,
)
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .printing import (
    set_printoptions,
)
from .random import (
    Generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .shape_ops import (
    broadcast_to,
    cat,
    chunk,
    clone,
    concat,
    concatenate,
    flatten,
    flip,
    hstack,
    movedim,
    narrow,
    nonzero,
    permute,
    reshape,
    select,
    split,
    squeeze,
    stack,
    swapaxes,
    swapdims,
    t,
    transpose,
    unbind,
    unsqueeze,
    vstack,
)
from .tensor import (
    Tensor,
)

methods.install()

float = float_  # noqa: A001
int = int_  # noqa: A001
bool = bool_  # noqa: A001


def is_tensor(obj: Any) -> builtins.bool:
    """True for a ``Tensor``."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> builtins.bool:
    return input.is_floating_point()


def numel(input: Tensor) -> builtins.int:
    return input.numel()


def result_type(tensor1: Any, tensor2: Any) -> dtype:
    """The dtype PyTorch gives an op on these two operands."""
    from .dtypes import result_type as rt

    return rt(tensor1, tensor2)


def detach(input: Tensor) -> Tensor:
    return input.detach()


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return input.clamp_(min, max)


__all__ = [
    "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "Generator",
    "HalfTensor", "IntTensor", "LongTensor", "ShortTensor", "Size", "Tensor", "abs", "absolute",
    "acos", "acosh", "add", "addcdiv", "addcmul", "addmm", "all", "allclose",
    "any", "amax", "amin", "arange",
    "arccos", "arcsin", "arctan", "arctan2", "argmax", "argmin", "as_tensor", "asin", "asinh",
    "atan", "atan2", "atanh", "bernoulli", "bmm", "bool", "broadcast_to", "cat", "cdist", "ceil",
    "chunk",
    "clamp", "clamp_", "clamp_max", "clamp_min", "clip", "clone", "concat", "concatenate", "cos",
    "cdouble", "cfloat", "complex64", "complex128",
    "cosh", "cuda", "cumsum", "detach", "device", "dist", "div", "divide", "dot", "double",
    "dtype", "empty", "empty_like", "enable_grad", "eq", "equal", "exp", "exp2", "expm1", "eye",
    "flatten", "flip", "float", "float16", "float32", "float64", "floor", "floor_divide", "fmax",
    "fmin", "from_numpy", "full", "full_like", "ge", "ger", "get_default_dtype", "get_rng_state",
    "gt", "half", "hstack", "hypot", "inference_mode", "initial_seed", "inner", "int", "int16",
    "int32", "int64", "int8", "is_floating_point", "is_grad_enabled", "is_inference_mode_enabled",
    "is_tensor", "isclose", "isfinite", "isinf", "isnan", "le", "lerp", "linspace", "log", "log10",
    "log1p", "log2", "log_softmax", "logaddexp", "logical_and", "logical_not", "logical_or",
    "logical_xor", "logspace", "logsumexp", "long", "lt", "manual_seed", "matmul", "max",
    "maximum", "mean", "min", "minimum", "mm", "movedim", "mul", "multiply", "mv", "narrow", "ne",
    "neg", "negative", "no_grad", "nonzero", "norm", "normal", "numel", "ones", "ones_like",
    "outer", "pdist", "permute", "pow", "prod", "promote_types", "rand", "rand_like", "randint",
    "randn",
    "randn_like", "randperm", "reciprocal", "relu", "remainder", "reshape", "result_type", "round",
    "rsqrt", "rsub", "scalar_tensor", "seed", "select", "set_default_dtype", "set_grad_enabled",
    "set_printoptions", "set_rng_state", "short", "sigmoid", "sign", "sin", "sinh", "softmax",
    "split", "sqrt", "square", "squeeze", "stack", "std", "sub", "subtract", "sum", "swapaxes",
    "swapdims", "t", "tan", "tanh", "tensor", "trace", "transpose", "true_divide", "trunc",
    "uint8", "unbind", "unsqueeze", "var", "vstack", "where", "zeros", "zeros_like",
]
# fft family: torch.abs/real/imag/conj/angle also take torch.fft's spectra (runtime/fft.py)
from .fft import (  # noqa: E402, F811, A004
    abs,
    absolute,
    angle,
    conj,
    imag,
    real,
    view_as_real,
)

__all__ += ["angle", "conj", "imag", "real", "view_as_real"]
# linalg family (issue 11): torch.det, torch.inverse, torch.matrix_exp ... at the top level
from .linalg_family import TOP_LEVEL as _LINALG_TOP  # noqa: E402
from .linalg_family import install_methods as _install_linalg_methods  # noqa: E402

globals().update(_LINALG_TOP)
_install_linalg_methods()
__all__ += sorted(_LINALG_TOP)
# special family (issue 11): torch.lgamma, torch.erf, torch.i0 ... (runtime/special.py)
from .special import TOP_LEVEL as _SPECIAL_TOP  # noqa: E402
from .special import install_methods as _install_special_methods  # noqa: E402

globals().update(_SPECIAL_TOP)
_install_special_methods()
__all__ += sorted(_SPECIAL_TOP)
# numpy-more family (issue 11)
from .numpy_more import diff, fmod, ldexp, nanmean, nansum  # noqa: E402
from .shape_ops import tile  # noqa: E402

__all__ += ["diff", "fmod", "ldexp", "nanmean", "nansum", "tile"]
# data family (issue 12): torch.utils.data, torch.save / torch.load (runtime/data, serialization)
from .. import utils  # noqa: E402
from . import serialization  # noqa: E402  (torch.serialization.add_safe_globals ...)
from .serialization import load, save  # noqa: E402

__all__ += ["load", "save", "serialization", "utils"]
# layers part (issue 12): torch.selu, torch.cosine_similarity, torch.embedding ... and the
# Tensor methods hardshrink and prelu (runtime/nn/top_level.py)
from .nn.top_level import TOP_LEVEL as _LAYERS_TOP  # noqa: E402
from .nn.top_level import install_methods as _install_layers_methods  # noqa: E402

globals().update(_LAYERS_TOP)
_install_layers_methods()
__all__ += sorted(_LAYERS_TOP)
# conv (issue 12): torch.conv2d, torch.max_pool2d, torch.batch_norm ... at the top level
from .nn.batchnorm import torch_batch_norm as batch_norm  # noqa: E402
from .nn.conv import conv1d, conv2d  # noqa: E402
from .nn.pooling import TOP_LEVEL as _POOL_TOP  # noqa: E402

globals().update(_POOL_TOP)
__all__ += ["batch_norm", "conv1d", "conv2d", *sorted(_POOL_TOP)]
# tensor part (issue 12): gather/scatter/index_*/masked_*/take/put, einsum, default device,
# Tensor.type with legacy types (runtime/tensor_more.py), and torch.testing
from .. import testing  # noqa: E402
from .tensor_more import TOP_LEVEL as _TENSOR_TOP  # noqa: E402
from .tensor_more import install_methods as _install_tensor_methods  # noqa: E402

globals().update(_TENSOR_TOP)
_install_tensor_methods()
__all__ += sorted(_TENSOR_TOP) + ["testing"]
# part "autograd" (issue 12): anomaly-mode queries
from .anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402

__all__ += ["is_anomaly_check_nan_enabled", "is_anomaly_enabled"]
NAMES = list(__all__)
# names family (issue 12): sorting, order statistics, counting, triangles, diagonals, grids
from .counting import (  # noqa: E402
    bincount,
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    bucketize,
    count_nonzero,
    heaviside,
    histc,
    isin,
    searchsorted,
    tril_indices,
    triu_indices,
    unique,
    unique_consecutive,
)
from .sorting import argsort, kthvalue, median, mode, msort, nanmedian, sort, topk  # noqa: E402
from .tensor_misc import (  # noqa: E402
    cartesian_prod,
    cross,
    diag,
    diag_embed,
    diagflat,
    fliplr,
    flipud,
    frac,
    meshgrid,
    repeat_interleave,
    roll,
    rot90,
    sgn,
    tensor_split,
    tril,
    triu,
)

__all__ += [
    "argsort", "bincount", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "bucketize", "cartesian_prod", "count_nonzero", "cross",
    "diag", "diag_embed", "diagflat", "fliplr", "flipud", "frac", "heaviside", "histc", "isin",
    "kthvalue", "median", "meshgrid", "mode", "msort", "nanmedian", "repeat_interleave", "roll",
    "rot90", "searchsorted", "sgn", "sort", "tensor_split", "topk", "tril", "tril_indices",
    "triu", "triu_indices", "unique", "unique_consecutive",
]
from .contractions import (  # noqa: E402
    addbmm,
    addmv,
    baddbmm,
    chain_matmul,
    corrcoef,
    cov,
    gcd,
    kron,
    lcm,
    tensordot,
    trapezoid,
    trapz,
    vander,
)
from .shape_more import (  # noqa: E402
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    column_stack,
    combinations,
    dstack,
    is_complex,
    is_nonzero,
    is_same_size,
    moveaxis,
    ravel,
    row_stack,
    unflatten,
)
from .tensor_extras import (  # noqa: E402, F811
    aminmax,
    clamp_max,
    clamp_min,
    copysign,
    cummax,
    cummin,
    cumprod,
    deg2rad,
    float_power,
    lerp,
    logaddexp2,
    logcumsumexp,
    nan_to_num,
    positive,
    rad2deg,
    signbit,
    std_mean,
    var_mean,
)
from .tensor_more_methods import install as _install_names_methods  # noqa: E402

__all__ += [
    "aminmax", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
    "broadcast_tensors", "column_stack", "combinations", "copysign", "cummax", "cummin",
    "cumprod", "deg2rad", "dstack", "float_power", "is_complex", "is_nonzero", "is_same_size",
    "logaddexp2", "logcumsumexp", "moveaxis", "nan_to_num", "positive", "rad2deg", "ravel",
    "row_stack", "signbit", "std_mean", "unflatten", "var_mean", "addbmm", "addmv", "baddbmm",
    "chain_matmul", "corrcoef", "cov", "gcd", "kron", "lcm", "tensordot", "trapezoid", "trapz",
    "vander",
]

_install_names_methods()
# eagernn part: torch.conv_transpose1d/2d, torch.pixel_shuffle ... at the top level (the
# signatures of their nn.functional forms, as in PyTorch)
from .nn.conv_transpose import conv_transpose1d, conv_transpose2d  # noqa: E402
from .nn.norm_more import rms_norm  # noqa: E402
from .nn.upsample import pixel_shuffle, pixel_unshuffle  # noqa: E402

__all__ += ["conv_transpose1d", "conv_transpose2d", "pixel_shuffle", "pixel_unshuffle",
            "rms_norm"]
NAMES = list(__all__)
