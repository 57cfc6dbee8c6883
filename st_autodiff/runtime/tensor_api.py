# ruff: noqa: E501  (generated: one declaration per line)
"""The Tensor methods installed at import time, declared for type checkers (generated).

``Tensor`` gets most of its methods from the op functions when the runtime loads
(``methods.install`` and the parts' ``install_methods``), which a type checker cannot see;
``tensor.py`` inherits these declarations under ``TYPE_CHECKING`` only.  Do not edit:
``python -m tests.tensor_api_gen`` writes this file from the live class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a plain class, not a Protocol, so that nothing in it is abstract
    from .tensor import Tensor


class TensorMethods:
    """The installed methods and properties of ``Tensor`` (signatures only).

    A plain class, not a ``Protocol``: mypy takes a protocol's bodiless methods for abstract
    ones, and ``Tensor(...)`` or ``nn.Parameter(...)`` would be refused as abstract."""

    @property
    def H(self) -> Tensor: raise NotImplementedError

    @property
    def T(self) -> Tensor: raise NotImplementedError

    def __abs__(self) -> Tensor: raise NotImplementedError

    def __add__(self, other: Any) -> Tensor: raise NotImplementedError

    def __and__(self, other: Any) -> Tensor: raise NotImplementedError

    def __bool__(self) -> Any: raise NotImplementedError

    def __eq__(self, other: Any) -> Tensor: raise NotImplementedError  # type: ignore[override]

    def __float__(self) -> Any: raise NotImplementedError

    def __floordiv__(self, other: Any) -> Tensor: raise NotImplementedError

    def __ge__(self, other: Any) -> Tensor: raise NotImplementedError

    def __getitem__(self, index: Any) -> Tensor: raise NotImplementedError

    def __gt__(self, other: Any) -> Tensor: raise NotImplementedError

    def __iadd__(self, other: Any) -> Tensor: raise NotImplementedError

    def __imul__(self, other: Any) -> Tensor: raise NotImplementedError

    def __index__(self) -> Any: raise NotImplementedError

    def __int__(self) -> Any: raise NotImplementedError

    def __invert__(self) -> Tensor: raise NotImplementedError

    def __ipow__(self, other: Any) -> Tensor: raise NotImplementedError

    def __isub__(self, other: Any) -> Tensor: raise NotImplementedError

    def __iter__(self) -> Any: raise NotImplementedError

    def __itruediv__(self, other: Any) -> Tensor: raise NotImplementedError

    def __le__(self, other: Any) -> Tensor: raise NotImplementedError

    def __len__(self) -> Any: raise NotImplementedError

    def __lt__(self, other: Any) -> Tensor: raise NotImplementedError

    def __matmul__(self, other: Any) -> Tensor: raise NotImplementedError

    def __mod__(self, other: Any) -> Tensor: raise NotImplementedError

    def __mul__(self, other: Any) -> Tensor: raise NotImplementedError

    def __ne__(self, other: Any) -> Tensor: raise NotImplementedError  # type: ignore[override]

    def __neg__(self) -> Tensor: raise NotImplementedError

    def __or__(self, other: Any) -> Tensor: raise NotImplementedError

    def __pos__(self) -> Any: raise NotImplementedError

    def __pow__(self, exponent: Any) -> Tensor: raise NotImplementedError

    def __radd__(self, other: Any) -> Tensor: raise NotImplementedError

    def __rfloordiv__(self, other: Any) -> Any: raise NotImplementedError

    def __rmatmul__(self, other: Any) -> Any: raise NotImplementedError

    def __rmul__(self, other: Any) -> Tensor: raise NotImplementedError

    def __rpow__(self, other: Any) -> Any: raise NotImplementedError

    def __rsub__(self, other: Any, *, alpha: Any = ...) -> Tensor: raise NotImplementedError

    def __rtruediv__(self, other: Any) -> Tensor: raise NotImplementedError

    def __setitem__(self, index: Any, value: Any) -> Any: raise NotImplementedError

    def __sub__(self, other: Any) -> Tensor: raise NotImplementedError

    def __truediv__(self, other: Any) -> Tensor: raise NotImplementedError

    def __xor__(self, other: Any) -> Tensor: raise NotImplementedError

    def abs(self) -> Tensor: raise NotImplementedError

    def abs_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def absolute(self) -> Tensor: raise NotImplementedError

    def acos(self) -> Tensor: raise NotImplementedError

    def acosh(self) -> Tensor: raise NotImplementedError

    def add(self, other: Any, *, alpha: Any = ...) -> Tensor: raise NotImplementedError

    def add_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def addbmm(self, batch1: Any, batch2: Any, *, beta: Any = ..., alpha: Any = ...) -> Tensor: raise NotImplementedError

    def addbmm_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def addcdiv(self, tensor1: Any, tensor2: Any, *, value: Any = ...) -> Tensor: raise NotImplementedError

    def addcdiv_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def addcmul(self, tensor1: Any, tensor2: Any, *, value: Any = ...) -> Tensor: raise NotImplementedError

    def addcmul_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def addmm(self, mat1: Any, mat2: Any, *, beta: Any = ..., alpha: Any = ...) -> Tensor: raise NotImplementedError

    def addmv(self, mat: Any, vec: Any, *, beta: Any = ..., alpha: Any = ...) -> Tensor: raise NotImplementedError

    def addmv_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def adjoint(self) -> Tensor: raise NotImplementedError

    def all(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def allclose(self, other: Any, rtol: Any = ..., atol: Any = ..., equal_nan: Any = ...) -> Any: raise NotImplementedError

    def amax(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def amin(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def aminmax(self, *, dim: Any = ..., keepdim: Any = ...) -> Any: raise NotImplementedError

    def any(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def arccos(self) -> Tensor: raise NotImplementedError

    def arcsin(self) -> Tensor: raise NotImplementedError

    def arctan(self) -> Tensor: raise NotImplementedError

    def arctan2(self, other: Any) -> Tensor: raise NotImplementedError

    def arctan2_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def argmax(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def argmin(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def argsort(self, dim: Any = ..., descending: Any = ..., stable: Any = ...) -> Tensor: raise NotImplementedError

    def asin(self) -> Tensor: raise NotImplementedError

    def asinh(self) -> Tensor: raise NotImplementedError

    def astype(self, dtype: Any) -> Tensor: raise NotImplementedError

    def atan(self) -> Tensor: raise NotImplementedError

    def atan2(self, other: Any) -> Tensor: raise NotImplementedError

    def atan2_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def atanh(self) -> Tensor: raise NotImplementedError

    def baddbmm(self, batch1: Any, batch2: Any, *, beta: Any = ..., alpha: Any = ...) -> Tensor: raise NotImplementedError

    def baddbmm_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def bernoulli_(self, p: Any = ..., *, generator: Any = ...) -> Tensor: raise NotImplementedError

    def bincount(self, weights: Any = ..., minlength: Any = ...) -> Tensor: raise NotImplementedError

    def bitwise_and(self, other: Any) -> Tensor: raise NotImplementedError

    def bitwise_and_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def bitwise_left_shift(self, other: Any) -> Tensor: raise NotImplementedError

    def bitwise_not(self) -> Tensor: raise NotImplementedError

    def bitwise_not_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def bitwise_or(self, other: Any) -> Tensor: raise NotImplementedError

    def bitwise_or_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def bitwise_right_shift(self, other: Any) -> Tensor: raise NotImplementedError

    def bitwise_xor(self, other: Any) -> Tensor: raise NotImplementedError

    def bitwise_xor_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def bmm(self, mat2: Any) -> Tensor: raise NotImplementedError

    def bool(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def broadcast_to(self, size: Any) -> Tensor: raise NotImplementedError

    def byte(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def ceil(self) -> Tensor: raise NotImplementedError

    def ceil_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def char(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def chunk(self, chunks: Any, dim: Any = ...) -> Any: raise NotImplementedError

    def clamp(self, min: Any = ..., max: Any = ...) -> Tensor: raise NotImplementedError

    def clamp_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def clamp_max(self, max: Any) -> Tensor: raise NotImplementedError

    def clamp_max_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def clamp_min(self, min: Any) -> Tensor: raise NotImplementedError

    def clamp_min_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def clip(self, min: Any = ..., max: Any = ...) -> Tensor: raise NotImplementedError

    def clip_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def clone(self, *, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def contiguous(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def copy_(self, src: Any, non_blocking: Any = ...) -> Tensor: raise NotImplementedError

    def copysign(self, other: Any) -> Tensor: raise NotImplementedError

    def copysign_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def corrcoef(self) -> Tensor: raise NotImplementedError

    def cos(self) -> Tensor: raise NotImplementedError

    def cos_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def cosh(self) -> Tensor: raise NotImplementedError

    def count_nonzero(self, dim: Any = ...) -> Tensor: raise NotImplementedError

    def cov(self, *, correction: Any = ..., fweights: Any = ..., aweights: Any = ...) -> Tensor: raise NotImplementedError

    def cpu(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def cross(self, other: Any, dim: Any = ...) -> Tensor: raise NotImplementedError

    def cuda(self, device: Any = ..., non_blocking: Any = ..., **kwargs: Any) -> Tensor: raise NotImplementedError

    def cummax(self, dim: Any) -> Any: raise NotImplementedError

    def cummin(self, dim: Any) -> Any: raise NotImplementedError

    def cumprod(self, dim: Any, *, dtype: Any = ...) -> Tensor: raise NotImplementedError

    def cumprod_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def cumsum(self, dim: Any, *, dtype: Any = ...) -> Tensor: raise NotImplementedError

    def cumsum_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def data_ptr(self) -> Any: raise NotImplementedError

    def deg2rad(self) -> Tensor: raise NotImplementedError

    def deg2rad_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def det(self) -> Tensor: raise NotImplementedError

    def diag(self, diagonal: Any = ...) -> Tensor: raise NotImplementedError

    def diag_embed(self, offset: Any = ..., dim1: Any = ..., dim2: Any = ...) -> Tensor: raise NotImplementedError

    def diagflat(self, offset: Any = ...) -> Tensor: raise NotImplementedError

    def diagonal(self, offset: Any = ..., dim1: Any = ..., dim2: Any = ...) -> Tensor: raise NotImplementedError

    def diff(self, n: Any = ..., dim: Any = ..., prepend: Any = ..., append: Any = ...) -> Tensor: raise NotImplementedError

    def digamma(self) -> Tensor: raise NotImplementedError

    def dist(self, other: Any, p: Any = ...) -> Tensor: raise NotImplementedError

    def div(self, other: Any, *, rounding_mode: Any = ...) -> Tensor: raise NotImplementedError

    def div_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def divide(self, other: Any, *, rounding_mode: Any = ...) -> Tensor: raise NotImplementedError

    def dot(self, tensor: Any) -> Tensor: raise NotImplementedError

    def double(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def eq(self, other: Any) -> Tensor: raise NotImplementedError

    def eq_(self, other: Any) -> Tensor: raise NotImplementedError

    def equal(self, other: Any) -> Any: raise NotImplementedError

    def erf(self) -> Tensor: raise NotImplementedError

    def erfc(self) -> Tensor: raise NotImplementedError

    def erfinv(self) -> Tensor: raise NotImplementedError

    def exp(self) -> Tensor: raise NotImplementedError

    def exp2(self) -> Tensor: raise NotImplementedError

    def exp2_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def exp_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def expand(self, *sizes: Any) -> Tensor: raise NotImplementedError

    def expand_as(self, other: Any) -> Tensor: raise NotImplementedError

    def expm1(self) -> Tensor: raise NotImplementedError

    def expm1_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def fill_(self, value: Any) -> Tensor: raise NotImplementedError

    def fill_diagonal_(self, fill_value: Any, wrap: Any = ...) -> Tensor: raise NotImplementedError

    def fix(self) -> Tensor: raise NotImplementedError

    def fix_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def flatten(self, start_dim: Any = ..., end_dim: Any = ...) -> Tensor: raise NotImplementedError

    def flip(self, dims: Any) -> Tensor: raise NotImplementedError

    def fliplr(self) -> Tensor: raise NotImplementedError

    def flipud(self) -> Tensor: raise NotImplementedError

    def float(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def float_power(self, exponent: Any) -> Tensor: raise NotImplementedError

    def floor(self) -> Tensor: raise NotImplementedError

    def floor_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def floor_divide(self, other: Any) -> Tensor: raise NotImplementedError

    def floor_divide_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def fmax(self, other: Any) -> Tensor: raise NotImplementedError

    def fmin(self, other: Any) -> Tensor: raise NotImplementedError

    def fmod(self, other: Any) -> Tensor: raise NotImplementedError

    def fmod_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def frac(self) -> Tensor: raise NotImplementedError

    def frac_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def gather(self, dim: Any, index: Any, *, sparse_grad: Any = ...) -> Tensor: raise NotImplementedError

    def gcd(self, other: Any) -> Tensor: raise NotImplementedError

    def gcd_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def ge(self, other: Any) -> Tensor: raise NotImplementedError

    def ge_(self, other: Any) -> Tensor: raise NotImplementedError

    def ger(self, vec2: Any) -> Tensor: raise NotImplementedError

    def greater(self, other: Any) -> Tensor: raise NotImplementedError

    def greater_equal(self, other: Any) -> Tensor: raise NotImplementedError

    def gt(self, other: Any) -> Tensor: raise NotImplementedError

    def gt_(self, other: Any) -> Tensor: raise NotImplementedError

    def half(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def hardshrink(self, lambd: Any = ...) -> Tensor: raise NotImplementedError

    def heaviside(self, values: Any) -> Tensor: raise NotImplementedError

    def heaviside_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def histc(self, bins: Any = ..., min: Any = ..., max: Any = ...) -> Tensor: raise NotImplementedError

    def hypot(self, other: Any) -> Tensor: raise NotImplementedError

    def hypot_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def i0(self) -> Tensor: raise NotImplementedError

    def igamma(self, other: Any) -> Tensor: raise NotImplementedError

    def igammac(self, other: Any) -> Tensor: raise NotImplementedError

    def index_add(self, dim: Any, index: Any, source: Any, *, alpha: Any = ...) -> Tensor: raise NotImplementedError

    def index_add_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def index_copy(self, dim: Any, index: Any, source: Any) -> Tensor: raise NotImplementedError

    def index_copy_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def index_fill(self, dim: Any, index: Any, value: Any) -> Tensor: raise NotImplementedError

    def index_fill_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def index_select(self, dim: Any, index: Any) -> Tensor: raise NotImplementedError

    def inner(self, other: Any) -> Tensor: raise NotImplementedError

    def int(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def inverse(self) -> Tensor: raise NotImplementedError

    def is_complex(self) -> Any: raise NotImplementedError

    def is_contiguous(self, memory_format: Any = ...) -> Any: raise NotImplementedError

    def is_nonzero(self) -> Any: raise NotImplementedError

    def is_same_size(self, other: Any) -> Any: raise NotImplementedError

    def isclose(self, other: Any, rtol: Any = ..., atol: Any = ..., equal_nan: Any = ...) -> Tensor: raise NotImplementedError

    def isfinite(self) -> Tensor: raise NotImplementedError

    def isinf(self) -> Tensor: raise NotImplementedError

    def isnan(self) -> Tensor: raise NotImplementedError

    def kron(self, other: Any) -> Tensor: raise NotImplementedError

    def kthvalue(self, k: Any, dim: Any = ..., keepdim: Any = ...) -> Any: raise NotImplementedError

    def lcm(self, other: Any) -> Tensor: raise NotImplementedError

    def lcm_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def le(self, other: Any) -> Tensor: raise NotImplementedError

    def le_(self, other: Any) -> Tensor: raise NotImplementedError

    def lerp(self, end: Any, weight: Any) -> Tensor: raise NotImplementedError

    def lerp_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def less(self, other: Any) -> Tensor: raise NotImplementedError

    def less_equal(self, other: Any) -> Tensor: raise NotImplementedError

    def lgamma(self) -> Tensor: raise NotImplementedError

    def log(self) -> Tensor: raise NotImplementedError

    def log10(self) -> Tensor: raise NotImplementedError

    def log1p(self) -> Tensor: raise NotImplementedError

    def log1p_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def log2(self) -> Tensor: raise NotImplementedError

    def log_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def log_softmax(self, dim: Any = ..., dtype: Any = ...) -> Tensor: raise NotImplementedError

    def logaddexp(self, other: Any) -> Tensor: raise NotImplementedError

    def logaddexp2(self, other: Any) -> Tensor: raise NotImplementedError

    def logcumsumexp(self, dim: Any) -> Tensor: raise NotImplementedError

    def logdet(self) -> Tensor: raise NotImplementedError

    def logical_and(self, other: Any) -> Tensor: raise NotImplementedError

    def logical_and_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def logical_not(self) -> Tensor: raise NotImplementedError

    def logical_not_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def logical_or(self, other: Any) -> Tensor: raise NotImplementedError

    def logical_or_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def logical_xor(self, other: Any) -> Tensor: raise NotImplementedError

    def logical_xor_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def logit(self, eps: Any = ...) -> Tensor: raise NotImplementedError

    def logsumexp(self, dim: Any, keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def long(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def lt(self, other: Any) -> Tensor: raise NotImplementedError

    def lt_(self, other: Any) -> Tensor: raise NotImplementedError

    @property
    def mH(self) -> Tensor: raise NotImplementedError

    @property
    def mT(self) -> Tensor: raise NotImplementedError

    def masked_fill(self, mask: Any, value: Any) -> Tensor: raise NotImplementedError

    def masked_fill_(self, mask: Any, value: Any) -> Tensor: raise NotImplementedError

    def masked_select(self, mask: Any) -> Tensor: raise NotImplementedError

    def matmul(self, other: Any) -> Tensor: raise NotImplementedError

    def matrix_exp(self) -> Tensor: raise NotImplementedError

    def matrix_power(self, n: Any) -> Tensor: raise NotImplementedError

    def max(self, dim: Any = ..., keepdim: Any = ...) -> Any: raise NotImplementedError

    def maximum(self, other: Any) -> Tensor: raise NotImplementedError

    def maximum_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def mean(self, dim: Any = ..., keepdim: Any = ..., *, dtype: Any = ...) -> Tensor: raise NotImplementedError

    def median(self, dim: Any = ..., keepdim: Any = ...) -> Any: raise NotImplementedError

    def min(self, dim: Any = ..., keepdim: Any = ...) -> Any: raise NotImplementedError

    def minimum(self, other: Any) -> Tensor: raise NotImplementedError

    def minimum_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def mm(self, mat2: Any) -> Tensor: raise NotImplementedError

    def mode(self, dim: Any = ..., keepdim: Any = ...) -> Any: raise NotImplementedError

    def moveaxis(self, source: Any, destination: Any) -> Tensor: raise NotImplementedError

    def movedim(self, source: Any, destination: Any) -> Tensor: raise NotImplementedError

    def msort(self) -> Tensor: raise NotImplementedError

    def mul(self, other: Any) -> Tensor: raise NotImplementedError

    def mul_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def multiply(self, other: Any) -> Tensor: raise NotImplementedError

    def mv(self, vec: Any) -> Tensor: raise NotImplementedError

    def mvlgamma(self, p: Any) -> Tensor: raise NotImplementedError

    def nan_to_num(self, nan: Any = ..., posinf: Any = ..., neginf: Any = ...) -> Tensor: raise NotImplementedError

    def nan_to_num_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def nanmean(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def nanmedian(self, dim: Any = ..., keepdim: Any = ...) -> Any: raise NotImplementedError

    def nansum(self, dim: Any = ..., keepdim: Any = ...) -> Tensor: raise NotImplementedError

    def narrow(self, dim: Any, start: Any, length: Any) -> Tensor: raise NotImplementedError

    def ne(self, other: Any) -> Tensor: raise NotImplementedError

    def ne_(self, other: Any) -> Tensor: raise NotImplementedError

    def neg(self) -> Tensor: raise NotImplementedError

    def neg_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def negative(self) -> Tensor: raise NotImplementedError

    def new_empty(self, *args: Any, dtype: Any = ..., device: Any = ..., requires_grad: Any = ..., **kwargs: Any) -> Tensor: raise NotImplementedError

    def new_full(self, *args: Any, dtype: Any = ..., device: Any = ..., requires_grad: Any = ..., **kwargs: Any) -> Tensor: raise NotImplementedError

    def new_ones(self, *args: Any, dtype: Any = ..., device: Any = ..., requires_grad: Any = ..., **kwargs: Any) -> Tensor: raise NotImplementedError

    def new_tensor(self, *args: Any, dtype: Any = ..., device: Any = ..., requires_grad: Any = ..., **kwargs: Any) -> Tensor: raise NotImplementedError

    def new_zeros(self, *args: Any, dtype: Any = ..., device: Any = ..., requires_grad: Any = ..., **kwargs: Any) -> Tensor: raise NotImplementedError

    def nonzero(self, *, as_tuple: Any = ...) -> Any: raise NotImplementedError

    def norm(self, p: Any = ..., dim: Any = ..., keepdim: Any = ..., dtype: Any = ...) -> Tensor: raise NotImplementedError

    def normal_(self, mean: Any = ..., std: Any = ..., *, generator: Any = ...) -> Tensor: raise NotImplementedError

    def not_equal(self, other: Any) -> Tensor: raise NotImplementedError

    def outer(self, vec2: Any) -> Tensor: raise NotImplementedError

    def permute(self, *dims: Any) -> Tensor: raise NotImplementedError

    def pinverse(self, rcond: Any = ...) -> Tensor: raise NotImplementedError

    def polygamma(self, n: Any) -> Any: raise NotImplementedError

    def positive(self) -> Tensor: raise NotImplementedError

    def pow(self, exponent: Any) -> Tensor: raise NotImplementedError

    def pow_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def prelu(self, weight: Any) -> Tensor: raise NotImplementedError

    def prod(self, dim: Any = ..., keepdim: Any = ..., *, dtype: Any = ...) -> Tensor: raise NotImplementedError

    def put(self, index: Any, source: Any, accumulate: Any = ...) -> Tensor: raise NotImplementedError

    def put_(self, index: Any, source: Any, accumulate: Any = ...) -> Tensor: raise NotImplementedError

    def rad2deg(self) -> Tensor: raise NotImplementedError

    def rad2deg_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def random_(self, from_: Any = ..., to: Any = ..., *, generator: Any = ..., **kwargs: Any) -> Tensor: raise NotImplementedError

    def ravel(self) -> Tensor: raise NotImplementedError

    def reciprocal(self) -> Tensor: raise NotImplementedError

    def reciprocal_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def relu(self) -> Tensor: raise NotImplementedError

    def relu_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def remainder(self, other: Any) -> Tensor: raise NotImplementedError

    def remainder_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def repeat(self, *sizes: Any) -> Tensor: raise NotImplementedError

    def repeat_interleave(self, repeats: Any = ..., dim: Any = ..., *, output_size: Any = ...) -> Tensor: raise NotImplementedError

    def reshape(self, *shape: Any) -> Tensor: raise NotImplementedError

    def reshape_as(self, other: Any) -> Tensor: raise NotImplementedError

    def roll(self, shifts: Any, dims: Any = ...) -> Tensor: raise NotImplementedError

    def rot90(self, k: Any = ..., dims: Any = ...) -> Tensor: raise NotImplementedError

    def round(self) -> Tensor: raise NotImplementedError

    def round_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def rsqrt(self) -> Tensor: raise NotImplementedError

    def rsqrt_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def rsub(self, other: Any, *, alpha: Any = ...) -> Tensor: raise NotImplementedError

    def scatter(self, dim: Any, index: Any, src: Any = ..., *, value: Any = ..., reduce: Any = ...) -> Tensor: raise NotImplementedError

    def scatter_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def scatter_add(self, dim: Any, index: Any, src: Any) -> Tensor: raise NotImplementedError

    def scatter_add_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def scatter_reduce(self, dim: Any, index: Any, src: Any, reduce: Any, *, include_self: Any = ...) -> Tensor: raise NotImplementedError

    def scatter_reduce_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def select(self, dim: Any, index: Any, shown_dim: Any = ...) -> Tensor: raise NotImplementedError

    def sgn(self) -> Tensor: raise NotImplementedError

    def sgn_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def short(self, memory_format: Any = ...) -> Tensor: raise NotImplementedError

    def sigmoid(self) -> Tensor: raise NotImplementedError

    def sigmoid_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def sign(self) -> Tensor: raise NotImplementedError

    def sign_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def signbit(self) -> Tensor: raise NotImplementedError

    def sin(self) -> Tensor: raise NotImplementedError

    def sin_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def sinc(self) -> Tensor: raise NotImplementedError

    def sinh(self) -> Tensor: raise NotImplementedError

    def slogdet(self) -> Any: raise NotImplementedError

    def softmax(self, dim: Any = ..., dtype: Any = ...) -> Tensor: raise NotImplementedError

    def sort(self, dim: Any = ..., descending: Any = ..., *, stable: Any = ...) -> Any: raise NotImplementedError

    def split(self, split_size_or_sections: Any, dim: Any = ...) -> Any: raise NotImplementedError

    def sqrt(self) -> Tensor: raise NotImplementedError

    def sqrt_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def square(self) -> Tensor: raise NotImplementedError

    def square_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def squeeze(self, dim: Any = ...) -> Tensor: raise NotImplementedError

    def squeeze_(self, *args: Any) -> Tensor: raise NotImplementedError

    def std(self, dim: Any = ..., unbiased: Any = ..., keepdim: Any = ..., *, correction: Any = ...) -> Tensor: raise NotImplementedError

    def storage_offset(self) -> Any: raise NotImplementedError

    def stride(self, dim: Any = ...) -> Any: raise NotImplementedError

    def sub(self, other: Any, *, alpha: Any = ...) -> Tensor: raise NotImplementedError

    def sub_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def subtract(self, other: Any, *, alpha: Any = ...) -> Tensor: raise NotImplementedError

    def sum(self, dim: Any = ..., keepdim: Any = ..., *, dtype: Any = ...) -> Tensor: raise NotImplementedError

    def sum_to_size(self, *size: Any) -> Tensor: raise NotImplementedError

    def swapaxes(self, dim0: Any, dim1: Any) -> Tensor: raise NotImplementedError

    def swapaxes_(self, *args: Any) -> Tensor: raise NotImplementedError

    def swapdims(self, dim0: Any, dim1: Any) -> Tensor: raise NotImplementedError

    def swapdims_(self, *args: Any) -> Tensor: raise NotImplementedError

    def t(self) -> Tensor: raise NotImplementedError

    def t_(self, *args: Any) -> Tensor: raise NotImplementedError

    def take(self, index: Any) -> Tensor: raise NotImplementedError

    def take_along_dim(self, indices: Any, dim: Any = ...) -> Tensor: raise NotImplementedError

    def tan(self) -> Tensor: raise NotImplementedError

    def tanh(self) -> Tensor: raise NotImplementedError

    def tanh_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def tensor_split(self, indices_or_sections: Any, dim: Any = ...) -> Any: raise NotImplementedError

    def tile(self, *dims: Any) -> Tensor: raise NotImplementedError

    def to(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def topk(self, k: Any, dim: Any = ..., largest: Any = ..., sorted: Any = ...) -> Any: raise NotImplementedError

    def trace(self) -> Tensor: raise NotImplementedError

    def transpose(self, dim0: Any, dim1: Any) -> Tensor: raise NotImplementedError

    def transpose_(self, *args: Any) -> Tensor: raise NotImplementedError

    def tril(self, diagonal: Any = ...) -> Tensor: raise NotImplementedError

    def tril_(self, diagonal: Any = ...) -> Tensor: raise NotImplementedError

    def triu(self, diagonal: Any = ...) -> Tensor: raise NotImplementedError

    def triu_(self, diagonal: Any = ...) -> Tensor: raise NotImplementedError

    def true_divide(self, other: Any, *, rounding_mode: Any = ...) -> Tensor: raise NotImplementedError

    def true_divide_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def trunc(self) -> Tensor: raise NotImplementedError

    def trunc_(self, *args: Any, **kwargs: Any) -> Tensor: raise NotImplementedError

    def type(self, dtype: Any = ..., non_blocking: Any = ..., **kwargs: Any) -> Any: raise NotImplementedError

    def type_as(self, other: Any) -> Tensor: raise NotImplementedError

    def unbind(self, dim: Any = ...) -> Any: raise NotImplementedError

    def unflatten(self, dim: Any, sizes: Any) -> Tensor: raise NotImplementedError

    def uniform_(self, a: Any = ..., b: Any = ..., *, generator: Any = ...) -> Tensor: raise NotImplementedError

    def unique(self, sorted: Any = ..., return_inverse: Any = ..., return_counts: Any = ..., dim: Any = ...) -> Any: raise NotImplementedError

    def unique_consecutive(self, return_inverse: Any = ..., return_counts: Any = ..., dim: Any = ...) -> Any: raise NotImplementedError

    def unsqueeze(self, dim: Any) -> Tensor: raise NotImplementedError

    def unsqueeze_(self, *args: Any) -> Tensor: raise NotImplementedError

    def var(self, dim: Any = ..., unbiased: Any = ..., keepdim: Any = ..., *, correction: Any = ...) -> Tensor: raise NotImplementedError

    def view(self, *shape: Any) -> Tensor: raise NotImplementedError

    def view_as(self, other: Any) -> Tensor: raise NotImplementedError

    def where(self, condition: Any, other: Any) -> Tensor: raise NotImplementedError

    def xlogy(self, other: Any) -> Tensor: raise NotImplementedError

    def zero_(self) -> Tensor: raise NotImplementedError
