"""The upstream tier: every sample against ops-nn's own op (offline: the facts committed at the pinned ops-nn
commit; with $OPGEN_CANN_SRC: the tier itself on the sources), its listings held, and faults it must catch."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import pytest
from conftest import SAMPLES, SCHEMAS

from opgen.check.items import FAIL, PASS
from opgen.check.upstream_tier import difference_rows
from opgen.errors import OpgenError
from opgen.plan import build_plan
from opgen.spec.load import load_spec
from opgen.spec.models import UpstreamDifference
from opgen.upstream import OpFacts, parse_op_dir
from opgen.upstream.facts import load_facts

UPSTREAM_FACTS = Path(__file__).resolve().parent.parent / "upstream_facts"
NAMES = sorted(p.stem for p in SCHEMAS.glob("*.yaml"))

# each sample's listed facts: a listing added or dropped must change here too, so it is reviewed
LISTED: dict[str, tuple[str, ...]] = {
    "elu_grad": ('file.examples/*', 'file.framework/*', 'file.op_graph/*', 'file.op_*', 'file.tests/*',),
    "elu_grad_v2": (
        'registrations.IMPL_OP_OPTILING', 'file.examples/*', 'file.op_graph/*', 'file.op_*', 'file.tests/*',
    ),
    "gelu_grad": (
        'kernel.nonfinite', 'kernel.ascend310b.float32', 'kernel.ascend310b.bfloat16', 'proto',
        'aclnn.aclnnGeluBackward.names', 'docs.docs/aclnnGeluBackward.md.products', 'file.examples/*',
        'file.op_graph/*', 'file.op_host/config/*', 'file.tests/*',
    ),
    "gelu_grad_v2": (
        'aclnn.aclnnGeluBackwardV2.names', 'file.examples/*', 'file.op_graph/*', 'file.op_*', 'file.tests/*',
    ),
    "glu_grad": (
        'docs.*.products', 'cmake.op_host/CMakeLists.txt.add_modules_sources.DEPENDENCIES',
        'cmake.op_host/CMakeLists.txt.add_modules_sources.DIR', 'file.op_*', 'file.examples/*', 'file.tests/*',
    ),
    "hard_shrink_grad": (
        'file.examples/*', 'file.*op_api/*', 'file.op_graph/*', 'file.op_*', 'file.op_host/config/*', 'file.tests/*',
    ),
    "hard_sigmoid_grad": (
        'file.examples/*', 'file.*op_api/*', 'file.op_graph/*', 'file.op_host/config/*', 'file.tests/*',
    ),
    "hard_swish_grad_v2": (
        'def.socs', 'cmake.op_host/CMakeLists.txt.SUPPORT_COMPUTE_UNIT',
        'cmake.op_host/CMakeLists.txt.SUPPORT_TILING_DIR',
        'cmake.op_host/CMakeLists.txt.add_modules_sources.COMPUTE_UNIT',
        'cmake.op_host/CMakeLists.txt.add_modules_sources.TILING_DIR',
        'cmake.op_kernel/CMakeLists.txt.add_kernel_sources.AUTO_SYNC',
        'cmake.op_kernel/CMakeLists.txt.add_kernel_sources.COMPUTE_UNITS', 'file.examples/*', 'file.op_graph/*',
        'file.op_*', 'file.tests/*',
    ),
    "leaky_relu_grad": ('file.examples/*', 'file.framework/*', 'file.op_graph/*', 'file.op_*', 'file.tests/*',),
    "logsigmoid_grad": ('file.examples/*', 'file.op_graph/*', 'file.op_host/config/*', 'file.op_*', 'file.tests/*',),
    "mish_grad": ('file.examples/*', 'file.op_graph/*', 'file.op_*', 'file.tests/*',),
    "relu6_grad": (
        'aclnn.aclnnHardtanhBackward', 'aclnn.aclnnHardtanhBackwardGetWorkspaceSize', 'file.docs/*',
        'file.examples/*', 'file.framework/*', 'file.*op_api/*', 'file.op_graph/*', 'file.op_host/config/*',
        'file.op_*', 'file.tests/*',
    ),
    "relu_grad_v2": (
        'def.socs', 'cmake.CMakeLists.txt.SUPPORT_COMPUTE_UNIT', 'cmake.CMakeLists.txt.SUPPORT_TILING_DIR',
        'cmake.CMakeLists.txt.add_modules_sources.COMPUTE_UNIT',
        'cmake.CMakeLists.txt.add_modules_sources.TILING_DIR', 'file.op_host/config/*', 'file.tests/*',
    ),
    "sigmoid_grad": (
        'file.examples/*', 'file.framework/*', 'file.op_graph/*', 'file.op_*', 'file.op_kernel_aicpu/*',
        'file.tests/*',
    ),
    "silu_grad": (
        'registrations.IMPL_OP_INFERSHAPE', 'file.examples/*', 'file.op_graph/*', 'file.op_*', 'file.tests/*',
    ),
    "soft_shrink_grad": ('file.examples/*', 'file.op_graph/*', 'file.op_host/config/*', 'file.tests/*',),
    "softplus_grad": (
        'cmake.CMakeLists.txt.SUPPORT_COMPUTE_UNIT', 'cmake.CMakeLists.txt.SUPPORT_TILING_DIR',
        'cmake.CMakeLists.txt.add_modules_sources', 'aclnn.aclnnSoftplusBackwardGetWorkspaceSize',
        'aclnn.aclnnSoftplusBackward', 'file.docs/*', 'file.examples/*', 'file.framework/*', 'file.*op_api/*',
        'file.op_graph/*', 'file.op_*', 'file.op_host/config/*', 'file.tests/*',
    ),
    "softsign_grad": (
        'aclnn.aclnnSoftsignBackwardGetWorkspaceSize', 'aclnn.aclnnSoftsignBackward', 'file.docs/*',
        'file.examples/*', 'file.framework/*', 'file.*op_api/*', 'file.op_host/config/*', 'file.tests/*',
    ),
    "swi_glu_grad": (
        'def.socs', 'docs.*.products', 'registrations.IMPL_OP_OPTILING',
        'cmake.op_host/CMakeLists.txt.add_modules_sources.DEPENDENCIES', 'file.docs/*', 'file.examples/*', 'file.op_*',
        'file.tests/*',
    ),
    "swish_grad": (
        'docs.docs/aclnnSwishBackward.md.products', 'file.examples/*', 'file.op_graph/*', 'file.op_*', 'file.tests/*',
    ),
}


@cache
def _upstream() -> dict[str, OpFacts]:
    return load_facts(UPSTREAM_FACTS)[1]


def _rows(name: str, tree: Path | None = None) -> list:  # type: ignore[type-arg]
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    rel = build_plan(spec, f"{name}.yaml").rel_dir
    mine = parse_op_dir(tree or SAMPLES / rel)
    return difference_rows(mine, _upstream()[rel], spec.upstream_differences, f"ops-nn {rel}")


@pytest.mark.parametrize("name", NAMES)
def test_every_sample_equals_upstream_but_for_its_cited_listings(name: str) -> None:
    rows = _rows(name)
    assert [(r.item, r.reason) for r in rows if r.status == FAIL] == []
    assert rows[-1].status == PASS and rows[-1].figures["listed"] >= len(LISTED[name])
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    assert tuple(d.fact for d in spec.upstream_differences) == LISTED[name]


def _copy(name: str, tmp_path: Path) -> Path:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    rel = build_plan(spec, f"{name}.yaml").rel_dir
    return Path(shutil.copytree(SAMPLES / rel, tmp_path / rel))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_renamed_attr_in_the_proto_fails_and_cannot_be_listed(tmp_path: Path) -> None:
    tree = _copy("elu_grad_v2", tmp_path)
    _edit(tree / "op_graph/elu_grad_v2_proto.h", "ATTR(input_scale", "ATTR(inputScale")
    failed = {r.item: r.reason for r in _rows("elu_grad_v2", tree) if r.status == FAIL}
    assert "proto.attrs" in failed and "IR" in failed["proto.attrs"]
    with pytest.raises(ValueError, match="cannot differ from upstream"):
        UpstreamDifference(fact="proto.attrs", reason="op_graph/elu_grad_v2_proto.h:30 says so")
    listed = UpstreamDifference(fact="proto.attr*", reason="op_graph/elu_grad_v2_proto.h:30 says so")
    rows = difference_rows(parse_op_dir(tree), _upstream()["activation/elu_grad_v2"], (listed,), "ops-nn")
    assert "proto.attrs" in {r.item for r in rows if r.status == FAIL}


def test_a_changed_attr_default_fails_naming_the_attr(tmp_path: Path) -> None:
    tree = _copy("swish_grad", tmp_path)
    _edit(tree / "op_graph/swish_grad_proto.h", ".ATTR(scale, Float, 1.0f)", ".ATTR(scale, Float, 2.0f)")
    failed = {r.item: r.reason for r in _rows("swish_grad", tree) if r.status == FAIL}
    assert list(failed) == ["proto.attr.scale"], failed
    assert "2.0" in failed["proto.attr.scale"] and "1.0" in failed["proto.attr.scale"]


def test_a_swapped_aclnn_parameter_pair_fails_as_an_abi_break(tmp_path: Path) -> None:
    tree = _copy("swish_grad", tmp_path)
    header = next((tree / "op_api").glob("aclnn_*.h"))
    text = header.read_text(encoding="utf-8")
    start = text.index("GetWorkspaceSize(")
    first, second = (p.strip() for p in text[start:].split("(", 1)[1].split(",")[:2])
    header.write_text(text[:start] + text[start:].replace(f"{first}, {second}", f"{second}, {first}", 1),
                      encoding="utf-8")
    failed = {r.item: r.reason for r in _rows("swish_grad", tree) if r.status == FAIL}
    assert any(k.startswith("aclnn.") and "exported aclnn signature" in v for k, v in failed.items()), failed


def test_an_extra_file_fails_and_a_listing_that_matches_nothing_fails_too(tmp_path: Path) -> None:
    tree = _copy("mish_grad", tmp_path)
    (tree / "mish_grad_extra.cpp").write_text("// extra\n", encoding="utf-8")
    spec = load_spec(SCHEMAS / "mish_grad.yaml").spec
    stale = UpstreamDifference(fact="def.socs", reason="op_host/mish_grad_def.cpp:1 (nothing differs)")
    rows = difference_rows(parse_op_dir(tree), _upstream()["activation/mish_grad"],
                           (*spec.upstream_differences, stale), "ops-nn")
    failed = {r.item: r.reason for r in rows if r.status == FAIL}
    assert "file.mish_grad_extra.cpp" in failed
    assert any("does not differ" in reason for reason in failed.values())


def test_a_reason_without_a_citation_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "relu_grad_v2.yaml"
    text = (SCHEMAS / "relu_grad_v2.yaml").read_text(encoding="utf-8")
    spec.write_text(text.replace("upstream_differences:\n", "upstream_differences:\n  - fact: def.socs\n"
                                 "    reason: we like it\n"), encoding="utf-8")
    with pytest.raises(OpgenError, match=r"upstream_differences.*cites no source"):
        load_spec(spec)


@pytest.mark.parametrize("name", NAMES)
def test_the_tier_on_the_sources_passes_the_samples(name: str, run, cann_src: Path,  # type: ignore[no-untyped-def]
                                                    tmp_path: Path) -> None:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    rel = build_plan(spec, f"{name}.yaml").rel_dir
    tree = Path(shutil.copytree(SAMPLES / rel, tmp_path / "out" / rel))
    result = run("check", tree, "--spec", SCHEMAS / f"{name}.yaml", "--cann-src", cann_src, "--tier", "upstream")
    assert result.code == 0, result.out
    assert "registered facts" in result.out and "listed difference" in result.out
