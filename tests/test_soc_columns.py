"""Issue 10 item 6, per-SoC dtype lists: a SoC supporting only some of the op's combinations
(`platforms[i].combinations`) is registered with an OpAICoreConfig of exactly its columns, every file for that
SoC uses only those, the spec refuses bad index lists, and the check catches a config out of step."""

from __future__ import annotations

import ast
import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from check.trees import by_item, failing, loaded
from conftest import SCHEMAS, copy_record, copy_spec, snapshot

from opgen.check.consistency import consistency_tier
from opgen.check.kernel.build import KernelVariant, kernel_variants
from opgen.generate import render_specs, write_ops
from opgen.plan import build_plan
from opgen.spec.load import load_spec

HSG = SCHEMAS / "hard_swish_grad_v2.yaml"
REL = "activation/hard_swish_grad_v2"
PLATFORM_93 = "  - soc: ascend910_93\n    kernel: classic\n    tiling_key: 1\n"
_GE = {"DT_FLOAT16": "float16", "DT_BF16": "bfloat16", "DT_FLOAT": "float32"}


def _subset(indices: str) -> str:
    """The HardSwishGradV2 spec with ascend910_93 supporting only the columns `indices` (a YAML list)."""
    text = HSG.read_text(encoding="utf-8")
    assert PLATFORM_93 in text
    return text.replace(PLATFORM_93, f"{PLATFORM_93}    combinations: {indices}\n")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ascend910_93 registering fp16/fp32 only (columns 1 and 2 of bf16/fp16/fp32), rendered once."""
    base = tmp_path_factory.mktemp("soc_columns")
    spec = base / "specs" / HSG.name
    spec.parent.mkdir()
    spec.write_text(_subset("[1, 2]"), encoding="utf-8")
    write_ops(base / "out", render_specs([spec]), force=False, record_dir=base / "specs" / ".opgen")
    return base / "out" / REL


def _own_copy(tree: Path, tmp_path: Path) -> Path:
    dest = tmp_path / REL
    shutil.copytree(tree, dest)
    copy_record(tree, dest, tmp_path / "specs" / ".opgen")
    return dest


def _read(op_dir: Path, rel: str) -> str:
    return (op_dir / rel).read_text(encoding="utf-8")


def _columns(text: str, owner: str) -> dict[str, list[str]]:
    return {name: [_GE[d] for d in re.findall(r"ge::(DT_\w+)", listed)] for name, listed in
            re.findall(owner + r'(?:Input|Output)\("(\w+)"\)[^;]*?\.DataType\(\{([^}]*)\}\)', text, re.S)}


def test_the_def_registers_the_subset_soc_with_an_opaicoreconfig_of_exactly_its_columns(tree: Path) -> None:
    text = _read(tree, "op_host/hard_swish_grad_v2_def.cpp")
    every = ["bfloat16", "float16", "float32"]
    assert _columns(text, r"this->") == {"gradOutput": every, "self": every, "out": every}
    own = _columns(text, r"\bconfigAscend91093\.")
    assert own == {"gradOutput": ["float16", "float32"], "self": ["float16", "float32"], "out": ["float16", "float32"]}
    formats = re.findall(r'configAscend91093\.\w+\("\w+"\)[^;]*?\.Format\(\{([^}]*)\}\)', text, re.S)
    assert formats == ["ge::FORMAT_ND, ge::FORMAT_ND"] * 3
    assert 'this->AICore().AddConfig("ascend910_93", configAscend91093);' in text
    assert 'this->AICore().AddConfig("ascend910b");' in text  # all columns: today's form
    assert "configAscend950.Input" not in text  # 950 has flags of its own but every column


def test_every_file_for_the_subset_soc_uses_only_its_combinations(tree: Path) -> None:
    entries = json.loads(_read(tree, "op_host/config/ascend910_93/hard_swish_grad_v2_binary.json"))["op_list"]
    assert [e["outputs"][0]["dtype"] for e in entries] == ["float16", "float32"]
    assert len(json.loads(_read(tree, "op_host/config/ascend910b/hard_swish_grad_v2_binary.json"))["op_list"]) == 3
    tiling = _read(tree, "tests/ut/op_host/arch22/test_hard_swish_grad_v2_tiling.cpp")
    suite_93 = tiling.split("class HardSwishGradV2TilingAscend91093")[1]
    assert "tiling_bfloat16" not in suite_93 and "tiling_float16_test_shape" in suite_93
    assert "tiling_bfloat16_test_shape" in tiling.split("class HardSwishGradV2TilingAscend91093")[0]
    kernel_ut = _read(tree, "tests/ut/op_kernel/arch22/test_hard_swish_grad_v2.cpp")
    assert re.findall(r"TEST_F\(\w+, hard_swish_grad_v2_(\w+)_ascend910_93_", kernel_ut) == ["float16", "float16"]
    rows = list(csv.DictReader((tree / "tests/st/arch22/ttk_kernel_hard_swish_grad_v2_st.csv").open(encoding="utf-8")))
    for row in rows:
        series = ast.literal_eval(row["soc_series"]) if row["soc_series"] else ()
        if "bfloat16" in row["input_dtypes"]:
            assert series and "Ascend910_93" not in series, row["testcase_name"]
    assert any(r["testcase_name"] == "hard_swish_grad_v2_float16_ascend910_93_48_cores" for r in rows)
    aclnn = _read(tree, "op_host/op_api/aclnn_hardswish_backward_v2.cpp")
    assert re.search(r"ASCEND910_93_DTYPE_SUPPORT_LIST = \{op::DataType::DT_FLOAT16,\s*op::DataType::DT_FLOAT\}",
                     aclnn)
    assert "if (socVersion == SocVersion::ASCEND910_93) {" in aclnn
    assert "OP_CHECK_DTYPE_NOT_SUPPORT(gradOutput, supportList, return false);" in aclnn
    ut = _read(tree, "tests/ut/op_api/test_aclnn_hardswish_backward_v2.cpp")
    rejected = ut.split("ascend910_93_bfloat16_rejected)")[1].split("TEST_F")[0]
    assert "SocVersion::ASCEND910_93" in rejected and "ACL_BF16" in rejected
    assert "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_INVALID);" in rejected
    assert "ascend910_93_normal_bfloat16" not in ut and "ascend910b_normal_bfloat16" in ut


def test_the_kernel_tier_builds_a_soc_only_its_combinations(tree: Path) -> None:
    variants = [v for v in kernel_variants(loaded(tree)[1]) if isinstance(v, KernelVariant)]
    built = {(v.soc, v.combination.key.name) for v in variants}
    assert ("ascend910_93", "bfloat16") not in built
    assert {("ascend910_93", "float16"), ("ascend910_93", "float32"), ("ascend910b", "bfloat16")} <= built


def test_the_generated_tree_passes_consistency(tree: Path) -> None:
    items = consistency_tier(tree, loaded(tree)[1])
    assert failing(items) == []
    assert by_item(items, "def OpAICoreConfig columns ⊆ def (configAscend91093)").status == "pass"
    assert by_item(items, "binary JSON == def (ascend910_93)").reason == "2 entries"


def test_listing_every_column_is_the_default_byte_for_byte(tmp_path: Path) -> None:
    spec = tmp_path / HSG.name
    spec.write_text(_subset("[2, 0, 1]"), encoding="utf-8")
    [listed] = render_specs([spec])
    [default] = render_specs([HSG])
    assert listed.files == default.files


@pytest.mark.parametrize(("indices", "message"), [
    ("[1, 3]", "platforms[1].combinations[1]: 3 is no combination: the dtypes lists have 3 columns, "
               "indexed 0 to 2"),
    ("[-1]", "platforms[1].combinations[0]: -1 is no combination"),
    ("[]", "platforms[1].combinations: lists no combination; name the column indices (0 to 2) ascend910_93 "
           "supports, or drop the field for all of them"),
    ("[1, 1]", "platforms[1].combinations: lists combination 1 2 times; list each once"),
])
def test_a_bad_index_list_is_one_clear_problem(run, tmp_path: Path, indices: str, message: str) -> None:
    spec = copy_spec(HSG, tmp_path, lambda _: _subset(indices))
    line = _subset(indices).splitlines().index(f"    combinations: {indices}") + 1
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert f"{spec.name}:{line}: {message}" in " ".join(result.err.split()), result.err  # rich may wrap
    assert "Traceback" not in result.err
    assert snapshot(out) == {}



PLATFORM_910 = "    combinations: [1, 2]  #"


@pytest.mark.parametrize(("old", "new", "message"), [
    (PLATFORM_910, "    combinations: [0, 1, 2]  #", "platforms[2].combinations: ascend910 has no bfloat16: list the "
                                                  "combinations it supports, without 0"),
    ("  - soc: ascend910\n    kernel: classic\n    tiling_key: 3\n    combinations: [1, 2]",
     "  - soc: ascend310p\n    kernel: classic\n    tiling_key: 3\n    combinations: [0, 1, 2]",
     "platforms[2].combinations: ascend310p has no bfloat16: list the combinations it supports, without 0"),
    ("  same_shape: [gradOutput, self, out]", "  broadcast: [gradOutput, self]",
     "platforms[2].soc: ascend910's kernel moves whole 32-byte blocks of elements (its arch has no DataCopyPad): it "
     "takes no broadcast and no 1-bit mask tensor; drop ascend910 from platforms"),
])
def test_ascend910_refuses_what_its_arch_cannot_run(run, tmp_path: Path, old: str, new: str, message: str) -> None:
    text = HSG.read_text(encoding="utf-8")
    assert old in text
    spec = copy_spec(HSG, tmp_path, lambda _: text.replace(old, new))
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert message in " ".join(result.err.split()), result.err  # rich may wrap
    assert "Traceback" not in result.err
    assert snapshot(out) == {}

FAULTS = [
    # (what, old, new, failing row, reason text)
    ("a column dropped from one tensor of the config",
     'configAscend91093.Input("self")\n            .ParamType(REQUIRED)\n'
     "            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})",
     'configAscend91093.Input("self")\n            .ParamType(REQUIRED)\n            .DataType({ge::DT_FLOAT})',
     "def OpAICoreConfig columns ⊆ def (configAscend91093)",
     "configAscend91093's tensors list different numbers of dtypes: gradOutput 2, self 1, out 2"),
    ("a tensor missing from the config",
     'configAscend91093.Output("out")', 'configAscend91093.Output("y")',
     "def OpAICoreConfig columns ⊆ def (configAscend91093)",
     "configAscend91093 registers (gradOutput, self, y), the def (gradOutput, self, out)"),
    ("a column the main def does not list (fp32 made int32 in every tensor)",
     ".DataType({ge::DT_FLOAT16, ge::DT_FLOAT})", ".DataType({ge::DT_FLOAT16, ge::DT_INT32})",
     "def OpAICoreConfig columns ⊆ def (configAscend91093)",
     "configAscend91093 registers (int32, int32 -> int32), which the def's main columns do not list"),
]


@pytest.mark.parametrize(("what", "old", "new", "row", "reason"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_config_out_of_step_fails_its_row(tree: Path, tmp_path: Path, what: str, old: str, new: str, row: str,
                                            reason: str) -> None:
    op_dir = _own_copy(tree, tmp_path)
    path = op_dir / "op_host/hard_swish_grad_v2_def.cpp"
    text = path.read_text(encoding="utf-8")
    assert old in text, what
    path.write_text(text.replace(old, new, 1 if "DataType" not in old else -1), encoding="utf-8")
    item = by_item(consistency_tier(op_dir, loaded(op_dir)[1]), row)
    assert item.status == "fail", what
    assert reason in item.reason, item.reason


def test_a_binary_json_with_a_combination_its_soc_lacks_fails(tree: Path, tmp_path: Path) -> None:
    op_dir = _own_copy(tree, tmp_path)
    full = json.loads(_read(op_dir, "op_host/config/ascend910b/hard_swish_grad_v2_binary.json"))
    (op_dir / "op_host/config/ascend910_93/hard_swish_grad_v2_binary.json").write_text(
        json.dumps(full, indent=4) + "\n", encoding="utf-8")
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    [item] = failing(items)
    assert item.item == "binary JSON == def (ascend910_93)"
    assert "has combination (bfloat16, bfloat16 -> bfloat16) that the def does not list" in item.reason


def test_an_st_row_for_a_soc_lacking_its_combination_fails(tree: Path, tmp_path: Path) -> None:
    op_dir = _own_copy(tree, tmp_path)
    path = op_dir / "tests/st/arch22/ttk_kernel_hard_swish_grad_v2_st.csv"
    text = path.read_text(encoding="utf-8")
    old = "\"('Ascend910B', 'Ascend950')\""
    assert old in text
    path.write_text(text.replace(old, "\"('Ascend910B', 'Ascend910_93', 'Ascend950')\"", 1), encoding="utf-8")
    [item] = failing(consistency_tier(op_dir, loaded(op_dir)[1]))  # the arch22 copy, not the arch35 one
    assert item.item == "ST CSV dtypes ⊆ def (ttk_kernel_hard_swish_grad_v2_st.csv)"
    assert "soc_series names Ascend910_93, whose def columns (ascend910_93) lack bfloat16, bfloat16, bfloat16" \
        in item.reason


def test_the_plan_keeps_each_socs_combinations() -> None:
    spec = load_spec(HSG).spec
    plan = build_plan(spec, HSG.name)
    others = [s for s in plan.socs if s.name != "ascend910"]
    assert others and all(s.combinations == plan.combinations and s.def_columns == () for s in others)
    [training] = [s for s in plan.socs if s.name == "ascend910"]  # upstream's config910A: fp16 and fp32
    assert [c.key.name for c in training.combinations] == ["float16", "float32"] and training.def_columns


def _rendered(tmp_path: Path, text: str) -> dict[str, str]:
    spec = tmp_path / HSG.name
    spec.write_text(text, encoding="utf-8")
    [op] = render_specs([spec])
    return {rel: data.decode() for rel, data in op.files.items()}


def _def_of(tmp_path: Path, text: str) -> str:
    return _rendered(tmp_path, text)["op_host/hard_swish_grad_v2_def.cpp"]


def test_socs_with_the_same_own_columns_add_one_config(tmp_path: Path) -> None:
    """As ops-nn adds config950 for both mc62 and ascend950: one declaration, two AddConfig."""
    platform_b = "  - soc: ascend910b\n    kernel: classic\n    tiling_key: 0\n"
    text = _subset("[1, 2]").replace(platform_b, f"{platform_b}    combinations: [1, 2]\n")
    definition = _def_of(tmp_path, text)
    assert definition.count("OpAICoreConfig configAscend910b;") == 1
    assert "configAscend91093" not in definition
    assert 'this->AICore().AddConfig("ascend910b", configAscend910b);' in definition
    assert 'this->AICore().AddConfig("ascend910_93", configAscend910b);' in definition


def test_a_soc_with_flags_and_own_columns_gets_both_in_one_config(tmp_path: Path) -> None:
    platform_950 = "  - soc: ascend950\n    kernel: classic_arch35\n    tiling_key: 2\n"
    text = HSG.read_text(encoding="utf-8")
    assert platform_950 in text
    definition = _def_of(tmp_path, text.replace(platform_950, f"{platform_950}    combinations: [0, 2]\n"))
    config = definition.split("OpAICoreConfig configAscend950;")[1].split("AddConfig")[0]
    own = _columns(config, r"\bconfigAscend950\.")
    assert own == {n: ["bfloat16", "float32"] for n in ("gradOutput", "self", "out")}
    assert '.PrecisionReduceFlag(true)\n            .ExtendCfgInfo("opFile.value", "hard_swish_grad_v2");' in config


def test_aclnn_ut_cases_without_a_soc_use_what_the_ut_default_soc_registers(tmp_path: Path) -> None:
    """ops-nn's op_api UT stub reports ascend910b unless a case sets a SoC: with 910b on fp16/fp32 only, the
    bf16 acceptance case runs on the first SoC that registers bf16 (ascend910_93)."""
    platform_b = "  - soc: ascend910b\n    kernel: classic\n    tiling_key: 0\n"
    text = HSG.read_text(encoding="utf-8").replace(platform_b, f"{platform_b}    combinations: [1, 2]\n")
    files = _rendered(tmp_path, text)
    ut = files["tests/ut/op_api/test_aclnn_hardswish_backward_v2.cpp"]
    case = ut.split("_normal_bfloat16)")[1].split("TEST_F")[0]
    assert "SocVersionManager socVersion(SocVersion::ASCEND910_93);" in case
    assert "SocVersionManager" not in ut.split("_normal_float16)")[1].split("TEST_F")[0]


def test_numerics_check_each_variant_only_on_combinations_its_socs_register(tmp_path: Path) -> None:
    """ascend950 on its own variant with fp16/fp32 only: no emulator row of that variant is bf16, while the
    default variant (910b-class, every column) still has bf16 rows; the golden file runs likewise per SoC."""
    from opgen.check.numerics import check_golden_file, check_numerics

    platform_950 = "  - soc: ascend950\n    kernel: classic_arch35\n    tiling_key: 2\n"
    text = HSG.read_text(encoding="utf-8")
    steps = text.split("    default:\n")[1].split("\n\n")[0]
    text = text.replace(platform_950, f"{platform_950}    compute_variant: arch35\n    combinations: [1, 2]\n")
    text = text.replace("    default:\n", f"    arch35:\n{steps}\n    default:\n")
    spec_path = tmp_path / "specs" / HSG.name
    spec_path.parent.mkdir()
    spec_path.write_text(text, encoding="utf-8")
    spec = load_spec(spec_path).spec
    plan = build_plan(spec, HSG.name)
    rows = {(r.variant, r.dtypes[0]) for r in check_numerics(spec, plan)}
    assert ("arch35", "float16") in rows and ("default", "bfloat16") in rows
    assert ("arch35", "bfloat16") not in rows
    write_ops(tmp_path / "out", render_specs([spec_path]), force=False, record_dir=spec_path.parent / ".opgen")
    golden = check_golden_file(tmp_path / "out" / REL / "tests/assets/golden.py", spec, plan)
    ran = {(r.socs, r.dtypes[0]) for r in golden}
    assert (("Ascend950",), "float16") in ran and (("Ascend910B",), "bfloat16") in ran
    assert (("Ascend950",), "bfloat16") not in ran
    assert all(r.failures == 0 for r in golden)


def test_each_kernel_family_has_its_kernel_ut_in_the_arch_dir_only_its_socs_build(tree: Path) -> None:
    """ops-nn's AddOpTestCase compiles tests/ut/op_kernel/test_<op>*.cpp and the --soc's arch dir (arch22 for
    910B/910_93, arch35 for 950) with that SoC's kernel: a family's UT at the top level would also run against
    the other family's kernel."""
    kernel_uts = sorted(p.relative_to(tree).as_posix() for p in (tree / "tests/ut/op_kernel").rglob("test_*.cpp"))
    assert kernel_uts == ["tests/ut/op_kernel/arch22/test_hard_swish_grad_v2.cpp",
                          "tests/ut/op_kernel/arch35/test_hard_swish_grad_v2_apt.cpp"]
    classic = _read(tree, kernel_uts[0])
    assert '#include "../../../../op_kernel/hard_swish_grad_v2_tiling_data.h"' in classic
    assert re.findall(r"TEST_F\(\w+, hard_swish_grad_v2_\w+?_(ascend\w+?)_\d", classic)
    assert not re.search(r"TEST_F\(\w+, \w+_ascend950_", classic)
    apt = _read(tree, kernel_uts[1])
    assert '#include "../../../../op_kernel/arch35/hard_swish_grad_v2_tiling_data.h"' in apt
    assert not re.search(r"TEST_F\(\w+, \w+_ascend910", apt)
