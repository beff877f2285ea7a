"""apply_changes on small hand-made trees: unchanged files keep their inode, failures undo everything."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from opgen import write as write_module
from opgen.regen import apply as apply_module
from opgen.regen.apply import TreeChange, apply_changes

from .support import snapshot, staging_leftovers


def make_op(root: Path) -> Path:
    op = root / "cat" / "op"
    for rel, text in {
        "keep.txt": "keep\n", "sub/change.txt": "old\n", "gone/only.txt": "x\n", "build/obj.o": "binary\n",
        ".opgen/manifest.json": "{}\n", "run.sh": "#!/bin/sh\n",
    }.items():
        (op / rel).parent.mkdir(parents=True, exist_ok=True)
        (op / rel).write_text(text)
    (op / "run.sh").chmod(0o755)
    (op / "link").symlink_to("keep.txt")
    return op


def change(op: Path) -> TreeChange:
    return TreeChange(
        op,
        writes={"sub/change.txt": b"new\n", "added/new.txt": b"added\n", "run.sh": b"#!/bin/sh\necho\n"},
        removes=frozenset({"gone/only.txt"}),
        record_dir=op.parent.parent / "records" / "cat" / "op",
        record={"manifest.json": b'{"v": 2}\n'},
    )


def test_changed_files_written_unchanged_ones_are_the_same_files(tmp_path: Path) -> None:
    op = make_op(tmp_path)
    before = snapshot(op)

    apply_changes([change(op)])

    after = snapshot(op)
    for rel in ("keep.txt", "build/obj.o"):  # same inode, mtime, bytes: hard links of the very same files
        assert after[rel] == before[rel]
    assert (op / "sub/change.txt").read_bytes() == b"new\n"
    assert (op / "added/new.txt").read_bytes() == b"added\n"
    assert not (op / "gone").exists()  # emptied by the removal: pruned
    assert not (op / ".opgen").exists()  # an old in-dir record moves out with the swap
    assert (tmp_path / "records/cat/op/manifest.json").read_bytes() == b'{"v": 2}\n'
    assert os.readlink(op / "link") == "keep.txt"
    assert (op / "run.sh").stat().st_mode & 0o777 == 0o755  # your chmod survives a rewrite
    assert after["build"][2] == before["build"][2]  # untouched folders keep theirs
    assert staging_leftovers(tmp_path) == []


def test_new_op_dir_and_its_parents_are_created(tmp_path: Path) -> None:
    op = tmp_path / "a" / "b" / "op"
    apply_changes([TreeChange(op, {"f": b"1\n"}, frozenset(), tmp_path / "r" / "op", {"manifest.json": b"{}\n"})])
    assert (op / "f").read_bytes() == b"1\n"
    assert staging_leftovers(tmp_path) == []


def test_failure_takes_back_created_parents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(apply_module, "_write_file", lambda *_: (_ for _ in ()).throw(OSError(28, "full")))
    with pytest.raises(OSError):
        apply_changes([TreeChange(tmp_path / "a" / "b" / "op", {"f": b"1\n"}, frozenset(), tmp_path / "r" / "op", {})])
    assert list(tmp_path.iterdir()) == []


def test_failure_while_staging_leaves_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    op = make_op(tmp_path)
    before = snapshot(tmp_path, dir_mtimes=False)
    monkeypatch.setattr(apply_module, "_write_file", lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        apply_changes([change(op)])
    assert snapshot(tmp_path, dir_mtimes=False) == before


def test_swap_without_renameat2_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(write_module, "_renameat2", None)
    op = make_op(tmp_path)
    inode = (op / "keep.txt").stat().st_ino
    apply_changes([change(op)])
    assert (op / "sub/change.txt").read_bytes() == b"new\n" and (op / "keep.txt").stat().st_ino == inode
    assert staging_leftovers(tmp_path) == []


def test_fallback_swap_undoes_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(write_module, "_renameat2", None)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "from_a").touch()
    (b / "from_b").touch()
    real = os.rename
    calls: list[str] = []

    def rename(src: Path, dst: Path) -> None:
        calls.append(str(src))
        if len(calls) == 2:
            raise OSError(5, "EIO")
        real(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OSError):
        write_module.exchange_dirs(a, b)
    assert [p.name for p in a.iterdir()] == ["from_a"] and [p.name for p in b.iterdir()] == ["from_b"]


def test_ctrl_c_during_the_swaps_waits_for_them() -> None:
    done = []
    # Ctrl-C raises here as in a terminal, even when pytest runs as a background job with SIGINT ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt), write_module.signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            done.append("swaps finished")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert done == ["swaps finished"]
