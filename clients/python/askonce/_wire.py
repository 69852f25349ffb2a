"""Conversion between the API's JSON and the dataclasses of askonce.models.

Every field of a model names its JSON property in its metadata ("json"), so
that decoding and encoding need no second list of names.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
import typing
from typing import Any

_FRACTION = re.compile(r"\.(\d+)")


def parse_time(s: str) -> datetime.datetime:
    """Parses an RFC 3339 time as the server writes it (Go's time.Time:
    nanoseconds and a trailing Z are both possible; Python < 3.11 takes
    neither)."""
    s = s.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    # datetime takes microseconds: cut nanoseconds, pad shorter fractions.
    s = _FRACTION.sub(lambda m: "." + (m.group(1) + "000000")[:6], s, count=1)
    return datetime.datetime.fromisoformat(s)


def _decode(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _decode(args[0], value) if len(args) == 1 else value
    if origin is list:
        (item,) = typing.get_args(tp)
        return [_decode(item, v) for v in value]
    if origin is dict:
        _, item = typing.get_args(tp)
        return {k: _decode(item, v) for k, v in value.items()}
    if origin is typing.Literal or tp is Any:
        return value
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return from_dict(tp, value)
    if tp is datetime.datetime:
        return parse_time(value)
    if tp is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def from_dict(cls: type, data: dict) -> Any:
    """Builds the dataclass cls from the API's JSON object data. Properties
    the model does not know (from a newer server) are ignored; a required
    property that is missing is a TypeError naming it."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: want a JSON object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        name = f.metadata.get("json", f.name)
        if name in data:
            kwargs[f.name] = _decode(hints[f.name], data[name])
    return cls(**kwargs)


def to_wire(value: Any) -> Any:
    """The JSON form of value: a model becomes an object with the API's
    property names, leaving out fields that are None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if v is not None:
                out[f.metadata.get("json", f.name)] = to_wire(v)
        return out
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: to_wire(v) for k, v in value.items()}
    return value
