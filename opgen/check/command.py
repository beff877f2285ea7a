"""`opgen check OP_DIR`: the typer command. Only typer and the stdlib at module top, so `opgen --help` stays
fast; the tiers (copier, tree-sitter, numpy, torch) are imported when the command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer


def check(
    op_dirs: Annotated[list[Path], typer.Argument(help="Generated (or since edited) op dirs; several share one "
                                                  "prefix and CPU-model build.", show_default=False)],
    spec: Annotated[
        Path | None,
        typer.Option("--spec", metavar="SPEC",
                     help="The op spec; default: the spec copy in the op's record (e.g. schemas/.opgen/<op path>/)."),
    ] = None,
    cann_headers: Annotated[
        list[Path] | None,
        typer.Option(
            "--cann-headers",
            metavar="DIR",
            help="CANN include dir for the headers tier; repeat it, join dirs with ':', or name a file listing "
            "one dir a line (docs/check.md lists the dirs). Without it the headers tier is SKIPPED.",
        ),
    ] = None,
    cann_src: Annotated[
        Path | None,
        typer.Option("--cann-src", metavar="DIR", help="The open CANN repos side by side (ops-nn, metadef, "
                     "asc-devkit, ...; docs/check.md 'Getting the CANN sources'); default: $OPGEN_CANN_SRC."),
    ] = None,
    cann: Annotated[
        Path | None,
        typer.Option("--cann", metavar="TOOLKIT", help="An installed CANN toolkit ($ASCEND_HOME_PATH); used only "
                     "when named here or in $OPGEN_CANN."),
    ] = None,
    allow_exec: Annotated[
        bool,
        typer.Option("--allow-exec", help="Run code from the checked tree (its golden.py, kernels built from it, "
                     "its UTs) in a child process with a scratch dir. Default: nothing from the tree runs."),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print a machine-readable JSON report.")] = False,
    tier: Annotated[
        list[str] | None,
        typer.Option("--tier", metavar="NAME", help="Run only this tier (repeatable); the others are SKIPPED."),
    ] = None,
    skip_tier: Annotated[
        list[str] | None,
        typer.Option("--skip-tier", metavar="NAME", help="Leave this tier out (repeatable); it is SKIPPED."),
    ] = None,
) -> None:
    """Check an op tree: the tiers structure, syntax, consistency and numerics offline; headers, kernel, ut,
    ops-nn-ut (the op_host UTs run by ops-nn's own build.sh -u) and upstream (the registrations and exports of
    ops-nn's own op at the same path) given the CANN sources (--cann-src); tree code (golden, kernel runs, UTs)
    only with --allow-exec.

    --tier / --skip-tier choose the tiers (e.g. --skip-tier kernel --skip-tier ops-nn-ut in an edit loop); a tier left
    out is reported SKIPPED. Every preprocess and compile of tree files is bounded by OPGEN_COMPILE_TIMEOUT
    (seconds) and OPGEN_COMPILE_MEMORY (GiB, default 4), every run of tree code by OPGEN_EXEC_TIMEOUT (seconds,
    default 600); opgen keeps at most OPGEN_CHILD_OUTPUT MiB (default 256) of one child's output. Exit 0 only
    when no tier fails (a SKIPPED tier does not fail), 1 when one does, 2 on bad input, 3 when every selected tier
    was SKIPPED (nothing was checked), 130 when interrupted.
    """
    from ..errors import OpgenError

    if len(op_dirs) > 1:
        from .several import check_several

        try:
            worst = check_several(op_dirs, spec=spec, cann_headers=cann_headers or [], cann_src=cann_src, cann=cann,
                                  allow_exec=allow_exec, json_output=json_output, tier=tier or [],
                                  skip_tier=skip_tier or [])
        except OpgenError as error:
            _error(str(error))
            raise typer.Exit(2) from None
        raise typer.Exit(worst)
    op_dir = op_dirs[0]
    try:
        from .. import progress
        from ..cann_sources import resolve_sources
        from .bounded import check_settings
        from .headers import resolve_include_dirs
        from .runner import chosen_tiers, run_checks
        from .trust import Trust

        check_settings()
        tiers = chosen_tiers(tier or [], skip_tier or [])

        include_dirs = resolve_include_dirs(cann_headers or [])
        sources = resolve_sources(cann_src, cann)
        if sources is not None:
            sources.require("headers")
        with progress.reporting():
            report = run_checks(op_dir, spec, include_dirs, sources=sources, trust=Trust(allow_exec=allow_exec),
                                tiers=tiers, report_left_out=True)
    except OpgenError as error:
        _error(str(error))
        raise typer.Exit(2) from None
    except OSError as error:
        _error(f"{error.strerror or error}: {error.filename or ''}".rstrip(": "))
        raise typer.Exit(2) from None
    from .report import print_json, print_table

    if json_output:
        print_json(report)
    else:
        print_table(report)
    raise typer.Exit(report.exit_code)


def _error(message: str) -> None:
    """One line on stderr, never a traceback."""
    from rich.markup import escape

    from ..console import console as make_console

    make_console(stderr=True).print(f"[red]error:[/red] {escape(message)}")
    sys.stderr.flush()
