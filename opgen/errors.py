"""Errors a user can fix: the CLI prints them (one line per problem) and exits 2."""

from __future__ import annotations


class OpgenError(Exception):
    """A problem in the user's input (spec, paths, options), never a bug in opgen."""

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        return _printable(text)


class SpecProblems(OpgenError):
    """Every problem of one spec at once: a summary line, then one `file:line: field: message` line each.

    A single problem keeps the one-line form of OpgenError.
    """

    def __init__(self, source: str, problems: list[OpgenError]) -> None:
        super().__init__(f"{len(problems)} problems in this spec; fix each one listed below", where=source)
        self.problems = problems

    def __str__(self) -> str:
        return "\n".join([super().__str__(), *(_printable(str(p)).replace("\n", " ") for p in self.problems)])


def spec_error(source: str, problems: list[OpgenError]) -> OpgenError:
    """The one error to raise for a spec's problems (at least one)."""
    return problems[0] if len(problems) == 1 else SpecProblems(source, problems)


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in text)  # no control chars
