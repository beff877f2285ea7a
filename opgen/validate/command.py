"""The `opgen validate` command; only typer and the stdlib load at import so `opgen --help` stays fast."""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer


class StageName(str, Enum):
    check = "check"
    pkg = "pkg"
    ut = "ut"
    example = "example"


def validate(
    op_dir: Annotated[Path, typer.Argument(help="The op dir `opgen gen` wrote.", show_default=False)],
    ops_nn: Annotated[
        Path | None,
        typer.Option("--ops-nn", help="Root of an ops-nn checkout to build in; with --cann-src and no toolkit, "
                     "default: a scratch copy of the sources' ops-nn.", show_default=False),
    ] = None,
    soc: Annotated[str | None, typer.Option("--soc", help="SoC to build for; default: the op's first SoC.")] = None,
    stage: Annotated[
        list[StageName] | None,
        typer.Option("--stage", help="Stage to run (repeatable); default: check, pkg, ut.", show_default=False),
    ] = None,
    keep: Annotated[bool, typer.Option("--keep", help="Leave the op placed in the checkout afterwards.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Swap out a different op already at the spot (put back afterwards).")
    ] = False,
    cann: Annotated[
        Path | None, typer.Option("--cann", help="CANN install dir whose set_env.sh to source.", show_default=False)
    ] = None,
    cann_src: Annotated[
        Path | None,
        typer.Option("--cann-src", metavar="DIR", help="Open CANN sources for the check stage's source tiers "
                     "(default: $OPGEN_CANN_SRC); with no toolkit, the UT stage's op_host UTs also build against a "
                     "toolkit-shaped prefix made from them.", show_default=False),
    ] = None,
    allow_exec: Annotated[
        bool, typer.Option("--allow-exec", help="Let the check stage run code from the op dir (see opgen check).")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print a machine-readable report on stdout.")] = False,
    jobs: Annotated[
        int | None, typer.Option("-j", "--jobs", min=1, help="Build threads; default: all CPUs.", show_default=False)
    ] = None,
) -> None:
    """Build and test a generated op with ops-nn's own build.sh (with a CANN toolkit, or its op_host UTs from
    the open sources with --cann-src)."""
    from rich.text import Text

    from ..console import console as make_console
    from ..errors import OpgenError
    from .pipeline import Options, execute, prepare
    from .report import ConsoleProgress, input_error_json, print_preamble, print_summary, to_json
    from .stages import Stage

    console = make_console(file=sys.stderr if json_out else sys.stdout)
    opts = Options(
        op_dir=op_dir,
        ops_nn=ops_nn,
        soc=soc,
        stages=[Stage(s.value) for s in stage] if stage else None,
        keep=keep,
        force=force,
        cann=cann,
        jobs=jobs or os.cpu_count() or 1,
        cann_src=cann_src,
        allow_exec=allow_exec,
    )
    try:
        prep = prepare(opts)
    except OpgenError as exc:
        make_console(stderr=True).print(Text(f"error: {exc}", style="bold red"))
        if json_out:
            print(json.dumps(input_error_json(str(exc)), indent=2))
        raise typer.Exit(2) from None
    print_preamble(console, prep)
    report = execute(prep, keep, ConsoleProgress(console, str(prep.checkout.log_path(prep.op.name))))
    print_summary(console, report)
    if json_out:
        print(json.dumps(to_json(report), indent=2))
    raise typer.Exit(report.exit_code)
