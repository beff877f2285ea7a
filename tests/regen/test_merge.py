"""merge_file: git-style markers, patch-style `.rej`, and the awkward inputs (no final newline, CRLF, no base)."""

from __future__ import annotations

from opgen.regen.merge import merge_file

BASE = b"".join(f"line {i}\n".encode() for i in range(1, 21))


def edited(data: bytes, line: int, text: str) -> bytes:
    lines = data.splitlines(keepends=True)
    lines[line - 1] = text.encode() + b"\n"
    return b"".join(lines)


def test_changes_on_different_lines_merge_cleanly() -> None:
    yours, new = edited(BASE, 3, "yours 3"), edited(BASE, 15, "new 15")
    merged = merge_file(BASE, yours, new, style="inline", path="f")
    assert merged.conflicts == 0 and merged.reject is None
    assert merged.content == edited(edited(BASE, 3, "yours 3"), 15, "new 15")


def test_same_line_gives_git_style_markers() -> None:
    merged = merge_file(BASE, edited(BASE, 5, "yours 5"), edited(BASE, 5, "new 5"), style="inline", path="f")
    assert merged.conflicts == 1
    assert b"line 4\n<<<<<<< yours\nyours 5\n=======\nnew 5\n>>>>>>> opgen\nline 6\n" in merged.content


def test_rej_keeps_yours_applies_the_rest_and_rejects_the_clash() -> None:
    yours = edited(BASE, 5, "yours 5")
    new = edited(edited(BASE, 5, "new 5"), 18, "new 18")
    merged = merge_file(BASE, yours, new, style="rej", path="op_host/x.cpp")
    assert merged.conflicts == 1
    assert merged.content == edited(yours, 18, "new 18")  # the clean hunk applied, as patch(1) would
    assert merged.reject is not None
    reject = merged.reject.decode()
    assert "--- a/op_host/x.cpp" in reject and "+++ b/op_host/x.cpp" in reject
    assert "@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+new 5\n line 6\n line 7\n line 8\n" in reject


def test_marker_never_glued_to_a_last_line_without_newline() -> None:
    base = b"a\nb\nc"
    merged = merge_file(base, b"a\nb\nyours", b"a\nb\nnew", style="inline", path="f")
    assert merged.content == b"a\nb\n<<<<<<< yours\nyours\n=======\nnew\n>>>>>>> opgen\n"


def test_crlf_file_gets_crlf_markers() -> None:
    base = b"a\r\nb\r\nc\r\n"
    merged = merge_file(base, b"a\r\nB\r\nc\r\n", b"a\r\nbb\r\nc\r\n", style="inline", path="f")
    assert merged.content == b"a\r\n<<<<<<< yours\r\nB\r\n=======\r\nbb\r\n>>>>>>> opgen\r\nc\r\n"


def test_no_base_conflicts_only_where_the_files_differ() -> None:
    yours = edited(BASE, 10, "hand made")
    merged = merge_file(b"", yours, BASE, style="inline", path="f")
    assert merged.conflicts == 1
    assert merged.content.startswith(b"line 1\n") and b"<<<<<<< yours\nhand made\n=======\nline 10\n" in merged.content


def test_repeated_lines_still_anchor_the_merge() -> None:
    """Past 200 lines difflib's autojunk would drop `}` lines as anchors; the merge must not care."""
    block = b"{\n    x\n}\n"
    base = block * 150
    yours = base.replace(b"    x\n", b"    yours\n", 1)
    new = base[: -len(block)] + b"{\n    new\n}\n"
    merged = merge_file(base, yours, new, style="inline", path="f")
    assert merged.conflicts == 0
    assert merged.content == yours[: -len(block)] + b"{\n    new\n}\n"
