"""`opgen validate --cann-src DIR` with no toolkit: build.sh runs against the prefix built from the open sources,
on the user's checkout (opbase and ops-tensor lent beside it) or on a scratch copy; what the prefix cannot serve
is SKIPPED with the reason. The prefix build itself is stood in for here (it takes minutes); the real one runs in
tests/test_cann_prefix_ut.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.cann_prefix.build import Prefix
from opgen.cann_prefix.layout import PREFIX_SOURCES
from opgen.errors import OpgenError
from opgen.validate.sources_build import SourcesBuild

from .conftest import Machine, make_ops_nn, snapshot


@pytest.fixture
def sources(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sources dir with every repo the prefix needs (its ops-nn a stand-in checkout), no toolkit in the
    environment, and a prefix build that only stamps the prefix as built."""
    src = machine.tmp / "cann-src"
    make_ops_nn(src / "ops-nn")
    (src / "ops-nn" / "experimental/activation/gelu_grad/op_host").mkdir(parents=True)
    (src / "ops-nn" / "experimental/activation/gelu_grad/op_host/upstream.cpp").write_text("// upstream's\n")
    for name, marker in PREFIX_SOURCES.items():
        (src / name / marker).parent.mkdir(parents=True, exist_ok=True)
        if not (src / name / marker).exists():
            (src / name / marker).write_text(name)
    monkeypatch.delenv("ASCEND_HOME_PATH")
    monkeypatch.setenv("OPGEN_CACHE", str(machine.tmp / "cache"))

    def stamp(self: SourcesBuild, op_dir: Path, soc: str, kernel_uts: bool) -> Prefix:
        (self.prefix.root / "BUILT").parent.mkdir(parents=True, exist_ok=True)
        (self.prefix.root / "BUILT").write_text("built\n")
        return Prefix(self.prefix.root, 1.0)

    monkeypatch.setattr(SourcesBuild, "build", stamp)
    return src


def test_op_host_uts_run_against_the_prefix_on_the_users_checkout(
        machine: Machine, sources: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    checkout = make_ops_nn(machine.tmp / "work" / "ops-nn")  # ops-nn's cmake looks two levels up for ops-base
    tensor = checkout.parent / "ops-tensor"
    monkeypatch.setenv("OPGEN_FAKE_PROBE", str(tensor / "CMakeLists.txt"))  # build.sh says whether it was there
    before = snapshot(machine.tmp)

    result = machine.invoke(op, "--ops-nn", checkout, "--cann-src", sources, "-j", "2")

    assert result.exit_code == 0, result.output
    home = machine.tmp / "cache" / "cann-prefix"
    prefix_root = next(home.iterdir())
    assert machine.calls() == [
        f"-u --{kind} --ops=gelu_grad --soc=ascend910b --experimental -j2 "
        f"--cann_3rd_lib_path={prefix_root / 'third_party'}" for kind in ("ophost", "opapi", "opkernel")]
    assert machine.seen() == [f"ASCEND_HOME_PATH={prefix_root / 'ascend'}", "placed"] * 3
    out = " ".join(result.output.split(" \n"))  # rich folds long lines at a space
    assert f"toolkit: none; build.sh runs against the prefix built from {sources}" in out
    assert f"lent for the build, removed after: {machine.tmp / 'ops-base'}, {tensor}" in out
    assert "PASS prefix" in out and "PASS ut ophost" in out and "PASS ut opapi" in out
    assert "SKIP pkg         the package build compiles kernels with the toolkit's bisheng" in out
    assert "PASS ut opkernel" in out  # tikicpulib being opgen's CPU model (the stand-in's own test builds it)
    assert "validate passed: check, prefix, ut ophost, ut opapi, ut opkernel (skipped: pkg)" in out
    assert _sans_builds(snapshot(machine.tmp), "cache", "calls", "seen") == _sans_builds(before)


def test_without_a_checkout_it_builds_in_a_scratch_copy_of_the_sources(machine: Machine, sources: Path) -> None:
    op = machine.make_op()

    result = machine.invoke(op, "--cann-src", sources, "--stage", "ut", "--json")

    assert result.exit_code == 0, result.output
    assert "PASS ut opapi" in result.stderr and "PASS ut opkernel" in result.stderr
    scratch = next((machine.tmp / "cache" / "cann-prefix").iterdir()) / "validate" / "ws" / "ops-nn"
    assert (scratch / ".git").is_dir()
    assert f"validate gelu_grad (GeluGrad) for ascend910b at {scratch / 'experimental/activation/gelu_grad'}" \
           in result.stderr
    assert [call.split()[:3] for call in machine.calls()] == [["-u", f"--{kind}", "--ops=gelu_grad"]
                                                              for kind in ("ophost", "opapi", "opkernel")]
    # upstream's op of that name was swapped out for the build and put back
    assert (scratch / "experimental/activation/gelu_grad/op_host/upstream.cpp").read_text() == "// upstream's\n"
    assert '"toolkit": "prefix"' in result.stdout
    assert (machine.tmp / "cache").is_dir() and not (machine.tmp / "ops-base").exists()


def test_a_stage_only_a_toolkit_can_run_is_refused_up_front(machine: Machine, sources: Path) -> None:
    op = machine.make_op()
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--cann-src", sources, "--stage", "pkg")

    assert result.exit_code == 2
    assert result.stderr.startswith("error: with no toolkit, --cann-src runs only the op_host, op_api and op_kernel "
                                    "UTs (--stage ut)")
    assert "needs a CANN toolkit (--cann)" in result.stderr
    assert machine.calls() == [] and snapshot(machine.ops_nn) == before


def test_no_checkout_and_no_sources_says_what_to_pass(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCEND_HOME_PATH")

    result = machine.invoke(machine.make_op(), "--stage", "ut")

    assert result.exit_code == 2
    assert "pass --ops-nn PATH (the root of an ops-nn checkout to build in), or, with no toolkit, --cann-src DIR" \
           in result.stderr


def test_a_toolkit_wins_over_the_sources(machine: Machine, sources: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_HOME_PATH", str(machine.cann))

    result = machine.invoke(machine.make_op(), "--ops-nn", machine.ops_nn, "--cann-src", sources, "--stage", "pkg")

    assert result.exit_code == 0, result.output
    assert machine.seen() == [f"ASCEND_HOME_PATH={machine.cann}"]
    assert "--cann_3rd_lib_path" not in machine.calls()[0]


def test_a_prefix_that_does_not_build_fails_before_anything_is_placed(
        machine: Machine, sources: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: SourcesBuild, op_dir: Path, soc: str, kernel_uts: bool) -> Prefix:
        raise OpgenError("protobuf 3.21.12's source: no deb-src entry; apt-get source protobuf")

    monkeypatch.setattr(SourcesBuild, "build", refuse)
    op = machine.make_op()
    before = snapshot(machine.tmp)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--cann-src", sources, "--stage", "ut")

    assert result.exit_code == 1
    assert "FAIL prefix" in result.output and "validate failed at prefix" in result.output
    log = (machine.ops_nn / "build" / "opgen_validate_gelu_grad.log").read_text()
    assert "the toolkit-shaped prefix did not build: protobuf 3.21.12's source: no deb-src entry" in log
    assert machine.calls() == []
    assert _sans_builds(snapshot(machine.tmp)) == _sans_builds(before)


def _sans_builds(files: dict[str, bytes | None], *tops: str) -> dict[str, bytes | None]:
    """A snapshot without build dirs (validate's log lives there) and the given top-level entries."""
    return {k: v for k, v in files.items()
            if not k.startswith(tops) and not k.endswith("/build") and "/build/" not in k}
