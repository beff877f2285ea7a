"""What a regen did (or would do), short: one line per file that changes or needs you, counts for the rest."""

from __future__ import annotations

import difflib
from collections import Counter

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ..record import PRISTINE
from .plan import ATTENTION, Action, FileDecision
from .run import OpRegen

# label and colour of each outcome in the listing
STYLES: dict[Action, tuple[str, str]] = {
    Action.REPLACE: ("replace", "green"),
    Action.MERGE: ("merge", "green"),
    Action.ADD: ("add", "green"),
    Action.REMOVE: ("remove", "yellow"),
    Action.KEEP: ("keep", "dim"),
    Action.CONFLICT: ("conflict", "bold red"),
    Action.KEPT_EDITED: ("kept-edited", "bold red"),
    Action.DELETED_KEPT: ("deleted-by-you", "yellow"),
    Action.DELETED_CHANGED: ("deleted-changed", "bold red"),
    Action.UNRESOLVED: ("unresolved", "bold red"),
}
# Counted but not listed in a real run (a dtype change replaces dozens of files): --dry-run or --diff lists them.
QUIET = frozenset({Action.REPLACE, Action.KEEP})
DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}
SUMMARY = {
    Action.REPLACE: "replaced", Action.MERGE: "merged", Action.ADD: "added", Action.REMOVE: "removed",
    Action.KEEP: "kept with your edits", Action.CONFLICT: "in conflict", Action.KEPT_EDITED: "kept (edited)",
    Action.DELETED_KEPT: "kept deleted", Action.DELETED_CHANGED: "deleted but changed by the spec",
    Action.UNRESOLVED: "with an earlier conflict still open",
}


def exit_code(plans: list[OpRegen]) -> int:
    """1 when something needs the user (conflicts, modify/delete disagreements), else 0."""
    return 1 if any(plan.attention for plan in plans) else 0


def print_report(console: Console, plans: list[OpRegen], *, dry_run: bool, diff: bool) -> None:
    """Per op a summary and the files that change; then, last so they are not missed, the files that need you."""
    for plan in plans:
        _print_op(console, plan, dry_run=dry_run, diff=diff)
    attention = [(plan, d) for plan in plans for d in plan.attention]
    if attention:
        console.print(f"[bold red]{len(attention)} file(s) need you[/bold red]:")
        for plan, decision in attention:
            _print_file(console, plan, decision, diff=diff, full_path=True)
    if dry_run:
        console.print("dry run: nothing written")


def _print_op(console: Console, plan: OpRegen, *, dry_run: bool, diff: bool) -> None:
    counts = Counter(d.action for d in plan.decisions if d.action in SUMMARY)
    summary = ", ".join(f"{counts[action]} {text}" for action, text in SUMMARY.items() if counts[action])
    if plan.created:
        state = f"new op dir, {len(plan.decisions)} files"
    elif not plan.changes_disk:
        state = "up to date, nothing to write" if not summary else f"{summary}; nothing to write"
    else:
        state = summary or "only the record changes"
    verb = "would regen" if dry_run else "regen"
    console.print(f"[bold]{verb} {escape(plan.rel_dir)}[/bold]: {escape(state)}")
    if plan.unrecorded:
        console.print("  [yellow]no usable record: merged against an empty base (--force)[/yellow]")
    if plan.moved_from is not None:
        moved = "would move" if dry_run else "moved"
        console.print(f"  {moved} the record out of the op dir: {escape(str(plan.moved_from))} -> "
                      f"{escape(str(plan.record_dir))}")
    elif plan.changes_disk or plan.created:
        console.print(f"  [dim]record: {escape(str(plan.record_dir))}[/dim]")
    if plan.created and not dry_run:
        return  # a brand-new dir: the summary line says it all
    for decision in plan.decisions:
        routine = decision.action in QUIET and not (dry_run or diff)
        if decision.action in STYLES and decision.action not in ATTENTION and not routine:
            _print_file(console, plan, decision, diff=diff, full_path=False)


def _print_file(console: Console, plan: OpRegen, decision: FileDecision, *, diff: bool, full_path: bool) -> None:
    label, colour = STYLES[decision.action]
    path = f"{plan.rel_dir}/{decision.path}" if full_path else decision.path
    note = _note(plan, decision)
    tail = f"  [dim]{escape(note)}[/dim]" if note else ""
    console.print(f"  [{colour}]{label:<15}[/{colour}] {escape(path)}{tail}")
    if diff:
        _print_diff(console, plan, decision)


def _note(plan: OpRegen, decision: FileDecision) -> str:
    action = decision.action
    if action is Action.UNRESOLVED and decision.path.endswith(".rej"):
        return "left by an earlier regen: apply what you need, then delete it"
    if action is Action.UNRESOLVED:
        return "<<<<<<< markers from an earlier regen are still in the file: resolve them"
    if action is Action.CONFLICT:
        where = f"spec's side in {decision.reject_path}" if decision.reject_path else "<<<<<<< markers in the file"
        return f"{decision.conflicts} conflict(s), {where}"
    if action is Action.KEPT_EDITED:
        return "no longer generated, kept because you edited it (opgen stops tracking it)"
    if action is Action.DELETED_KEPT:
        return "deleted by you, kept deleted"
    if action is Action.DELETED_CHANGED:
        new = plan.record_dir / PRISTINE / decision.path
        return f"deleted by you but changed by the spec: not recreated; new version in {new}"
    if action is Action.KEEP:
        return "your edits, the spec did not change it"
    if action is Action.MERGE:
        return "your edits + the spec's changes"
    return ""


def _print_diff(console: Console, plan: OpRegen, decision: FileDecision) -> None:
    """What changes on disk; for a file you deleted, what the spec changed in it (pristine → new)."""
    if decision.action is Action.DELETED_CHANGED:
        _unified(console, f"{plan.rel_dir}/{decision.path}", decision.base, decision.new)
    elif decision.writes or decision.removes:
        _unified(console, f"{plan.rel_dir}/{decision.path}", decision.user, decision.result)
    if decision.reject_path and decision.reject is not None:
        _unified(console, f"{plan.rel_dir}/{decision.reject_path}", None, decision.reject)


def _unified(console: Console, path: str, old: bytes | None, new: bytes | None) -> None:
    lines = difflib.diff_bytes(
        difflib.unified_diff,
        (old or b"").splitlines(keepends=True),
        (new or b"").splitlines(keepends=True),
        b"/dev/null" if old is None else f"a/{path}".encode(),
        b"/dev/null" if new is None else f"b/{path}".encode(),
    )
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        console.print(Text(line, style=DIFF_STYLES.get(line[:1], "")), soft_wrap=True)
