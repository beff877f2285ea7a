"""The `opgen` command line. Heavy modules are imported inside commands so `--help` stays fast."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from .errors import OpgenError

app = typer.Typer(
    help="Generate, check and validate CANN ops-nn operator trees from one op spec.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)
DEFAULT_ROOT = Path("generated_samples")
DEFAULT_LIKE = Path(__file__).resolve().parent.parent / "schemas" / "gelu_grad.yaml"

RootOption = Annotated[Path, typer.Option("--output", "-o", help="ops-nn-shaped root to write op dirs under.")]


def _say(message: str) -> None:
    from rich.console import Console

    Console(highlight=False, soft_wrap=True).print(message)


@app.command()
def gen(
    specs: Annotated[list[Path], typer.Argument(help="Op spec YAML files.", show_default=False)],
    output: RootOption = DEFAULT_ROOT,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 listing files that differ.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace existing op dirs (hand edits are lost).")] = False,
) -> None:
    """Render the complete ops-nn tree of each spec under the output root."""
    from rich.markup import escape

    from .generate import differences, render_specs
    from .write import write_trees

    ops = render_specs(specs)
    if check:
        stale = [path for op in ops for path in differences(output, op)]
        for path in stale:
            _say(f"[red]differs[/red] {escape(path)}")
        if stale:
            _say(f"{len(stale)} file(s) differ from their spec; run `opgen gen --force` or `opgen regen`")
            raise typer.Exit(1)
        _say(f"[green]up to date[/green]: {', '.join(op.plan.rel_dir for op in ops)}")
        return
    written = write_trees(output, {op.plan.rel_dir: op.files for op in ops}, force=force)
    for op, target in zip(ops, written, strict=True):
        _say(f"[green]wrote[/green] {escape(str(target))} ({len(op.files)} files)")


@app.command()
def new(
    op_type: Annotated[str, typer.Argument(help="CamelCase op type, e.g. SwishGrad.", show_default=False)],
    like: Annotated[Path, typer.Option(help="Spec of a similar op to start from.")] = DEFAULT_LIKE,
    category: Annotated[str | None, typer.Option(help="ops-nn category (default: that of --like).")] = None,
    experimental: Annotated[
        bool | None, typer.Option("--experimental/--no-experimental", help="Place under experimental/.")
    ] = None,
    schemas: Annotated[Path, typer.Option(help="Where to write the new spec.")] = Path("schemas"),
    output: RootOption = DEFAULT_ROOT,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing spec and op dir.")] = False,
) -> None:
    """Start a new op: write its spec (renamed from --like) and render its tree."""
    from .generate import render_op
    from .newop import derive_spec
    from .spec.load import LoadedSpec
    from .write import check_target, write_trees

    derived = derive_spec(like, op_type, category=category, experimental=experimental)
    spec_path = schemas / f"{derived.spec.snake_name}.yaml"
    if spec_path.exists() and not force:
        raise OpgenError(f"{spec_path} already exists; pick another op name or pass --force")
    op = render_op(LoadedSpec(derived.spec, spec_path, derived.text))
    check_target(output, op.plan.rel_dir, force=force)
    schemas.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(derived.text, encoding="utf-8")
    written = write_trees(output, {op.plan.rel_dir: op.files}, force=force)
    _say(f"[green]wrote[/green] {spec_path}")
    _say(f"[green]wrote[/green] {written[0]} ({len(op.files)} files)")
    _say("next: edit the recipe under `compute:` and the docs, then `opgen regen` and `opgen check`")


@app.command()
def schema(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Print the JSON Schema of the op spec (schemas/opspec.schema.json is this output)."""
    from .spec.schema import spec_json_schema

    text = spec_json_schema()
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _register_feature_commands() -> None:
    """Commands that live in their own packages; their modules import only typer at load time."""
    from .check.command import check
    from .regen.command import regen
    from .validate.command import validate

    app.command("regen")(regen)
    app.command("check")(check)
    app.command("validate")(validate)


_register_feature_commands()


def main() -> None:
    """Entry point: user errors print one line and exit 2, never a traceback.

    SIGTERM unwinds like Ctrl-C, so staged output is cleaned up and the output root stays as it was.
    """
    signal.signal(signal.SIGTERM, _terminate)
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted: nothing was changed", file=sys.stderr)
        sys.exit(130)
    except OpgenError as error:
        from rich.console import Console
        from rich.markup import escape

        console = Console(stderr=True, highlight=False, emoji=False)  # `file:100:` is not the :100: emoji
        console.print(f"[red]error:[/red] {escape(str(error))}", soft_wrap=True)
        sys.exit(2)
    except OSError as error:
        print(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
        sys.exit(2)
