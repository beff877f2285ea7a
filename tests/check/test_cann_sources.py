"""Finding the CANN sources: one place for every tier that compiles against CANN."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from opgen.cann_sources import resolve_sources
from opgen.check.command import check
from opgen.check.headers import headers_tier
from opgen.errors import OpgenError

from .trees import SAMPLE_DIRS, copy_sample

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("check")(check)


@app.command("version")
def _version() -> None:
    """A second command, so `check` is a subcommand as under `opgen`."""


def test_nothing_named_means_no_sources() -> None:
    assert resolve_sources(env={}) is None


def test_flag_wins_over_the_environment(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    found = resolve_sources(tmp_path / "a", env={"OPGEN_CANN_SRC": str(tmp_path / "b")})
    assert found is not None and found.root == (tmp_path / "a").resolve() and found.origin == "--cann-src"


def test_a_toolkit_only_when_asked_for(tmp_path: Path) -> None:
    assert resolve_sources(env={"ASCEND_HOME_PATH": str(tmp_path)}) is None
    found = resolve_sources(env={"OPGEN_CANN": str(tmp_path)})
    assert found is not None and found.kind == "toolkit" and "OPGEN_CANN" in found.description


def test_both_kinds_at_once_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OpgenError, match="either --cann-src"):
        resolve_sources(tmp_path, tmp_path, env={})


def test_missing_repos_are_named_with_how_to_get_them(tmp_path: Path) -> None:
    (tmp_path / "ops-nn" / "common" / "inc" / "op_host").mkdir(parents=True)
    result = CliRunner().invoke(app, ["check", str(copy_sample(tmp_path / "t", SAMPLE_DIRS[0])),
                                      "--cann-src", str(tmp_path)])
    assert result.exit_code == 2
    assert "ops-nn (" not in result.output  # present: not named
    assert "asc-devkit (git clone " in result.output and "metadef (git clone " in result.output


def test_a_named_dir_that_does_not_exist_is_bad_input(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["check", str(copy_sample(tmp_path, SAMPLE_DIRS[0])),
                                      "--cann-src", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "is not a directory" in result.output


@pytest.mark.parametrize("rel_dir", SAMPLE_DIRS)
def test_headers_tier_compiles_the_samples_from_the_sources_alone(tmp_path: Path, rel_dir: str,
                                                                  cann_src: Path) -> None:
    sources = resolve_sources(cann_src)
    assert sources is not None
    items = headers_tier(copy_sample(tmp_path, rel_dir), [], sources.require("headers"))
    assert items and all(i.status == "pass" for i in items), [i for i in items if i.status != "pass"]


def test_headers_tier_from_the_sources_fails_a_broken_host_file(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, SAMPLE_DIRS[1])
    def_cpp = op_dir / "op_host" / "gelu_grad_def.cpp"
    def_cpp.write_text(def_cpp.read_text().replace(".DataType(", ".DataTipe(", 1))
    items = headers_tier(op_dir, [], resolve_sources(cann_src))
    [failed] = [i for i in items if i.status == "fail"]
    assert failed.item.startswith("op_host/gelu_grad_def.cpp") and "DataTipe" in failed.reason
