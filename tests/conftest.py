"""Shared helpers: run the real CLI in-process and snapshot trees."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from opgen import cli

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
SAMPLES = ROOT / "generated_samples"
RELU = SCHEMAS / "relu_grad_v2.yaml"
GELU = SCHEMAS / "gelu_grad.yaml"
RELU_DIR = "activation/relu_grad_v2"
GELU_DIR = "experimental/activation/gelu_grad"
# Property tests: a quick profile by default (the README's test command stays short), OPGEN_FUZZ=ci in CI
# (.ci/run, within its 40 min), the deep fuzz with OPGEN_FUZZ=deep (after a change to the spec model or the
# blueprints); OPGEN_FUZZ_EXAMPLES=N sets the count outright.
FUZZ_PROFILES = {"fast": 25, "ci": 200, "deep": 500}
FUZZ = os.environ.get("OPGEN_FUZZ", "fast")
if FUZZ not in FUZZ_PROFILES:
    raise pytest.UsageError(f"OPGEN_FUZZ={FUZZ!r}: use one of {', '.join(FUZZ_PROFILES)}")
for _name, _examples in FUZZ_PROFILES.items():
    settings.register_profile(_name, max_examples=int(os.environ.get("OPGEN_FUZZ_EXAMPLES", _examples)))
settings.load_profile(FUZZ)
# the CANN sources of the source-dependent tests, read once: every test runs with the variables unset, so
# only tests that ask for the `cann_src` fixture see them
CANN_SRC = os.environ.get("OPGEN_CANN_SRC") or None
_SOURCE_TESTS = {"ran": 0, "skipped": 0}
_SOURCE_PROPERTY = "cann-sources"


@pytest.fixture(autouse=True)
def _no_ambient_cann(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPGEN_CANN_SRC", raising=False)
    monkeypatch.delenv("OPGEN_CANN", raising=False)


@pytest.fixture(autouse=True)
def _records_apart(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A test that runs `opgen gen schemas/x.yaml` must not rewrite the committed record in schemas/.opgen:
    every test keeps its records in a dir of its own ($OPGEN_RECORD_DIR, the default of --record-dir, where
    check and validate also look). Tests of the default place (beside the spec) unset it."""
    monkeypatch.setenv("OPGEN_RECORD_DIR", str(tmp_path_factory.mktemp("records")))


@pytest.fixture
def cann_src(request: pytest.FixtureRequest) -> Path:
    """The open CANN sources side by side ($OPGEN_CANN_SRC); the test is skipped, and says so, without them."""
    if CANN_SRC is None:
        request.node.user_properties.append((_SOURCE_PROPERTY, "skipped"))
        pytest.skip("needs the CANN sources: set OPGEN_CANN_SRC (docs/check.md 'Getting the CANN sources')")
    request.node.user_properties.append((_SOURCE_PROPERTY, "ran"))
    return Path(CANN_SRC)


# The tests on the CANN sources in three groups of about equal time from cold caches (CI's durations): each group
# runs in order on one worker, so its tests reuse what the group's earlier ones built.
SOURCE_GROUPS = {"test_ops_nn_ut.py": "cann-build", "test_cann_prefix_ut.py": "cann-build",
                 "test_validate_commands.py": "cann-build", "test_parallel_checks.py": "cann-build"}


def _source_group(path: Path) -> str:
    if path.name in SOURCE_GROUPS:
        return SOURCE_GROUPS[path.name]
    return "cann-kernel-run" if path.name.startswith("test_kernel_run") else "cann-kernel"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests on the CANN sources share one prefix, the CPU model and ops-nn's scratch slots (every shared build is
    locked or written whole, as for two checks at once): pytest-xdist runs each of their groups on one worker
    (`--dist loadgroup`), beside the rest of the suite. They are marked `cann_sources` before `-m` selects, so
    `-m cann_sources` runs them alone."""
    for item in items:
        if "cann_src" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(_source_group(item.path)))
            item.add_marker(pytest.mark.cann_sources)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Counted from the reports, which pytest-xdist carries from its workers to the one that prints."""
    if report.when == "setup":
        for name, value in report.user_properties:
            if name == _SOURCE_PROPERTY:
                _SOURCE_TESTS[value] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    ran, skipped = _SOURCE_TESTS["ran"], _SOURCE_TESTS["skipped"]
    where = f"OPGEN_CANN_SRC={CANN_SRC}" if CANN_SRC else "OPGEN_CANN_SRC not set"
    terminalreporter.write_line(f"CANN-source tests: {ran} ran, {skipped} skipped ({where})")
    examples = settings.get_profile(FUZZ).max_examples
    terminalreporter.write_line(f"property tests: OPGEN_FUZZ={FUZZ}, {examples} examples each (deep: OPGEN_FUZZ=deep)")


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run `opgen ARGS` through the real entry point; return exit code and output."""

    from opgen import write

    def invoke(*args: str | Path) -> Result:
        monkeypatch.setattr(sys, "argv", ["opgen", *map(str, args)])
        monkeypatch.setattr(write, "CHANGED", [])  # what this run wrote, as in a fresh process
        code = 0
        try:
            cli.main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root with its bytes: 'unchanged' means equal snapshots."""
    if not root.exists():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both samples rendered once into a fresh root (read-only for tests); their records are beside it
    (`record_of(op_dir)` finds them)."""
    from opgen.generate import render_specs, write_ops

    base = tmp_path_factory.mktemp("rendered")
    write_ops(base / "out", render_specs([RELU, GELU]), force=False, record_dir=base / "specs" / ".opgen")
    return base / "out"


def record_of(op_dir: Path) -> Path:
    """The record of an op dir (spec copy, manifest, pristine files), found by the op's path as check does."""
    from opgen.record import find_record

    record = find_record(op_dir)
    assert record is not None, f"no record found for {op_dir}"
    return record


def spec_copy(op_dir: Path) -> Path:
    """The spec an op dir was generated from, as its record keeps it."""
    from opgen.record import SPEC_COPY

    return record_of(op_dir) / SPEC_COPY


def copy_record(op_dir: Path, dest_op_dir: Path, records: Path) -> Path:
    """Give a copy of an op dir (`dest_op_dir`) a copy of the original's record under `records/<rel_dir>`,
    naming the copy, so the copy's record is found by its path."""
    import json
    import os

    from opgen.record import MANIFEST

    source = record_of(op_dir)
    manifest = json.loads((source / MANIFEST).read_text())
    target = records / ("experimental" if manifest["experimental"] else "") / manifest["category"] / manifest["name"]
    shutil.copytree(source, target)
    manifest["op_dir"] = Path(os.path.relpath(dest_op_dir.absolute(), target.absolute())).as_posix()
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return target


def copy_spec(source: Path, dest_dir: Path, edit: Callable[[str], str] | None = None) -> Path:
    dest = dest_dir / source.name
    shutil.copy(source, dest)
    if edit is not None:
        dest.write_text(edit(dest.read_text(encoding="utf-8")), encoding="utf-8")
    return dest
