"""The `opgen` entry point. It imports nothing heavy at load time: the signal handlers are set before typer
and the commands are imported, so a Ctrl-C or SIGTERM at any moment of a run is reported the same way."""

from __future__ import annotations

import signal
import sys
from types import FrameType

from .errors import OpgenError

INTERRUPTED = 130  # exit code after Ctrl-C or SIGTERM, as a shell reports a SIGINT death


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGINT and SIGTERM: the children `opgen check` bounds are killed and none starts any more (so the
    threads waiting on them return at once), then the run unwinds as from Ctrl-C."""
    bounded = sys.modules.get(f"{__package__}.check.bounded")  # not imported: no such child was started
    if bounded is not None:
        bounded.stop_all()
    raise KeyboardInterrupt


def _interrupted(error: BaseException) -> bool:
    """typer turns Ctrl-C into Exit(130) raised from the KeyboardInterrupt; find it in the chain."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _written() -> str:
    """What this run changed, for the last line of an interrupted or unprintable run."""
    write = sys.modules.get(f"{__package__}.write")  # not imported: nothing was written
    changed = getattr(write, "CHANGED", [])
    if changed:
        return f"{', '.join(map(str, changed))} had been written completely before; nothing else was changed"
    return "nothing was changed"


def _report_interrupt() -> None:
    print(f"interrupted: {_written()}", file=sys.stderr)
    sys.exit(INTERRUPTED)


def _check_stdout() -> None:
    """Exit 2 when stdout could not take what was printed (full disk, closed pipe or fd), saying on stderr
    what had been written all the same."""
    from .streams import stdout_failure

    failure = stdout_failure()
    if failure is not None:
        print(f"error: cannot print to stdout ({failure.strerror or failure}); {_written()}", file=sys.stderr)
        sys.exit(2)


def main() -> None:
    """Entry point: user errors print one line and exit 2, never a traceback; Ctrl-C exits 130 saying what
    was written. SIGTERM unwinds like Ctrl-C, so staged output is cleaned up and targets stay as they were.
    An ignored SIGINT (a background job of a non-interactive shell) stays ignored.
    """
    signal.signal(signal.SIGTERM, _terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _terminate)
    try:
        from .streams import prepare

        prepare()
        from .commands import app

        app()
    except KeyboardInterrupt:
        _report_interrupt()
    except SystemExit as exit_:
        if exit_.code == INTERRUPTED and _interrupted(exit_):
            _report_interrupt()
        _check_stdout()
        raise
    except OpgenError as error:
        from rich.markup import escape

        from .console import console

        console(stderr=True).print(f"[red]error:[/red] {escape(str(error))}")
        _check_stdout()
        sys.exit(2)
    except OSError as error:
        _check_stdout()  # most often the error itself: a full disk or closed pipe behind stdout
        print(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
        sys.exit(2)
