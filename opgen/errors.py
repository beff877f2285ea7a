"""Errors a user can fix: the CLI prints them in one line and exits 2."""

from __future__ import annotations


class OpgenError(Exception):
    """A problem in the user's input (spec, paths, options), never a bug in opgen."""

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in text)  # no control chars
