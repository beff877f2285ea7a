"""What every tier of `opgen check` returns: rows of (tier, item, status, reason, figures).

One shape for all tiers so the table, the JSON report and the exit code are computed in one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["pass", "fail", "skip"]
Figure = float | int | str

PASS: Status = "pass"
FAIL: Status = "fail"
SKIP: Status = "skip"


@dataclass(frozen=True)
class CheckItem:
    """One checked fact. `reason` says why it failed or was skipped (or, when it passed, what was seen)."""

    item: str
    status: Status
    reason: str = ""
    figures: dict[str, Figure] = field(default_factory=dict)


@dataclass(frozen=True)
class TierResult:
    """A tier's items; a tier with nothing but skipped items is SKIPPED, never passed."""

    tier: str
    items: tuple[CheckItem, ...]
    seconds: float = 0.0

    @property
    def status(self) -> Status:
        statuses = {i.status for i in self.items}
        if FAIL in statuses:
            return FAIL
        if PASS in statuses:
            return PASS
        return SKIP

    @property
    def counts(self) -> dict[Status, int]:
        return {s: sum(1 for i in self.items if i.status == s) for s in (PASS, FAIL, SKIP)}


def ok(item: str, reason: str = "", **figures: Figure) -> CheckItem:
    return CheckItem(item, PASS, reason, dict(figures))


def bad(item: str, reason: str, **figures: Figure) -> CheckItem:
    return CheckItem(item, FAIL, reason, dict(figures))


def skipped(item: str, reason: str) -> CheckItem:
    return CheckItem(item, SKIP, reason)


def more_line(problems: list[str], shown: int) -> list[str]:
    """The "... N more" line after the first `shown` problems, when some were left out."""
    return [f"... {len(problems) - shown} more"] if len(problems) > shown else []


def verdict(item: str, problems: Iterable[str], passed_reason: str = "", **figures: Figure) -> CheckItem:
    """FAIL listing every problem, or PASS with `passed_reason`: most checks collect problems, then decide."""
    found = list(problems)
    if found:
        return CheckItem(item, FAIL, "; ".join(found), dict(figures))
    return CheckItem(item, PASS, passed_reason, dict(figures))
