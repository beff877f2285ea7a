"""plan_files: one decision per path, pure, covering every case of the issue's table."""

from __future__ import annotations

from opgen.regen.plan import Action, plan_files

B, U, N = b"base\n", b"yours\n", b"new\n"


def action(base: bytes | None, user: bytes | None, new: bytes | None, *, recorded: bool = True) -> Action:
    decisions = plan_files(
        {"f": base} if recorded and base is not None else ({} if recorded else None),
        {"f": user} if user is not None else {},
        {"f": new} if new is not None else {},
    )
    assert [d.path for d in decisions] == ["f"]
    return decisions[0].action


def test_table() -> None:
    assert action(B, B, B) is Action.UNCHANGED
    assert action(B, B, N) is Action.REPLACE
    assert action(B, U, B) is Action.KEEP
    assert action(B, U, U) is Action.KEEP  # you already made the spec's change
    assert action(b"1\n2\n3\n", b"1\n2\nyours\n", b"new\n2\n3\n") is Action.MERGE
    assert action(B, U, N) is Action.CONFLICT
    assert action(None, None, N) is Action.ADD
    assert action(B, B, None) is Action.REMOVE
    assert action(B, U, None) is Action.KEPT_EDITED
    assert action(B, None, B) is Action.DELETED_KEPT
    assert action(B, None, N) is Action.DELETED_CHANGED
    assert action(B, None, None) is Action.GONE
    assert action(None, N, N) is Action.UNCHANGED  # a file of yours that is already what opgen renders
    assert action(None, U, N) is Action.CONFLICT  # ...and one that is not: both added it


def test_without_record_nothing_is_removed_and_differences_conflict() -> None:
    decisions = {d.path: d for d in plan_files(None, {"a": U, "b": N, "mine": U}, {"a": N, "b": N, "c": N})}
    assert {p: d.action for p, d in decisions.items()} == {"a": Action.CONFLICT, "b": Action.UNCHANGED, "c": Action.ADD}


def test_results_say_what_is_written() -> None:
    decisions = {d.path: d for d in plan_files({"k": B, "r": B, "d": B}, {"k": U, "r": B, "d": B}, {"k": B, "r": N})}
    assert not decisions["k"].writes and decisions["k"].result == U
    assert decisions["r"].writes and decisions["r"].result == N
    assert decisions["d"].removes and decisions["d"].result is None


def test_rej_never_takes_a_name_in_use() -> None:
    decisions = plan_files({"f": B}, {"f": U}, {"f": N}, present={"f", "f.rej", "f.1.rej"}, style="rej")
    assert decisions[0].reject_path == "f.2.rej"
    assert decisions[0].result == U
