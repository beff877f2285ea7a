"""Read a spec file with ruamel.yaml and validate it, pointing errors at file:line and field."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from ..errors import OpgenError, spec_error
from ..files import NotRegularFile, read_regular
from . import models
from .attrs import attr_types
from .issues import SpecIssue
from .license import read_license_file
from .license_from import read_license_from
from .models import OpSpec
from .semantics import check_semantics

MAX_SPEC_BYTES = 1 << 20
MAX_DEPTH = 32
MAX_NODES = 100_000
Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class LoadedSpec:
    """A validated spec and the exact bytes it came from (recorded in `.opgen/`)."""

    spec: OpSpec
    path: Path
    text: str


def load_spec(path: Path) -> LoadedSpec:
    try:
        raw = read_regular(path, MAX_SPEC_BYTES + 1)
    except NotRegularFile as error:
        raise OpgenError(f"the spec is {error.kind}, not a regular file; opgen reads no spec from a pipe or a "
                         "device: save it to a file first (`cat > op.yaml`) and pass that file",
                         where=str(path)) from None
    except (FileNotFoundError, NotADirectoryError):
        raise OpgenError("spec file not found; pass the path of an op spec YAML (see schemas/)",
                         where=str(path)) from None
    if len(raw) > MAX_SPEC_BYTES:
        raise OpgenError(f"spec is larger than {MAX_SPEC_BYTES} bytes; an op spec is a few KiB", where=str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OpgenError(f"spec is not UTF-8 text (byte {exc.start})", where=str(path)) from None
    return LoadedSpec(parse_spec(text, str(path), base=path.parent), path, text)


def parse_spec(text: str, where: str, base: Path | None = None) -> OpSpec:
    """Validate spec text; all its problems at once, each naming `where:line` and the field.

    `base` is the spec's folder: `license_header_file` is read from inside it, and the loaded spec's
    `license_header` then holds that file's text.
    """
    data = _read_yaml(text, where)
    try:
        spec = OpSpec.model_validate(data, context={"attrs": attr_types(data)})
    except ValidationError as exc:
        problems = [(loc, _describe(error, loc)) for loc, error in _distinct_errors(data, exc)]
        raise _problems(where, data, problems) from None
    issues: list[SpecIssue] = check_semantics(spec)
    header, blocks = None, None
    if spec.license_header_file is not None:
        header, issue = read_license_file(spec, base)
        issues += [issue] if issue else []
    if spec.license_header_from is not None:
        blocks, found = read_license_from(spec, base)
        issues += found
    if issues:
        raise _problems(where, data, [(_data_loc(data, i.loc), f"{_dotted(i.loc)}: {i.message}") for i in issues])
    spec = spec.model_copy(update={"license_header": header}) if header is not None else spec
    spec._license_blocks = blocks
    return spec


def _distinct_errors(data: Any, exc: ValidationError) -> Iterator[tuple[Loc, Any]]:
    """One pydantic error per field: a value failing every member of a union reports once, for the first."""
    seen: set[Loc] = set()
    for error in exc.errors():
        loc = tuple(error["loc"])
        tag = next((k for k, part in enumerate(loc) if isinstance(part, str) and _is_pydantic_tag(part)), None)
        key = loc[:tag] if tag is not None else loc
        if key not in seen:
            seen.add(key)
            yield _data_loc(data, loc), error


def _problems(where: str, data: Any, found: list[tuple[Loc, str]]) -> OpgenError:
    """Problems ordered by line (then as found), each as an OpgenError at `where:line`."""
    def line(loc: Loc) -> int:
        return ([0, *_lines(data, loc)])[-1]

    ordered = sorted(enumerate(found), key=lambda item: (line(item[1][0]), item[0]))
    return spec_error(where, [OpgenError(message, where=_where(where, data, loc)) for _, (loc, message) in ordered])


def _read_yaml(text: str, where: str) -> Any:
    yaml = YAML(typ="rt")
    try:
        data = yaml.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise OpgenError(f"malformed YAML: {problem}; fix the syntax there", where=f"{where}{line}") from None
    except RecursionError:
        raise OpgenError(f"YAML nested deeper than {MAX_DEPTH} levels", where=where) from None
    except ValueError as exc:  # ruamel's int() of a decimal beyond Python's digit limit, or an impossible date
        raise _unreadable(text, where, exc) from None
    if not isinstance(data, CommentedMap):
        raise OpgenError("a spec is a YAML mapping with op_type, category, inputs, ... (see schemas/)", where=where)
    _check_shape(data, where)
    return data


def _unreadable(text: str, where: str, exc: ValueError) -> OpgenError:
    """The value ruamel could not convert, at its line where a pattern finds it."""
    digits = sys.get_int_max_str_digits()
    number = re.search(rf"\d[\d_]{{{digits},}}", text)
    if number:
        return OpgenError(f"an integer of more than {digits} digits; no spec value is that large, write the "
                          "intended number", where=f"{where}:{_line(text, number.start())}")
    date = re.search(r"(?<![\w.-])\d{4}-\d\d?-\d\d?(?![\w.-])", text)
    if date:
        return OpgenError(f"YAML reads an impossible date here ({exc}); quote the value if it is text",
                          where=f"{where}:{_line(text, date.start())}")
    return OpgenError(f"YAML cannot read a value ({exc}); quote it if it is text", where=where)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _check_shape(data: Any, where: str) -> None:
    """Refuse aliases, deep nesting and huge documents before pydantic walks them."""
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, (CommentedMap, CommentedSeq)):
            continue
        if id(node) in seen:
            raise OpgenError("YAML anchors and aliases are not allowed in a spec; write the values out", where=where)
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise OpgenError(f"YAML nested deeper than {MAX_DEPTH} levels", where=where)
        if len(seen) > MAX_NODES:
            raise OpgenError(f"spec has more than {MAX_NODES} YAML nodes", where=where)
        children = node.values() if isinstance(node, CommentedMap) else node
        stack.extend((child, depth + 1) for child in children)


def _data_loc(data: Any, loc: Loc) -> Loc:
    """Keep the parts of a pydantic loc that name real keys/indexes of the YAML data."""
    kept: list[str | int] = []
    node = data
    for part in loc:
        in_map = isinstance(node, dict) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_map or in_list:
            node = node[part]
            kept.append(part)
        elif isinstance(node, dict) and isinstance(part, str) and not _is_pydantic_tag(part):
            kept.append(part)  # a missing or unknown key: still worth naming
            break
    return tuple(kept)


def _is_pydantic_tag(part: str) -> bool:
    """A loc part pydantic adds (a union member: a type or one of the spec's model classes), not a key."""
    return "[" in part or part in {"str", "int", "float", "bool", "tuple", "dict", "list"} or part in _MODEL_NAMES


_MODEL_NAMES = frozenset(name for name, value in vars(models).items()
                         if isinstance(value, type) and issubclass(value, BaseModel))


def _lines(data: Any, loc: Loc) -> Iterator[int]:
    node = data
    for part in loc:
        if isinstance(node, CommentedMap) and part in node:
            yield node.lc.key(part)[0] + 1
            node = node[part]
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
            yield node.lc.item(part)[0] + 1
            node = node[part]
        else:
            return


def _where(where: str, data: Any, loc: Loc) -> str:
    lines = list(_lines(data, loc))
    return f"{where}:{lines[-1]}" if lines else where


def _dotted(loc: Loc) -> str:
    out = ""
    for part in loc:
        name = part if isinstance(part, int) or part.isidentifier() else repr(part)
        out += f"[{name}]" if isinstance(part, int) else (f".{name}" if out else str(name))
    return out or "(top level)"


def _describe(error: Any, loc: Loc) -> str:
    field = _dotted(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        return f"{field}: unknown field; remove it or fix its spelling (`opgen schema` lists the fields)"
    if kind == "missing":
        return f"{field}: required field is missing; add it"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{field}: {message}"
