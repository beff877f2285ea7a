"""Which element types each intrinsic takes on one arch, read from asc-devkit's per-type c_api wrappers.

`impl/c_api/instr_impl/npu_arch_<arch>` wraps every vector intrinsic once per element type it supports, e.g.
`asc_exp_impl(__ubuf__ half* dst, __ubuf__ half* src, ...)` calling `vexp(dst, src, ...)`. The leading pointer
arguments of each such call, typed by the wrapper's parameters, are the intrinsic's signatures. An intrinsic is
typed only when every call in those wrappers shows its pointer types; otherwise it stays a catch-all.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_FUNCTION = re.compile(r"__aicore__\s+inline\s+[\w:<>\s\*]+?\b(\w+)\s*\(([^()]*)\)\s*\{")
_CALL = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(([^;{}]*)\)\s*;")
# the wrappers of vector compute: where an intrinsic's destination element type is the dtype the API supports
TYPED_DIRS = ("vector_compute_impl",)


def signatures_in(text: str) -> dict[str, set[tuple[str, ...]] | None]:
    """callee -> the tuples of leading pointer types it is called with; None when a call shows no types."""
    found: dict[str, set[tuple[str, ...]] | None] = {}
    for match in _FUNCTION.finditer(text):
        params = _params(match.group(2))
        body = _body(text, match.end() - 1)
        for call in _CALL.finditer(body):
            callee = call.group(1)
            if callee.startswith("asc_") or callee in ("if", "for", "while", "switch", "return", "sizeof"):
                continue
            leading = _leading_pointer_types(call.group(2), params)
            known = found.get(callee, set())
            if leading is None or known is None:
                found[callee] = None
            else:
                known.add(leading)
                found[callee] = known
    return found


@cache
def typed_signatures(devkit: Path, npu_arch: int) -> dict[str, list[tuple[str, ...]]]:
    root = devkit / "impl/c_api/instr_impl" / f"npu_arch_{npu_arch}"
    merged: dict[str, set[tuple[str, ...]] | None] = {}
    paths = [p for d in TYPED_DIRS if (root / d).is_dir() for p in sorted((root / d).rglob("*.h"))]
    for path in paths:
        for callee, sigs in signatures_in(path.read_text(encoding="utf-8", errors="replace")).items():
            known = merged.get(callee, set())
            merged[callee] = None if sigs is None or known is None else known | sigs
    return {name: sorted(sigs) for name, sigs in merged.items() if sigs}


def _params(text: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for part in text.split(","):
        words = part.replace("*", " * ").split()
        if len(words) < 2 or "*" not in words:
            continue
        name = words[-1]
        kept = [w for w in words[:-1] if not (w.startswith("__") and w.endswith("__"))]
        params[name] = " ".join(kept).replace(" *", "*")
    return params


def _body(text: str, brace: int) -> str:
    depth = 0
    for index in range(brace, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[brace:index]
    return text[brace:]


def _leading_pointer_types(args: str, params: dict[str, str]) -> tuple[str, ...] | None:
    """The destination's pointer type (the first argument); None when it is not a typed pointer parameter (a
    cast or an expression: the call shows no element type). Only the destination is typed: sources and masks
    of one intrinsic take other types in other modes."""
    first = args.split(",")[0].strip()
    return (params[first],) if first in params else None
