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
    """Rename the old op everywhere (comments and descriptions too) but in the compute recipe's steps (the math
    the user will rewrite; its comments are renamed)."""
    old_words, new_words = _words(spec.op_type), _words(op_type)
    patterns = _case_forms(old_words, new_words)
    old_stem, new_stem = _stem(old_words), _stem(new_words)
    if old_stem and new_stem:
        patterns += _case_forms(old_stem, new_stem, within=old_words)
    lines = text.splitlines(keepends=True)
    start, end = _recipe_lines(text)
    for i, line in enumerate(lines):
        code, hash_, comment = line.partition("#") if start <= i < end else ("", "", line)
        lines[i] = code + hash_ + _replace_all(comment, patterns)
    return "".join(lines)


def _words(camel: str) -> list[str]:
    return re.findall(r"[A-Z][a-z0-9]*", camel)


def _stem(words: list[str]) -> list[str]:
    """GeluGrad -> Gelu: the part naming the function whose gradient the op computes."""
    return words[:-1] if len(words) > 1 and words[-1] == "Grad" else []


# A version suffix makes another op (GeluGradV2, gelu_grad_v2): a name followed by one is not this op's.
_NOT_VERSIONED = r"(?![_]?[vV]\d)"


def _case_forms(old: list[str], new: list[str], within: list[str] | None = None) -> list[tuple[re.Pattern[str], str]]:
    """Whole-identifier patterns of each case form (CamelCase, lowerCamel, snake_case, UPPER_SNAKE, and the
    lower- and upper-case words run together), each with its replacement. A CamelCase name may start or
    continue a longer identifier at a word boundary (aclnnGeluBackward, GeluGradTilingData); lower-case forms
    end at a non-alphanumeric (gelu_grad_tiling). A stem (`within` the full name) is not matched where the
    full name goes on (GeluGradV2 keeps its Gelu)."""
    def camel(words: list[str]) -> str:
        return "".join(words)

    def lower_camel(words: list[str]) -> str:
        return words[0].lower() + "".join(words[1:])

    def snake(words: list[str]) -> str:
        return "_".join(w.lower() for w in words)

    forms = [
        (camel, r"(?<![A-Z])", r"(?![a-z0-9])"),
        (lower_camel, r"(?<![A-Za-z0-9])", r"(?![a-z0-9])"),
        (snake, r"(?<![A-Za-z0-9])", r"(?![a-z0-9])"),
        (lambda w: snake(w).upper(), r"(?<![A-Z0-9])", r"(?![A-Z0-9])"),
        (lambda w: camel(w).lower(), r"(?<![A-Za-z0-9])", r"(?![a-z0-9])"),
        (lambda w: camel(w).upper(), r"(?<![A-Z0-9])", r"(?![A-Z0-9])"),
    ]
    found: dict[str, tuple[str, str, list[str], str]] = {}
    for form, before, after in forms:
        key = form(old)
        _, _, rests, _ = found.setdefault(key, (before, after, [], form(new)))
        if within:
            rests.append(f"(?!{re.escape(form(within)[len(key):])})")
    return [(re.compile(before + re.escape(key) + after + "".join(rests) + _NOT_VERSIONED), new_name)
            for key, (before, after, rests, new_name) in found.items()]


def _replace_all(text: str, patterns: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, replacement in patterns:
        text = pattern.sub(replacement, text)
    return text


def _recipe_lines(text: str) -> tuple[int, int]:
    """Line range [start, end) of the `compute:` section (0-based), found with ruamel's positions."""
    data = YAML(typ="rt").load(text)
    keys = list(data.keys())
    index = keys.index("compute")
    start = data.lc.key("compute")[0]
    end = data.lc.key(keys[index + 1])[0] if index + 1 < len(keys) else len(text.splitlines())
    return start, end
