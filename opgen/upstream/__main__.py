"""`python -m opgen.upstream extract OPS_NN OUT [OP_DIR...]`: write the committed upstream facts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import OpgenError

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Parse ops-nn op dirs into opgen's upstream facts.")


@app.callback()
def _group() -> None:
    """Parse ops-nn op dirs into opgen's upstream facts."""


@app.command()
def extract(
    ops_nn: Annotated[Path, typer.Argument(help="The ops-nn checkout (its root).", show_default=False)],
    out: Annotated[Path, typer.Argument(help="The facts dir to (re)write, e.g. tests/upstream_facts.",
                                        show_default=False)],
    op_dirs: Annotated[list[str] | None, typer.Argument(
        help="Op dirs relative to ops-nn; default: those of opgen's sample specs.", show_default=False)] = None,
    commit: Annotated[str | None, typer.Option(
        help="The ops-nn commit the files are at; default: `git rev-parse HEAD` in OPS_NN.")] = None,
) -> None:
    """Write the facts of each op dir as JSON under OUT, with the ops-nn commit they came from."""
    from . import facts

    written = facts.extract(ops_nn, out, op_dirs or facts.sample_op_dirs(ops_nn),
                            commit or facts.ops_nn_commit(ops_nn))
    print(f"wrote {len(written)} files under {out}")


def main() -> None:
    try:
        app()
    except OpgenError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except OSError as error:
        print(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
