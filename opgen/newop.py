"""Derive a new op's spec from a similar one: every name renamed, the recipe kept for the user to edit."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from .errors import OpgenError
from .spec.load import load_spec, parse_spec
from .spec.models import OpSpec, camel_to_snake

_CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")


@dataclass(frozen=True)
class DerivedSpec:
    spec: OpSpec
    text: str


def derive_spec(like: Path, op_type: str, *, category: str | None, experimental: bool | None) -> DerivedSpec:
    if not _CAMEL.match(op_type) or len(op_type) > 64:
        raise OpgenError(f"op type {op_type!r} must be CamelCase ASCII like SwishGrad (letters and digits)")
    base = load_spec(like)
    text = _rename(base.text, base.spec, op_type)
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    data = yaml.load(text)
    data["op_type"] = op_type
    if "name" in data:
        data["name"] = camel_to_snake(op_type)
    if category is not None:
        data["category"] = category
    if experimental is not None:
        data["experimental"] = experimental
    data["golden"]["reference"] = _reference_placeholder(data["golden"].get("reference"), base.spec)
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    new_text = buffer.getvalue()
    return DerivedSpec(parse_spec(new_text, f"spec derived from {like}", base=like.parent), new_text)


def _reference_placeholder(old: object, base: OpSpec) -> CommentedMap:
    """A forward formula left empty: `opgen check` fails ("numerics unchecked: no reference") until it is
    written. wrt and grad keep the base op's inputs (renamed), else its first two."""
    names = [t.name for t in base.inputs]
    wrt = old.get("wrt") if isinstance(old, dict) and old.get("wrt") else names[-1]
    grad = old.get("grad") if isinstance(old, dict) and old.get("grad") else names[0]
    placeholder = CommentedMap([("forward", None), ("wrt", wrt), ("grad", grad)])
    placeholder.yaml_add_eol_comment("fill in the forward function, e.g. x * sigmoid(x); opgen check fails "
                                     "until you do", "forward")
    return placeholder


def _rename(text: str, spec: OpSpec, op_type: str) -> str:
    """Rename the old op everywhere but in the compute recipe (the math the user will rewrite)."""
    old_words = _words(spec.op_type)
    new_words = _words(op_type)
    pairs = [(spec.op_type, op_type), (spec.snake_name, camel_to_snake(op_type))]
    old_stem, new_stem = _stem(old_words), _stem(new_words)
    if old_stem and new_stem:
        pairs.append((old_stem, new_stem))
    lines = text.splitlines(keepends=True)
    start, end = _recipe_lines(text)
    for i, line in enumerate(lines):
        if not start <= i < end:
            lines[i] = _replace_all(line, pairs)
    return "".join(lines)


def _words(camel: str) -> list[str]:
    return re.findall(r"[A-Z][a-z0-9]*", camel)


def _stem(words: list[str]) -> str:
    """GeluGrad -> Gelu: the part naming the function whose gradient the op computes."""
    return "".join(words[:-1]) if len(words) > 1 and words[-1] == "Grad" else ""


def _replace_all(line: str, pairs: list[tuple[str, str]]) -> str:
    for old, new in pairs:
        for old_case, new_case in ((old, new), (old.lower(), new.lower()), (old.upper(), new.upper())):
            line = line.replace(old_case, new_case)
    return line


def _recipe_lines(text: str) -> tuple[int, int]:
    """Line range [start, end) of the `compute:` section (0-based), found with ruamel's positions."""
    data = YAML(typ="rt").load(text)
    keys = list(data.keys())
    index = keys.index("compute")
    start = data.lc.key("compute")[0]
    end = data.lc.key(keys[index + 1])[0] if index + 1 < len(keys) else len(text.splitlines())
    return start, end
