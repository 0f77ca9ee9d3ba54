"""One codec for every game's state, derived from the state's type.

A state is a frozen dataclass; :func:`dump` writes it as plain JSON data and :func:`load` reads it
back, each field by its declared type:

=================================  ==============================  =============================
declared type                      dumped as                        loaded as
=================================  ==============================  =============================
``str``, ``int``, ``bool``,        itself                           itself (trusted: ``dump`` wrote
``float``, ``None``, ``Any``,                                       it)
``Literal[...]``
a ``str``/``int`` ``Enum``         its ``value``                    ``Enum(value)``
a dataclass                        an object, one member per field  ``cls(**members)``
``tuple[X, ...]``, ``tuple[X, Y]``  a list                           a tuple
``list[X]``                        a list                           a list
``frozenset[X]``, ``set[X]``       a sorted list                    a frozenset, a set
``dict[K, V]``                     an object (``int`` and enum      a dict
                                   keys as strings)
``X | None``                       ``null`` or ``X``'s form         ``None`` or ``X``
:class:`~ludoteca.core.rng.Rng`         ``{"seed", "counter"}``          an ``Rng``
=================================  ==============================  =============================

Per field (``dataclasses.field(metadata=...)``):

- :data:`FLATTEN`: a nested dataclass whose fields are written into the outer object instead of
  under the field's own name (Ludix's options sit beside its other fields).
- ``init=False`` fields (computed in ``__post_init__``) are dumped but not loaded: a derived value
  the stored form shows (Speculation's guess ``answer``), recomputed on load.
- A field with a default may be missing from the data (a field added after games were stored):
  it takes its default.

Per class, :func:`interned` (a small immutable value a state holds by the hundred, Speculation's
guesses): ``load`` shares one instance per distinct value instead of building each.

Other types get a codec with :func:`register` (``Rng`` is registered here). A type the codec
cannot read (a union of two non-null types, a bare class) fails when its plan is made, at the
first ``dump`` or ``load`` of the state type, never halfway through a game.

Fast: it runs twice on every move (the state loaded from the store, the new one dumped). The
plan of a type (the field list, each field's converter) is made once, cached, and compiled into
two generated functions of one expression each; types whose JSON form is themselves (scalars,
``Optional`` of them) get no converter call at all, and their tuples are a single ``list(...)`` /
``tuple(...)``. Measured with ``python tests/bench/bench_codec.py`` (CPU time per call, medians of
7 runs of 2,000, on this shared 2-core machine, the code before this module and after it run back
to back, three runs each), for a state in mid-game:

- Ludix (whose former ``load`` called ``typing.get_type_hints`` every time): load 430-450 µs ->
  4-7 µs (1.6-2.0 times one ``get_type_hints`` call -> 0.02-0.03 times), dump 5.3 -> 1.1-1.7 µs.
- Speculation (hand-written ``dump``/``load`` before, 28 guesses in its history): load 155-180 ->
  70-100 µs, dump 37-53 -> 30-58 µs (most of it the 30 frozen dataclasses' ``__init__``).
"""

from __future__ import annotations

import dataclasses
import operator
import types
from collections.abc import Callable, Mapping
from enum import Enum, Flag
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from ludoteca.core.rng import Rng

T = TypeVar("T")

Convert = Callable[[Any], Any]
"""One converter: a value to its JSON form (encode) or back (decode)."""

FLATTEN: Mapping[str, Any] = types.MappingProxyType({"ludoteca.core.codec": "flatten"})
"""Field metadata: the nested dataclass's fields are written into the outer object."""

_SCALARS = (str, int, bool, float, type(None))
_CUSTOM: dict[type, tuple[Convert, Convert]] = {}


class CodecError(TypeError):
    """A type the codec cannot derive a form for (a programming error, raised at plan time)."""


def register(cls: type[T], encode: Callable[[T], Any], decode: Callable[[Any], T]) -> None:
    """Give ``cls`` (not a dataclass) its own JSON form. Register before the first plan that
    uses it (plans are cached)."""
    _CUSTOM[cls] = (encode, decode)


register(Rng, Rng.dump, lambda data: Rng(str(data["seed"]), int(data["counter"])))

INTERN_LIMIT = 16384
"""Instances an interned class keeps (:func:`interned`); the table starts afresh when full."""
_INTERNED: dict[type, dict[tuple[Any, ...], Any]] = {}


def interned(cls: type[T]) -> type[T]:
    """Class decorator (above ``@dataclass(frozen=True)``): :func:`load` builds one instance per
    distinct value of the class's ``__init__`` fields and shares it. For small immutable values
    read by the hundred on every load (Speculation's guesses): a lookup instead of a frozen
    ``__init__``. Every field must hold a hashable value, the fields not in ``__init__`` must
    follow from the others (``__post_init__``), and equal fields must mean the same value (``1``
    and ``True`` are equal: don't intern a field that may hold either)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise CodecError(f"{cls.__name__}: only a frozen dataclass can be interned")
    if cls in _PLANS:
        raise CodecError(f"{cls.__name__}: interned after its plan was made")
    _INTERNED[cls] = {}
    return cls


def dump(value: Any) -> dict[str, Any]:
    """``value`` (a dataclass instance) as fresh JSON data."""
    encode: Callable[[Any], dict[str, Any]] = _plan(type(value))[0]
    return encode(value)


def load(cls: type[T], data: Mapping[str, Any]) -> T:
    """The ``cls`` instance that :func:`dump` wrote as ``data``."""
    decode: Callable[[Mapping[str, Any]], T] = _plan(cls)[1]
    return decode(data)


# -- plans ---------------------------------------------------------------------------------------
Plan = tuple[Convert, Convert]
"""(encode, decode) of one dataclass."""
Form = tuple[Convert | None, Convert | None]
"""(encode, decode) of one declared type; ``None`` where the JSON form is the value itself."""


def _plan(cls: type) -> Plan:
    """The cached plan of ``cls`` (made at its first use)."""
    plan = _PLANS.get(cls)
    if plan is None:
        if not dataclasses.is_dataclass(cls):
            raise CodecError(f"{cls!r} is not a dataclass")
        _building.add(cls)
        try:
            plan = _PLANS[cls] = _dataclass_plan(cls)
        finally:
            _building.discard(cls)
    return plan


_PLANS: dict[type, Plan] = {}
_building: set[type] = set()
"""Dataclasses whose plan is being made (a type that contains itself is read through the cache
at call time)."""


def _dataclass_plan(cls: type) -> Plan:
    hints = get_type_hints(cls)
    encoded: list[tuple[str, Convert | None]] = []
    decoded: list[tuple[str, Convert | None, bool]] = []  # (name, decode, has a default)
    flat: list[tuple[str, Plan]] = []  # flattened fields, written after the others
    for f in dataclasses.fields(cls):
        if f.metadata.get("ludoteca.core.codec") == "flatten":
            inner = hints[f.name]
            if not (isinstance(inner, type) and dataclasses.is_dataclass(inner)):
                raise CodecError(f"{cls.__name__}.{f.name}: only a dataclass field can be flattened")
            clash = {g.name for g in dataclasses.fields(inner)} & {g.name for g in dataclasses.fields(cls)}
            if clash:
                raise CodecError(f"{cls.__name__}.{f.name}: flattened fields clash with {sorted(clash)}")
            flat.append((f.name, _plan(inner)))
            continue
        enc, dec = _form(hints[f.name])
        encoded.append((f.name, enc))
        if f.init:
            has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            decoded.append((f.name, dec, has_default))

    def decode_slowly(data: Mapping[str, Any]) -> Any:
        """A field missing: its default, or a ``KeyError`` naming it."""
        kwargs: dict[str, Any] = {}
        for name, dec, has_default in decoded:
            if name in data:
                v = data[name]
                kwargs[name] = v if dec is None else dec(v)
            elif not has_default:
                raise KeyError(f"{cls.__name__}: {name!r} missing")
        for name, (_, flat_decode) in flat:
            kwargs[name] = flat_decode(data)
        return cls(**kwargs)

    return _compiled(cls, encoded, decoded, flat, decode_slowly)


def _compiled(cls: type, encoded: list[tuple[str, Convert | None]], decoded: list[tuple[str, Convert | None, bool]],
              flat: list[tuple[str, Plan]], decode_slowly: Convert) -> Plan:
    """The plan as two generated functions, one expression each (as ``dataclasses`` builds
    ``__init__``): ``{"a": value.a, "b": c1(value.b), **f0(value.opts)}`` and
    ``cls(a=data["a"], b=d1(data["b"]), opts=g0(data))``, about twice as fast as a loop over the
    fields. A missing key falls back to ``decode_slowly``."""
    namespace: dict[str, Any] = {"cls": cls, "decode_slowly": decode_slowly}
    items, names, reads = [], [], []
    for i, (name, enc) in enumerate(encoded):
        namespace[f"e{i}"] = enc
        items.append(f"{name!r}: value.{name}" if enc is None else f"{name!r}: e{i}(value.{name})")
    for i, (name, dec, _) in enumerate(decoded):
        namespace[f"d{i}"] = dec
        names.append(name)
        reads.append(f"data[{name!r}]" if dec is None else f"d{i}(data[{name!r}])")
    for i, (name, (flat_encode, flat_decode)) in enumerate(flat):
        namespace[f"f{i}"], namespace[f"g{i}"] = flat_encode, flat_decode
        items.append(f"**f{i}(value.{name})")
        names.append(name)
        reads.append(f"g{i}(data)")
    source = (
        "def encode(value):\n"
        f"    return {{{', '.join(items)}}}\n"
    )
    table = _INTERNED.get(cls)
    if table is None:
        args = ", ".join(f"{name}={read}" for name, read in zip(names, reads, strict=True))
        source += (
            "def decode(data):\n"
            "    try:\n"
            f"        return cls({args})\n"
            "    except KeyError:\n"
            "        return decode_slowly(data)\n"
        )
    else:  # the key: the __init__ fields' values, as they would be passed
        namespace["table"], namespace["limit"] = table, INTERN_LIMIT
        args = ", ".join(f"{name}=key[{i}]" for i, name in enumerate(names))
        source += (
            "def decode(data):\n"
            "    try:\n"
            f"        key = ({''.join(read + ', ' for read in reads)})\n"
            "    except KeyError:\n"
            "        return decode_slowly(data)\n"
            "    value = table.get(key)\n"
            "    if value is None:\n"
            "        if len(table) >= limit:\n"
            "            table.clear()\n"
            f"        value = table[key] = cls({args})\n"
            "    return value\n"
        )
    exec(compile(source, f"<ludoteca.core.codec plan of {cls.__qualname__}>", "exec"), namespace)
    return namespace["encode"], namespace["decode"]


def _nested(cls: type) -> Form:
    if cls in _building:  # a type inside itself: look its plan up when it runs
        return (lambda v: _plan(cls)[0](v)), (lambda v: _plan(cls)[1](v))
    return _plan(cls)


def _form(hint: Any) -> Form:
    """How one declared type is written and read."""
    if hint is Any or hint in _SCALARS:
        return None, None
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        if not all(isinstance(a, _SCALARS) for a in args):
            raise CodecError(f"{hint!r}: only literals of scalars")
        return None, None
    if origin in (Union, types.UnionType):
        return _union(hint, args)
    if origin is not None:
        return _generic(hint, origin, args)
    if isinstance(hint, type):
        if hint in _CUSTOM:
            return _CUSTOM[hint]
        if issubclass(hint, Enum):
            return _enum(hint)
        if dataclasses.is_dataclass(hint):
            return _nested(hint)
    raise CodecError(f"no codec for {hint!r}")


def _enum(cls: type[Enum], optional: bool = False) -> Form:
    """Both ways a lookup in a dict built once (``member.value`` is a Python-level descriptor
    call in Python 3.11, several times slower); ``optional``: ``None`` maps to ``None``. A
    :class:`~enum.Flag` (whose combined members are in no dict) reads ``value``."""
    if not all(isinstance(m.value, str | int) for m in cls):
        raise CodecError(f"{cls.__name__}: only enums of strings or integers")
    none: dict[Any, Any] = {None: None} if optional else {}
    by_value = {**none, **{m.value: m for m in cls}}
    if issubclass(cls, Flag):
        enc = operator.attrgetter("value")
        return (_optional(enc) if optional else enc), by_value.__getitem__
    to_value = {**none, **{m: m.value for m in cls}}
    return to_value.__getitem__, by_value.__getitem__


def _union(hint: Any, args: tuple[Any, ...]) -> Form:
    others = [a for a in args if a is not type(None)]
    forms = [_form(a) for a in others]
    if all(f == (None, None) for f in forms):  # int | str | None: all plain
        return None, None
    if len(others) != 1:
        raise CodecError(f"{hint!r}: a union of more than one converted type cannot be read back")
    if len(others) < len(args) and isinstance(others[0], type) and issubclass(others[0], Enum) \
            and others[0] not in _CUSTOM:
        return _enum(others[0], optional=True)
    enc, dec = forms[0]
    if len(others) == len(args):
        return enc, dec
    return (None if enc is None else _optional(enc)), (None if dec is None else _optional(dec))


def _generic(hint: Any, origin: Any, args: tuple[Any, ...]) -> Form:
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _collection(_form(args[0]), list, tuple)
        forms = [_form(a) for a in args]
        if all(f == (None, None) for f in forms):
            return list, tuple
        encs = [f[0] or _same for f in forms]
        decs = [f[1] or _same for f in forms]
        return ((lambda v: [e(x) for e, x in zip(encs, v, strict=True)]),
                (lambda v: tuple([d(x) for d, x in zip(decs, v, strict=True)])))
    if origin is list:
        return _collection(_form(args[0]) if args else (None, None), list, list)
    if origin in (frozenset, set):
        return _collection(_form(args[0]) if args else (None, None), sorted, origin)
    if origin in (dict, Mapping):
        return _dict(hint, *(args or (str, Any)))
    raise CodecError(f"no codec for {hint!r}")


def _collection(item: Form, dump_as: Convert, load_as: Convert) -> Form:
    """A list, tuple or set of one type: ``dump_as`` / ``load_as`` build it from a list."""
    enc, dec = item
    return (dump_as if enc is None else _each(enc, dump_as)), (load_as if dec is None else _each(dec, load_as))


def _each(convert: Convert, build: Convert) -> Convert:
    if build is list:
        return lambda v: [convert(x) for x in v]
    return lambda v: build([convert(x) for x in v])


def _optional(convert: Convert) -> Convert:
    return lambda v: None if v is None else convert(v)


def _dict(hint: Any, key: Any, value: Any) -> Form:
    venc, vdec = _form(value)
    if key is str:
        kenc: Convert | None = None
        kdec: Convert | None = None
    elif key is int:
        kenc, kdec = str, int
    elif isinstance(key, type) and issubclass(key, Enum):
        kenc, kdec = _enum(key)
        if isinstance(next(iter(key)).value, int):
            members = {str(m.value): m for m in key}
            kenc, kdec = (lambda k: str(k.value)), members.__getitem__
    else:
        raise CodecError(f"{hint!r}: only str, int and enum keys")
    if kenc is None and venc is None and vdec is None:  # plain keys and values: one copy, in C
        return dict, dict
    ke, kd, ve, vd = kenc or _same, kdec or _same, venc or _same, vdec or _same
    return (lambda d: {ke(k): ve(v) for k, v in d.items()}), (lambda d: {kd(k): vd(v) for k, v in d.items()})


def _same(value: Any) -> Any:
    return value
