"""Checks of different ops never queue on each other beyond the shared build: each build.sh run takes its own
scratch workspace slot, and a finished prefix is read without its build lock."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from opgen.cann_prefix import build, layout, ut_run, workspace
from opgen.cann_prefix.build import Prefix
from opgen.cann_sources import CannSources
from opgen.locks import held_lock

RUN_SECONDS = 1.0


@pytest.fixture
def stubbed_build_sh(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path, float, float]]:
    """build.sh replaced by a sleep recording (op, workspace, start, end); the workspace copy by an empty dir."""
    runs: list[tuple[str, Path, float, float]] = []

    def fake_workspace(cann_src: Path, root: Path) -> Path:
        ops_nn = root / "ws" / "ops-nn"
        ops_nn.mkdir(parents=True, exist_ok=True)
        return ops_nn

    def fake_run(prefix: Prefix, ops_nn: Path, kind: ut_run.UtKind, op: str, soc: str, experimental: bool,
                 jobs: int, log: Path, extra_env: dict[str, str]) -> ut_run.UtRun:
        start = time.monotonic()
        time.sleep(RUN_SECONDS)
        runs.append((op, ops_nn, start, time.monotonic()))
        log.write_text(f"build.sh -u --{kind} of {op}\n")
        failing = op.startswith("failing")
        return ut_run.UtRun(kind, op, soc, int(failing), 1, 1 - failing, ("Case.Fails",) if failing else (),
                            RUN_SECONDS, log)

    monkeypatch.setattr(workspace, "make_workspace", fake_workspace)
    monkeypatch.setattr(ut_run, "_run", fake_run)
    return runs


def _ut(prefix: Prefix, op: str, kind: ut_run.UtKind = "opkernel") -> ut_run.UtRun:
    """Upstream's UTs of `op` (no tree to place); kernel UT runs by default, which are never remembered, so each
    call runs build.sh."""
    return ut_run.run_ut(prefix, CannSources("src", prefix.root, "test"), kind=kind, op=op, soc="ascend950")


def test_build_sh_runs_of_two_ops_overlap_in_their_own_workspaces(
        tmp_path: Path, stubbed_build_sh: list[tuple[str, Path, float, float]]) -> None:
    prefix = Prefix(tmp_path / "prefix", 0.0)
    threads = [threading.Thread(target=_ut, args=(prefix, op)) for op in ("relu_grad_v2", "gelu_grad_v2")]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(stubbed_build_sh) == 2
    (_, first_ws, first_start, first_end), (_, second_ws, second_start, second_end) = stubbed_build_sh
    assert first_ws != second_ws
    assert max(first_start, second_start) < min(first_end, second_end)  # they ran at the same time
    assert time.monotonic() - began < 2 * RUN_SECONDS


def test_an_op_comes_back_to_its_own_warm_workspace(
        tmp_path: Path, stubbed_build_sh: list[tuple[str, Path, float, float]]) -> None:
    prefix = Prefix(tmp_path / "prefix", 0.0)
    threads = [threading.Thread(target=_ut, args=(prefix, op)) for op in ("relu_grad_v2", "gelu_grad_v2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = {op: ws for op, ws, _, _ in stubbed_build_sh}
    for op in ("gelu_grad_v2", "relu_grad_v2"):  # one after the other now: each takes the slot it had
        _ut(prefix, op)
    assert {op: ws for op, ws, _, _ in stubbed_build_sh[2:]} == first


def test_upstreams_passing_host_and_api_runs_are_remembered_for_the_prefix(
        tmp_path: Path, stubbed_build_sh: list[tuple[str, Path, float, float]]) -> None:
    """The sanity rows depend on the sources and the prefix only: a warm check does not rebuild them."""
    prefix = Prefix(tmp_path / "prefix", 0.0)
    first = _ut(prefix, "relu_grad_v2", "opapi")
    again = _ut(prefix, "relu_grad_v2", "opapi")
    assert len(stubbed_build_sh) == 1
    assert (first.ok, first.cached, again.ok, again.cached) == (True, False, True, True)
    assert again.log.read_text() == "build.sh -u --opapi of relu_grad_v2\n"  # kept beside the memo
    for op, kind in (("failing_op", "ophost"), ("relu_grad_v2", "opkernel")):  # a failure; the CPU model's UTs
        _ut(prefix, op, kind)
        assert not _ut(prefix, op, kind).cached
    assert len(stubbed_build_sh) == 5


def _fake_sources(root: Path) -> CannSources:
    for name, marker in layout.PREFIX_SOURCES.items():
        (root / name / marker).parent.mkdir(parents=True, exist_ok=True)
        (root / name / marker).touch()
    return CannSources("src", root, "test")


def test_a_finished_prefix_is_read_while_another_run_holds_its_build_lock(tmp_path: Path) -> None:
    sources = _fake_sources(tmp_path / "src")
    cache = tmp_path / "cache"
    root = layout.prefix_dir(cache, sources.root, build.PREFIX_LAYOUT)
    root.mkdir(parents=True)
    (root / "BUILT").write_text("built\n")
    got: list[Prefix] = []
    with held_lock(root.with_suffix(".lock")):  # e.g. a run rebuilding it, or stuck
        reader = threading.Thread(target=lambda: got.append(build.build_prefix(sources, cache)), daemon=True)
        reader.start()
        reader.join(timeout=5)
        assert got == [Prefix(root, 0.0)]


def test_protobuf_asked_for_by_two_tiers_at_once_is_built_once(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The ops-nn-ut tier's prefix and the kernel tier's host tiling of one check both need it at the same time."""
    import tarfile

    from opgen.cann_prefix import protobuf
    from opgen.check.bounded import BoundedRun

    source = tmp_path / f"protobuf-{layout.PROTOBUF_VERSION}"
    (source / "src/google").mkdir(parents=True)
    (source / "src/google/protobuf.h").write_text("// header\n")
    tarball = tmp_path / "protobuf.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(source, arcname=source.name)
    builds: list[float] = []
    configured: list[list[str]] = []

    def fake_run(argv: list[str], **kwargs: object) -> BoundedRun:
        if "ninja" in argv:
            builds.append(time.monotonic())
            time.sleep(0.5)
            build_dir = Path(argv[argv.index("-C") + 1])
            (build_dir / "libprotobuf.a").write_text("archive")
        else:
            configured.append(argv)
            Path(argv[argv.index("-B") + 1]).mkdir(parents=True, exist_ok=True)
        return BoundedRun(0, "", "", False, 1.0)

    monkeypatch.setattr(protobuf, "fetch_source", lambda work: tarball)
    monkeypatch.setattr(protobuf, "run_tool", fake_run)
    entry = tmp_path / "cache" / "protobuf-abi0"
    got: list[Path] = []
    threads = [threading.Thread(target=lambda: got.append(protobuf.build_protobuf(entry))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == [entry, entry]
    assert len(builds) == 1
    assert protobuf.library(entry).read_text() == "archive"
    # the -O1 asked for stays -O1: Release's own flags (-O3) would otherwise follow it
    assert "-DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG" in configured[0]


def test_builds_use_every_core_unless_opgen_jobs_says_otherwise() -> None:
    import os

    from opgen.jobs import default_jobs

    cores = len(os.sched_getaffinity(0))
    assert default_jobs({}) == cores
    assert default_jobs({"OPGEN_JOBS": "6"}) == 6
    assert default_jobs({"OPGEN_JOBS": "0"}) == default_jobs({"OPGEN_JOBS": "many"}) == cores


def test_a_trees_passing_runs_are_remembered_by_the_files_each_build_reads(
        tmp_path: Path, stubbed_build_sh: list[tuple[str, Path, float, float]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel fault leaves the op_host build's answer standing and runs the kernel UTs again; a host edit runs the
    op_host build again; a failing run is never remembered."""
    from contextlib import nullcontext
    from types import SimpleNamespace

    monkeypatch.setattr(ut_run, "open_checkout", lambda ops_nn: ops_nn)
    monkeypatch.setattr(ut_run, "plan_placement", lambda *args, **kwargs: SimpleNamespace(target=tmp_path / "placed"))
    monkeypatch.setattr(ut_run, "placed", lambda *args, **kwargs: nullcontext())
    prefix = Prefix(tmp_path / "prefix", 0.0)
    op_dir = tmp_path / "tree" / "my_op"
    for rel, text in (("op_host/my_op_tiling.cpp", "host\n"), ("op_kernel/my_op.h", "kernel\n"),
                      ("op_kernel/my_op_tiling_data.h", "fields\n"), ("docs/README.md", "doc\n")):
        (op_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (op_dir / rel).write_text(text)

    def run(kind: ut_run.UtKind, op: str = "my_op") -> ut_run.UtRun:
        return ut_run.run_ut(prefix, CannSources("src", prefix.root, "test"), kind=kind, op=op, soc="ascend950",
                             op_dir=op_dir, rel_dir=f"activation/{op}")

    assert [run(k).cached for k in ("ophost", "opkernel", "ophost", "opkernel")] == [False, False, True, True]
    (op_dir / "docs/README.md").write_text("another doc\n")
    (op_dir / "op_kernel/my_op.h").write_text("a kernel fault\n")
    assert [run(k).cached for k in ("ophost", "opkernel", "opkernel")] == [True, False, True]
    (op_dir / "op_kernel/my_op_tiling_data.h").write_text("another field\n")
    assert [run(k).cached for k in ("ophost", "opapi")] == [False, False]
    assert not run("ophost", "failing_op").cached and not run("ophost", "failing_op").cached
    assert len(stubbed_build_sh) == 7
