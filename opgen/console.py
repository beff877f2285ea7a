"""One way to print for every command: rich markup only where opgen writes it, never emoji codes.

User text (paths, spec values, error messages) is escaped by the caller; with emoji off, `file:100:` or a
spec value `:smile:` prints as typed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def console(*, stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True, emoji=False)
