"""The committed upstream facts (tests/upstream_facts): loaded offline, re-extracted from the CANN sources, and
the `python -m opgen.upstream extract` command that writes them."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import ROOT, snapshot

from opgen.upstream import OpFacts, parse_op_dir
from opgen.upstream.__main__ import main
from opgen.upstream.facts import SOURCE, load_facts, sample_op_dirs

from .fixture_op import write_op

FACTS = ROOT / "tests" / "upstream_facts"
SAMPLE_OPS = sorted(p.stem for p in (ROOT / "schemas").glob("*.yaml"))


@pytest.fixture(scope="module")
def committed() -> tuple[str, dict[str, OpFacts]]:
    return load_facts(FACTS)


def test_the_facts_name_their_ops_nn_commit_and_hold_every_sample_op(
        committed: tuple[str, dict[str, OpFacts]]) -> None:
    commit, facts = committed
    assert re.fullmatch(r"[0-9a-f]{40}", commit)
    assert {rel.rpartition("/")[2] for rel in facts} == set(SAMPLE_OPS)
    assert all(f"activation/{op}" in facts for op in SAMPLE_OPS)
    assert len(facts) == 32  # 12 ops are also under experimental/activation, with other contents


def test_the_facts_hold_what_the_issue_names(committed: tuple[str, dict[str, OpFacts]]) -> None:
    _, facts = committed
    hswish = facts["activation/hard_swish_grad_v2"].definition
    assert hswish is not None and [t.name for t in hswish.tensors] == ["gradOutput", "self", "out"]
    assert all(t.flags == {"AutoContiguous": ""} for t in hswish.tensors)
    old = hswish.socs["ascend910"]
    assert old is not None and {t.data_type for t in old.tensors} == {("DT_FLOAT16", "DT_FLOAT")}
    gelu_v2 = facts["activation/gelu_grad_v2"].proto
    assert gelu_v2 is not None and {t.type.symbol for t in gelu_v2.tensors} == {"T"}
    (elu_header,) = facts["activation/elu_grad_v2"].aclnn
    workspace = elu_header.function("aclnnEluBackwardGetWorkspaceSize")
    assert workspace is not None
    assert [p.name for p in workspace.params][:6] == ["gradOutput", "alpha", "scale", "inputScale", "isResult",
                                                       "selfOrResult"]
    silu = {r.macro: r for r in facts["activation/silu_grad"].registrations}
    assert silu["IMPL_OP_INFERSHAPE"].call("InferDataType")
    modules = [c for f in facts["activation/relu_grad_v2"].cmake for c in f.calls
               if c.command == "add_modules_sources"]
    assert [c.args.get("DISABLE_IN_OPP") for c in modules] == [("TRUE",)]
    sigmoid = facts["activation/sigmoid_grad"]
    assert sigmoid.definition is not None and sigmoid.definition.attrs == ()
    assert sigmoid.proto is not None and [a.name for a in sigmoid.proto.attrs] == ["complex_conj"]


def test_the_facts_carry_no_upstream_prose() -> None:
    for path in FACTS.rglob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert "Copyright" not in text and "License" not in text and "@brief" not in text, path


def test_re_extracting_from_the_cann_sources_gives_the_committed_facts(
        cann_src: Path, committed: tuple[str, dict[str, OpFacts]]) -> None:
    _, facts = committed
    ops_nn = cann_src / "ops-nn"
    assert sample_op_dirs(ops_nn) == list(facts)
    differing = [rel for rel, one in facts.items() if parse_op_dir(ops_nn / rel) != one]
    assert not differing, (f"{differing} differ from the committed facts; if ops-nn moved on, re-run "
                           "`python -m opgen.upstream extract $OPGEN_CANN_SRC/ops-nn tests/upstream_facts "
                           "--commit <its commit>`")


def _extract(monkeypatch: pytest.MonkeyPatch, *args: str | Path) -> int:
    monkeypatch.setattr(sys, "argv", ["opgen.upstream", "extract", *map(str, args)])
    try:
        main()
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    return 0


@pytest.fixture
def ops_nn(tmp_path: Path) -> Path:
    root = tmp_path / "ops-nn"
    write_op(root / "activation" / "foo_grad")
    (root / "CMakeLists.txt").write_text("project(x)\n")
    return root


def test_extract_writes_the_source_and_each_op_dirs_facts(ops_nn: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "facts"
    assert _extract(monkeypatch, ops_nn, out, "activation/foo_grad", "--commit", "a" * 40) == 0
    assert "wrote 2 files" in capsys.readouterr().out
    assert json.loads((out / SOURCE).read_text()) == {"ops_nn_commit": "a" * 40, "op_dirs": ["activation/foo_grad"]}
    assert load_facts(out)[1]["activation/foo_grad"] == parse_op_dir(ops_nn / "activation" / "foo_grad")
    assert _extract(monkeypatch, ops_nn, out, "activation/foo_grad", "--commit", "b" * 40) == 0  # rewrites
    assert load_facts(out)[0] == "b" * 40


@pytest.mark.parametrize(("args", "message"), [
    (("activation/foo_grad",), "is not a git checkout; pass --commit"),
    (("activation/nope", "--commit", "c"), "is not a directory"),
])
def test_extract_refuses_bad_input_with_one_message_and_writes_nothing(
        ops_nn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        args: tuple[str, ...], message: str) -> None:
    out = tmp_path / "facts"
    assert _extract(monkeypatch, ops_nn, out, *args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
    assert not out.exists()


def test_extract_will_not_clear_a_dir_that_is_not_a_facts_dir(
        ops_nn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "facts"
    (out / "keep").mkdir(parents=True)
    (out / "keep" / "mine.json").write_text("{}")
    before = snapshot(out)
    assert _extract(monkeypatch, ops_nn, out, "activation/foo_grad", "--commit", "c") == 2
    assert "holds other files" in capsys.readouterr().err
    assert snapshot(out) == before


def test_every_activation_op_dir_of_ops_nn_parses(cann_src: Path) -> None:
    ops_nn = cann_src / "ops-nn"
    dirs = [p for base in ("activation", "experimental/activation") for p in sorted((ops_nn / base).iterdir())
            if (p / "op_host").is_dir()]
    assert len(dirs) > 60
    parsed = [parse_op_dir(p) for p in dirs]
    assert all(f.definition is not None for f in parsed if any(n.endswith("_def.cpp") for n in f.files))
