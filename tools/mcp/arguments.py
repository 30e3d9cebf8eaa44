"""Checking an MCP tool call's arguments in our own words, before the SDK sees them.

The SDK would validate with pydantic, which ignores argument names it does not know (so the
seed's `maxTurns` was silently dropped) and answers a wrong value with pydantic's message and a
link to its docs. Here every argument is checked against the tool's published input schema:
known names only (the seed's camelCase names are accepted as aliases), the JSON type, ranges,
lengths and allowed values (case-insensitive for words like platforms and sorts), each refusal
naming the argument and what it accepts.

    >>> schema = {"properties": {"max_turns": {"type": "integer", "minimum": 1, "maximum": 50}}}
    >>> check_arguments("get_conversation_history", {"maxTurns": 2}, schema)
    {'max_turns': 2}
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from chatmem.errors import ArgumentError

# arguments whose published values can grow while the server runs (a new platform imported)
OPEN_ENUMS = frozenset({"platform"})
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake(name: str) -> str:
    """`maxTurns` -> `max_turns`; other names unchanged."""
    return _CAMEL.sub(r"_\1", name).lower()


def _closest(word: str, choices: list[str]) -> str:
    near = difflib.get_close_matches(word.lower(), choices, n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def check_arguments(tool: str, args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments under their schema names, values checked (enum words canonicalised).
    Raises ArgumentError naming the argument for anything the tool would not accept."""
    props: dict[str, Any] = schema.get("properties") or {}
    known = list(props)
    out: dict[str, Any] = {}
    for key, value in args.items():
        name = key if key in props else snake(key)
        if name not in props:
            raise ArgumentError(f"{tool} has no argument {key!r}{_closest(snake(key), known)}; "
                                f"its arguments are {', '.join(known) or 'none'}")
        if name in out:
            raise ArgumentError(f"{key!r} and {name!r} are the same argument of {tool}; pass it once")
        out[name] = _check_value(name, value, props[name])
    missing = [r for r in schema.get("required") or [] if r not in out]
    if missing:
        raise ArgumentError(f"{tool} needs {', '.join(missing)}")
    return out


def _variants(prop: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """The non-null schemas a value may match, and whether null is allowed."""
    options = prop.get("anyOf") or [prop]
    nullable = any(o.get("type") == "null" for o in options)
    return [o for o in options if o.get("type") != "null"], nullable


def _check_value(name: str, value: Any, prop: dict[str, Any]) -> Any:
    options, nullable = _variants(prop)
    if value is None:
        if nullable:
            return None
        raise ArgumentError(f"{name} must not be null; {_describe(name, options[0] if options else {})}")
    errors = []
    for option in options:
        try:
            return _check_one(name, value, option)
        except ArgumentError as e:
            errors.append(str(e))
    raise ArgumentError(errors[0] if errors else f"{name}: unexpected value {value!r}")


def _describe(name: str, s: dict[str, Any]) -> str:
    kind = s.get("type")
    if "enum" in s:
        return f"{name} must be one of {', '.join(map(str, s['enum']))}"
    if kind == "integer":
        lo, hi = s.get("minimum"), s.get("maximum")
        if lo is not None and hi is not None:
            return f"{name} must be a whole number from {lo} to {hi}"
        return f"{name} must be a whole number"
    if kind == "boolean":
        return f"{name} must be true or false"
    if kind == "array":
        return f"{name} must be a list of id strings"
    return f"{name} must be a string"


def _check_one(name: str, value: Any, s: dict[str, Any]) -> Any:
    kind = s.get("type")
    if kind == "string":
        if not isinstance(value, str):
            raise ArgumentError(f"{_describe(name, s)}; got {value!r}")
        if "enum" in s and name in OPEN_ENUMS:
            return value.strip().lower()  # the tool checks it against what the store holds now
        if "enum" in s:
            canon = {str(e).lower(): e for e in s["enum"]}
            word = value.strip().lower()
            if word not in canon:
                raise ArgumentError(f"{_describe(name, s)}; got {value!r}{_closest(word, list(canon))}")
            return canon[word]
        if len(value) < s.get("minLength", 0):
            raise ArgumentError(f"{name} must not be empty")
        if "maxLength" in s and len(value) > s["maxLength"]:
            raise ArgumentError(f"{name} must be at most {s['maxLength']} characters; got {len(value)}")
        return value
    if kind == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(f"{_describe(name, s)}; got {value!r}")
        if ("minimum" in s and value < s["minimum"]) or ("maximum" in s and value > s["maximum"]):
            raise ArgumentError(f"{_describe(name, s)}; got {value}")
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ArgumentError(f"{_describe(name, s)}; got {value!r}")
        return value
    if kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ArgumentError(f"{_describe(name, s)}; got {value!r}")
        if len(value) < s.get("minItems", 0):
            raise ArgumentError(f"{name} must have at least {s['minItems']} item(s)")
        if "maxItems" in s and len(value) > s["maxItems"]:
            raise ArgumentError(f"{name} must have at most {s['maxItems']} items; got {len(value)}")
        return value
    return value
