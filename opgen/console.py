"""One way to print for every command: rich markup only where opgen writes it, never emoji codes.

User text (paths, spec values, error messages) is escaped by the caller; with emoji off, `file:100:` or a
spec value `:smile:` prints as typed.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def console(*, stderr: bool = False, file: IO[str] | None = None, width: int | None = None,
            soft_wrap: bool = True) -> Console:
    """`soft_wrap=False` with a width is for tables, which wrap their own cells."""
    from rich.console import Console

    return Console(stderr=stderr, file=file, width=width, highlight=False, soft_wrap=soft_wrap, emoji=False)
