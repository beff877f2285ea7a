"""The `opgen` commands (cli.main runs them). Heavy modules are imported inside commands so `--help` stays fast."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .errors import OpgenError
from .paths import SAMPLE_SPECS

if TYPE_CHECKING:
    from .generate import RenderedOp

app = typer.Typer(
    help="Generate, check and validate CANN ops-nn operator trees from one op spec.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)
DEFAULT_ROOT = Path("generated_samples")
DEFAULT_LIKE = SAMPLE_SPECS / "gelu_grad.yaml"

RootOption = Annotated[Path, typer.Option("--output", "-o", help="ops-nn-shaped root to write op dirs under.")]


RecordOption = Annotated[
    Path | None,
    typer.Option("--record-dir", envvar="OPGEN_RECORD_DIR",
                 help="Keep the ops' records (for regen) here instead of .opgen/ beside each spec."),
]


def _say(message: str) -> None:
    from .console import console

    console().print(message)


def _version(value: bool) -> None:
    if value:
        from . import __version__

        print(f"opgen {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", help="Print opgen's version and exit.", callback=_version, is_eager=True)
    ] = False,
) -> None:
    """Generate, check and validate CANN ops-nn operator trees from one op spec."""


@app.command()
def gen(
    specs: Annotated[list[Path], typer.Argument(help="Op spec YAML files.", show_default=False)],
    output: RootOption = DEFAULT_ROOT,
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; exit 1 when a tree is behind its spec (hand edits allowed)."),
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="With --check: every byte must equal the render (no hand edits).")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace existing op dirs (hand edits are lost).")] = False,
    record_dir: RecordOption = None,
) -> None:
    """Render the complete ops-nn tree of each spec under the output root, and its record beside the spec."""
    from rich.markup import escape

    from .generate import render_specs, write_ops

    if strict and not check:
        raise OpgenError("--strict goes with --check (it says how --check compares)")
    ops = render_specs(specs)
    if check:
        _check_trees(output, ops, strict=strict, record_dir=record_dir)
        return
    written = write_ops(output, ops, force=force, record_dir=record_dir)
    for op, target in zip(ops, written, strict=True):
        _say(f"[green]wrote[/green] {escape(str(target))} ({len(op.files)} files; record: "
             f"{escape(str(op.record_dir(record_dir)))})")


def _check_trees(output: Path, ops: list[RenderedOp], *, strict: bool, record_dir: Path | None) -> None:
    """Exit 1 listing what is behind; with --strict, every file that differs from the render at all."""
    from rich.markup import escape

    from .generate import differences
    from .regen.uptodate import Finding, stale_files

    findings: list[Finding] = []
    edited = 0
    for op in ops:
        if strict:
            findings += [Finding(path, "differs from the render") for path in differences(output, op)]
        else:
            found, edits = stale_files(output, op, record_dir)
            findings += found
            edited += edits
    for finding in findings:
        _say(f"[red]stale[/red] {escape(finding.path)}: {escape(finding.why)}")
    if findings:
        _say(f"{len(findings)} problem(s); nothing was written")
        raise typer.Exit(1)
    kept = f" ({edited} file(s) with your edits)" if edited else ""
    _say(f"[green]up to date[/green]: {escape(', '.join(op.plan.rel_dir for op in ops))}{kept}")


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
    record_dir: RecordOption = None,
) -> None:
    """Start a new op: write its spec (renamed from --like) and render its tree; both or neither."""
    from rich.markup import escape

    from .generate import lock_dirs, op_replacements, render_op
    from .newop import derive_spec
    from .spec.load import LoadedSpec
    from .write import Replacement, check_target, locked, replace_all, single_file

    derived = derive_spec(like, op_type, category=category, experimental=experimental)
    spec_path = schemas / f"{derived.spec.snake_name}.yaml"
    refusal = None if force else f"{spec_path} already exists; pick another op name or pass --force"
    if refusal and spec_path.exists():
        raise OpgenError(refusal)
    op = render_op(LoadedSpec(derived.spec, spec_path, derived.text))
    target = check_target(output, op.plan.rel_dir, force=force)
    with locked(lock_dirs(output, [op], record_dir)):
        spec = Replacement(spec_path, single_file(derived.text.encode()), refusal)
        replace_all([*op_replacements(output, [op], force=force, record_dir=record_dir), spec])
    _say(f"[green]wrote[/green] {escape(str(spec_path))}")
    _say(f"[green]wrote[/green] {escape(str(target))} ({len(op.files)} files; record: "
         f"{escape(str(op.record_dir(record_dir)))})")
    _say("next: edit the recipe under `compute:` and the docs, then `opgen regen` and `opgen check`")


@app.command("import")
def import_(
    op_dir: Annotated[Path, typer.Argument(help="An ops-nn op dir, e.g. ops-nn/activation/relu_grad_v2.",
                                           show_default=False)],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the spec to this file instead of "
                                                "stdout (refused if it exists).")] = None,
) -> None:
    """Write a spec from an existing ops-nn op dir's registered facts; its recipe and reference are
    placeholders that fail `opgen check` until written."""
    from .importer import import_spec
    from .write import write_file

    text = import_spec(op_dir)
    if output is None:
        sys.stdout.write(text)
        return
    refusal = f"{output} already exists; name another file"
    if os.path.lexists(output):
        raise OpgenError(refusal)
    write_file(output, text.encode("utf-8"), refuse_existing=refusal)


@app.command()
def schema(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Print the JSON Schema of the op spec (schemas/opspec.schema.json is this output)."""
    from .spec.schema import spec_json_schema
    from .write import write_file

    text = spec_json_schema()
    if output is None:
        sys.stdout.write(text)
    else:
        write_file(output, text.encode("utf-8"))


def _register_feature_commands() -> None:
    """Commands that live in their own packages; their modules import only typer at load time."""
    from .check.command import check
    from .prepare import prepare
    from .regen.command import regen
    from .validate.command import validate

    app.command("regen")(regen)
    app.command("check")(check)
    app.command("validate")(validate)
    app.command("prepare")(prepare)


_register_feature_commands()
