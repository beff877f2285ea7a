"""One problem of a spec, at the field it is about."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpecIssue:
    loc: tuple[str | int, ...]
    message: str
