"""Kernel tier, compile level: the build facts (arch map, variants, wrapper), the derivation of intrinsic
declarations from diagnostics, and - given the CANN sources - the samples compile and each injected kernel fault
fails the kernel tier alone, at the op's file and line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import GELU as GELU_SPEC

from opgen.cann_sources import resolve_sources
from opgen.check.kernel.build import SOC_ARCH, kernel_variants, soc_arch, unmapped_reason, wrapper_source
from opgen.check.kernel.intrinsics import Names, render_header, undeclared
from opgen.check.kernel.run_build import op_entry, run_wrapper
from opgen.check.kernel.tier import kernel_tier
from opgen.check.runner import run_checks
from opgen.plan import RenderPlan
from opgen.spec.socs import SOCS

from .trees import GELU, RELU, copy_sample, edit, failing, loaded, statuses

CHEAP_TIERS = ("structure", "syntax", "consistency")


def test_skipped_without_sources_with_the_enabling_command(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    [item] = kernel_tier(op_dir, loaded(op_dir)[1], None)
    assert item.status == "skip" and "OPGEN_CANN_SRC" in item.reason and "--cann-src" in item.reason


def test_every_soc_opgen_knows_has_an_arch_and_an_unknown_one_says_why() -> None:
    assert set(SOC_ARCH) == set(SOCS)
    assert {soc: soc_arch(soc).npu_arch for soc in ("ascend910b", "ascend950", "ascend310b", "ascend910")} == {  # type: ignore[union-attr]
        "ascend910b": 2201, "ascend950": 3510, "ascend310b": 3002, "ascend910": 1001}
    assert soc_arch("mc62") is None and "mc62" in unmapped_reason("mc62")


def test_relu_variants_are_socs_times_dtypes_each_instantiating_its_tpl_selections(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    plan = loaded(op_dir)[1]
    variants = kernel_variants(plan)
    assert len(variants) == 2 * 6
    first = variants[0]
    assert not isinstance(first, tuple)
    assert first.instantiations == ("&relu_grad_v2<TPL_SCH_MODE_0, TPL_BF16>",
                                    "&relu_grad_v2<TPL_SCH_MODE_1, TPL_BF16>")
    assert "-DDTYPE_GRADIENTS=bfloat16_t" in first.defines and "-DORIG_DTYPE_MASK=DT_UINT1" in first.defines
    assert "-D__NPU_ARCH__=3510" in first.arch.defines


def test_an_unmapped_soc_gives_skipped_rows_never_passed(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    plan = loaded(op_dir)[1]
    odd = dataclasses.replace(plan.socs[0], name="mc62")
    variants = kernel_variants(dataclasses.replace(plan, socs=(odd,)))
    assert variants == [("mc62", unmapped_reason("mc62"))]


def test_wrapper_makes_the_entry_inline_and_reads_tiling_into_the_real_struct(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    plan = loaded(op_dir)[1]
    [variant, *_] = [v for v in kernel_variants(plan) if not isinstance(v, tuple)]
    text = wrapper_source(plan, op_dir / "op_kernel/gelu_grad.cpp", variant)
    assert "#define __global__ inline" in text and f'#include "{op_dir}/op_kernel/gelu_grad.cpp"' in text
    assert "tiling_struct tiling_data;" in text and "reinterpret_cast<void*>(&gelu_grad" in text


def test_socs_of_one_arch_share_the_compile_and_the_executable(tmp_path: Path) -> None:
    """910B and 910_93 are both arch 2201: their units are the same text, so the compile cache and the run build
    (both keyed by it) build each dtype once for the two."""
    op_dir = copy_sample(tmp_path, "activation/hard_swish_grad_v2")
    plan = loaded(op_dir)[1]
    variants = [v for v in kernel_variants(plan) if not isinstance(v, tuple)]
    b, b93 = ([v for v in variants if v.soc == soc and v.combination.index == 0] for soc in ("ascend910b",
                                                                                              "ascend910_93"))
    assert b[0].arch == b93[0].arch and b[0].label != b93[0].label
    assert run_wrapper(plan, b[0], op_entry(b[0])) == run_wrapper(plan, b93[0], op_entry(b93[0]))
    assert wrapper_source(plan, op_entry(b[0]), b[0]).startswith("// opgen kernel check: arch 2201 ")


@pytest.mark.parametrize("quotes", ["''", "\u2018\u2019"], ids=["C locale", "UTF-8 locale"])
def test_undeclared_names_are_learned_only_inside_asc_devkit_by_how_they_are_used(quotes: str,
                                                                                  tmp_path: Path) -> None:
    devkit, op = tmp_path / "asc-devkit", tmp_path / "op"
    devkit.mkdir()
    op.mkdir()
    (devkit / "a.h").write_text("pipe_t p;\nvadd(\n  x);\nset_flag(PIPE_S);\nQuantMode_t::NoQuant;\n(Mode_t)0;\n")
    (op / "k.h").write_text("Expp(x);\n")
    o, c = quotes
    output = "\n".join([
        f"{devkit}/a.h:1:1: error: {o}pipe_t{c} does not name a type",
        f"{devkit}/a.h:2:1: error: {o}vadd{c} was not declared in this scope",
        f"{devkit}/a.h:4:10: error: {o}PIPE_S{c} was not declared in this scope",
        f"{devkit}/a.h:5:14: error: {o}NoQuant{c} is not a member of {o}QuantMode_t{c}",
        f"{devkit}/a.h:6:9: error: expected {o}){c} before numeric constant",
        f"{op}/k.h:1:1: error: {o}Expp{c} was not declared in this scope",
    ])
    names = undeclared(output, devkit)
    assert names == Names({"pipe_t", "Mode_t"}, {"PIPE_S"}, {"vadd"}, {("QuantMode_t", "NoQuant")})
    header = render_header(names, {"vadd": [("float*",), ("half*",)]})
    assert "enum QuantMode_t : int64_t {NoQuant = " in header and "Expp" not in header
    assert "int64_t vadd(float*, Args... args);" in header and "int64_t vadd(half*, Args... args);" in header


# ---- with the CANN sources: real compiles (each fault compiles one variant of a copy of the sample) ----

def _one_variant(plan: RenderPlan, soc: str, combination: int = 0) -> RenderPlan:
    """The plan cut to one SoC compiling one dtype combination (the kernel tier compiles each SoC's own)."""
    chosen = plan.combinations[combination:combination + 1]
    return dataclasses.replace(plan, socs=tuple(dataclasses.replace(s, combinations=chosen)
                                                for s in plan.socs if s.name == soc), combinations=chosen)


def test_a_cached_pass_survives_new_declarations_and_a_cached_failure_does_not(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every compile of an arch learns into one declarations header: keyed on it, each name any op taught the arch
    dropped every answer cached before (a CI run recompiled both samples' kernels after its tests had learned)."""
    from opgen.check.kernel import tier

    monkeypatch.setenv("OPGEN_CACHE", str(tmp_path))
    before, after = b"template <typename... Args> int64_t vadd(Args... args);\n", b"...\nint64_t vsub(...);\n"
    tier._store("passed", tier.Compiled(True, "", 1.0), before)
    tier._store("failed", tier.Compiled(False, "'vsub' was not declared", 1.0), before)
    assert tier._cached("passed", after) == tier.Compiled(True, "", 1.0, cached=True)
    assert tier._cached("failed", before) == tier.Compiled(False, "'vsub' was not declared", 1.0, cached=True)
    assert tier._cached("failed", after) is None  # the name it missed may be declared now: compiled again


def test_gelu_sample_compiles_for_every_soc_and_dtype(cann_src: Path, tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    items = kernel_tier(op_dir, loaded(op_dir)[1], resolve_sources(cann_src))
    assert [i.item for i in items] == [f"{soc} {d} compile" for soc in ("ascend910b", "ascend310b")
                                       for d in ("float32", "float16", "bfloat16")]
    assert failing(items) == [] and all(i.figures["instantiations"] == 2 for i in items)


def test_relu_sample_compiles_for_both_socs_and_six_dtypes(cann_src: Path, tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    items = kernel_tier(op_dir, loaded(op_dir)[1], resolve_sources(cann_src))
    assert len(items) == 12 and failing(items) == [], failing(items)


# fault: (text, replacement, what the reason names, dtype combination compiled, tiers that also see it)
FAULTS = {
    "api typo": ("Exp(tmp0, tmp0, count);", "Expo(tmp0, tmp0, count);", "'Expo'", 0, ()),
    "scalar where a tensor is needed": ("Sub(xValue, xValue, zValue, count);", "Sub(xValue, xValue, 1.0f, count);",
                                        "no matching function for call to 'Sub", 0, ()),
    "constant of another type": ("Maxs(zValue, xValue, -10000.0f, count);",
                                 "Maxs(zValue, xValue, (half)-10000.0f, count);", "Maxs", 0, ()),
    "wrong dtype in a Cast": ("Cast(dst, src, MODE, count);",
                              "Cast(dst, src.template ReinterpretCast<int64_t>(), MODE, count);",
                              "CastIntrinsicsImpl(half*&, long int*&", 1, ()),
    # the consistency tier's "every field the kernel reads is written by the host" sees this one too
    "bad tiling field": ("tilingData.blockTail", "tilingData.blockTale", "has no member named 'blockTale'", 0,
                         ("consistency",)),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_kernel_fault_fails_the_kernel_tier_at_the_kernel_line(cann_src: Path, tmp_path: Path,
                                                                    fault: str) -> None:
    old, new, reason, combination, also = FAULTS[fault]
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "op_kernel/gelu_grad.h", old, new)
    line = next(n for n, text in enumerate((op_dir / "op_kernel/gelu_grad.h").read_text().splitlines(), 1)
                if new in text)
    plan = loaded(op_dir)[1]
    [item] = kernel_tier(op_dir, _one_variant(plan, "ascend910b", combination), resolve_sources(cann_src))
    assert item.status == "fail", item
    assert item.reason.startswith(f"op_kernel/gelu_grad.h:{line}:") and reason in item.reason, item.reason
    others = run_checks(op_dir, loaded(op_dir)[0].path, tiers=CHEAP_TIERS)
    assert {t for t, status in statuses(others.tiers).items() if status != "pass"} == set(also)


def test_exp_on_an_int32_tensor_fails_for_2201_by_the_typed_declarations(cann_src: Path, tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "op_kernel/gelu_grad.h", "Exp(tmp0, tmp0, count);",
         "Exp(tmp0.ReinterpretCast<int32_t>(), tmp0.ReinterpretCast<int32_t>(), count);")
    [item] = kernel_tier(op_dir, _one_variant(loaded(op_dir)[1], "ascend910b"), resolve_sources(cann_src))
    assert item.status == "fail" and item.reason.startswith("op_kernel/gelu_grad.h:") and "vexp" in item.reason


def test_a_new_classic_op_gets_the_same_rows_with_no_extra_work(cann_src: Path, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    schemas, out = tmp_path / "schemas", tmp_path / "out"
    assert run("new", "SwishGrad", "--like", GELU_SPEC, "--schemas", schemas, "-o", out).code == 0
    op_dir = out / "experimental/activation/swish_grad"
    plan = loaded(op_dir)[1]
    items = kernel_tier(op_dir, plan, resolve_sources(cann_src))
    assert [i.item for i in items] == [f"{s.name} {c.key.name} compile" for s in plan.socs for c in plan.combinations]
    assert failing(items) == []


def test_validate_check_stage_compiles_against_the_toolkit_validate_builds_with() -> None:
    from opgen.validate.pipeline import Options, check_options
    from opgen.validate.runner import check_argv

    def options(**kw: object) -> tuple[str, ...]:
        base: dict[str, object] = {"op_dir": Path("op"), "ops_nn": Path("nn"), "soc": None, "stages": None,
                                   "keep": False, "force": False, "cann": None, "jobs": 1}
        return check_options(Options(**{**base, **kw}))  # type: ignore[arg-type]

    assert check_argv(Path("op"), options(cann=Path("/opt/cann")))[-3:] == ["op", "--cann", "/opt/cann"]
    assert "--cann" not in check_argv(Path("op"), options())
