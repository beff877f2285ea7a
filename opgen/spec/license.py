"""`license_header_file`: a project's own header text, read from inside the spec's folder tree."""

from __future__ import annotations

from pathlib import Path

from ..files import NotRegularFile, read_regular
from .issues import SpecIssue
from .models import MAX_LICENSE_CHARS, OpSpec

FIELD = ("license_header_file",)
ALLOWED_CONTROLS = "\t\n\r"


def read_license_file(spec: OpSpec, base: Path | None) -> tuple[str | None, SpecIssue | None]:
    """The header text, or the problem with the file (relative to `base`, the spec's folder)."""
    value = spec.license_header_file
    assert value is not None
    if spec.license_header is not None:
        return None, SpecIssue(FIELD, "give license_header (inline text) or license_header_file, not both")
    if base is None:
        return None, SpecIssue(FIELD, "only a spec read from a file can name a license file (relative to it)")
    root = base.resolve()
    path = (root / value).resolve()
    if not path.is_relative_to(root):
        return None, SpecIssue(FIELD, f"{value!r} resolves outside the spec's folder ({root}); put the header "
                               "file in that folder or below it")
    if not path.is_file():
        return None, SpecIssue(FIELD, f"{value!r} is not a file (looked for {path}); give the path of a text file, "
                               "relative to the spec (for a copy of the spec, e.g. an op's record, pass the original "
                               "spec with --spec)")
    try:
        raw = read_regular(path, MAX_LICENSE_CHARS * 4 + 1)
    except NotRegularFile as error:
        return None, SpecIssue(FIELD, f"{value!r} is {error.kind}; give the path of a text file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, SpecIssue(FIELD, f"{value!r} is not UTF-8 text")
    if len(raw) > MAX_LICENSE_CHARS * 4 or len(text) > MAX_LICENSE_CHARS:
        return None, SpecIssue(FIELD, f"{value!r} is longer than {MAX_LICENSE_CHARS} characters; a license header "
                               "is a few lines")
    if any(not c.isprintable() and c not in ALLOWED_CONTROLS for c in text):
        return None, SpecIssue(FIELD, f"{value!r} holds control characters; it must be plain text")
    text = text.strip()
    if not text:
        return None, SpecIssue(FIELD, f"{value!r} is empty")
    return text, None
