"""The `opgen regen` command; only typer and the stdlib load at import so `opgen --help` stays fast."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

DEFAULT_ROOT = Path("generated_samples")


class ConflictOption(str, Enum):
    inline = "inline"
    rej = "rej"


def regen(
    specs: Annotated[list[Path], typer.Argument(help="Op spec YAML files.", show_default=False)],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="ops-nn-shaped root the op dirs were generated under.")
    ] = DEFAULT_ROOT,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Write nothing; say what would happen to each file.")
    ] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Also print unified diffs of what changes.")] = False,
    conflict: Annotated[
        ConflictOption,
        typer.Option(
            "--conflict",
            help="inline: git-style <<<<<<< markers in the file; rej: keep your lines, the spec's in <file>.rej.",
        ),
    ] = ConflictOption.inline,
    force: Annotated[
        bool, typer.Option("--force", help="Merge into an op dir that has no record (differences conflict).")
    ] = False,
    record_dir: Annotated[
        Path | None,
        typer.Option("--record-dir", envvar="OPGEN_RECORD_DIR",
                     help="Where the ops' records are (default: .opgen/ beside each spec)."),
    ] = None,
) -> None:
    """Re-render after a spec change, keeping your edits: a three-way merge against the record's pristine files.

    Exit 0: done; 1: a conflict (new or still open from an earlier regen), or a file deleted on one side and
    changed on the other; 2: bad input, nothing written.
    """
    import contextlib

    from rich.markup import escape

    from ..console import console
    from ..errors import OpgenError
    from ..write import locked
    from .report import exit_code, print_report
    from .run import ConflictsOpen, apply_regen, plan_regen, record_roots

    try:
        # a dry run writes nothing, so it takes no lock (a read-only checkout); every write is an atomic swap
        with contextlib.nullcontext() if dry_run else locked([output, *record_roots(specs, record_dir)]):
            plans = plan_regen(specs, output, style=conflict.value, force=force, record_dir=record_dir)
            if not dry_run:
                apply_regen(plans)
    except ConflictsOpen as error:
        console(stderr=True).print(f"[red]refused:[/red] {escape(str(error))}")
        raise typer.Exit(1) from None
    except (OpgenError, OSError) as error:
        message = str(error) if isinstance(error, OpgenError) else f"{error.strerror or error}: {error.filename or ''}"
        console(stderr=True).print(f"[red]error:[/red] {escape(message)}")
        raise typer.Exit(2) from None
    print_report(console(), plans, dry_run=dry_run, diff=diff)
    code = exit_code(plans)
    if code:
        raise typer.Exit(code)
