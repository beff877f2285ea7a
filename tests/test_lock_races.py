"""Two opgen runs taking one lock at the same moment, forced to interleave where they raced (a dir made by
the other run between our look and our mkdir; an empty lock dir removed by the other run as it finished,
before or while we waited): each still gets the lock, on a dir that exists, and only one holds it at once."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from opgen import write


def test_a_lock_dir_another_run_makes_first_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "records" / "activation"
    real_mkdir = Path.mkdir

    def the_other_run_wins(self: Path, *args: object, **kwargs: object) -> None:
        if self == target:
            real_mkdir(self)  # the other run's mkdir lands between our exists() and our mkdir()
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", the_other_run_wins)
    with write.locked([target]):
        assert target.is_dir()


def test_a_lock_dir_removed_before_we_open_it_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out"
    real_open = os.open
    removed: list[str] = []

    def the_other_run_finishes(path: object, flags: int, *args: object) -> int:
        if Path(str(path)) == target and not removed:
            os.rmdir(target)  # the other run, done, removes the empty lock dir it had made
            removed.append(str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", the_other_run_finishes)
    with write.locked([target]):
        assert removed and target.is_dir()
    assert not target.exists()  # made only to be locked: gone again


def test_a_lock_dir_removed_while_we_wait_is_not_a_lock(tmp_path: Path) -> None:
    """The first holder removes its empty dir as it finishes; the waiter must not go on holding a lock on a
    deleted dir while a third run locks the new one."""
    target = tmp_path / "out"
    inside: list[str] = []
    entered = threading.Event()

    def first() -> None:
        with write.locked([target]):
            entered.set()
            time.sleep(0.3)
            inside.append("first")

    def second() -> None:
        entered.wait()
        with write.locked([target]):
            assert target.is_dir()
            assert os.stat(target).st_ino  # the dir it holds exists
            inside.append("second")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert inside == ["first", "second"]
