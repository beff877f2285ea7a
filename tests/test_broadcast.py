"""Broadcast: the infershape rule, its UT cases, the arch35 kernel's CopyInBrc, and the classic refusal."""

from __future__ import annotations

from pathlib import Path

from conftest import SAMPLES

SCHEMAS = SAMPLES.parent / "schemas"


def _spec(tmp_path: Path, name: str, edit: tuple[str, str]) -> Path:
    text = (SCHEMAS / name).read_text()
    assert edit[0] in text
    path = tmp_path / name
    path.write_text(text.replace(*edit))
    return path


def test_classic_spec_asking_broadcast_is_refused(run, tmp_path: Path) -> None:
    spec = _spec(tmp_path, "gelu_grad.yaml", ("rule: elementwise", "rule: broadcast"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2
    assert "kernel: infershape rule broadcast: the classic and classic_arch35 kernels do not broadcast" in \
        " ".join((result.out + result.err).split())
    assert not (tmp_path / "out").exists()


def test_classic_arch35_spec_asking_broadcast_is_refused_naming_what_to_use(run, tmp_path: Path) -> None:
    """classic_arch35 reads every input as long as the output: a broadcast input would be read past its end."""
    spec = _spec(tmp_path, "soft_shrink_grad.yaml", ("rule: elementwise", "rule: broadcast"))
    spec.write_text(spec.read_text().replace("  same_shape: [input_grad, input_x, output_y]\n", ""))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2, result
    text = " ".join((result.out + result.err).split())
    assert "platforms[0].kernel: infershape rule broadcast" in text and "use kernel arch35_dag" in text
    assert not (tmp_path / "out").exists()


def test_broadcast_rule_renders_copyinbrc_broadcast_tiling_and_failing_infershape(run, tmp_path: Path) -> None:
    result = run("gen", SCHEMAS / "softplus_grad.yaml", "-o", tmp_path / "out")
    assert result.code == 0
    op = tmp_path / "out" / "activation" / "softplus_grad"
    assert (op / "op_kernel/arch35/softplus_grad_dag.h").read_text().count("Vec::CopyInBrc<") == 2
    assert "BroadcastBaseTiling<" in (op / "op_host/arch35/softplus_grad_tiling_arch35.cpp").read_text()
    assert "BroadcastSch<schMode" in (op / "op_kernel/softplus_grad.cpp").read_text()
    infershape_ut = (op / "tests/ut/op_host/test_softplus_grad_infershape.cpp").read_text()
    incompatible = infershape_ut.split("infershape_broadcast_gradients_incompatible")[1].split("TEST_F")[0]
    assert "ge::GRAPH_FAILED" in incompatible
    dynamic = infershape_ut.split("infershape_broadcast_gradients_dynamic")[1].split("TEST_F")[0]
    assert "{4, 1024}" in dynamic and "GRAPH_SUCCESS" in dynamic


def test_same_shape_contradicts_broadcast(run, tmp_path: Path) -> None:
    extra = "  same_shape: [gradients, features]\n  same_dtype:"
    spec = _spec(tmp_path, "softplus_grad.yaml", ("  same_dtype:", extra))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2
    assert "same_shape: contradicts infershape rule broadcast" in result.out + result.err


def test_a_broadcasting_dag_reading_an_attr_sets_it_as_a_broadcast_scalar(run, tmp_path: Path) -> None:
    """LeakyReluGrad broadcasts as upstream: negative_slope reaches BroadcastSch by SetScalar after each DoTiling,
    in DAG Var order, and the op has no tiling struct of its own."""
    result = run("gen", SCHEMAS / "leaky_relu_grad.yaml", "-o", tmp_path / "out")
    assert result.code == 0, result
    op = tmp_path / "out" / "activation" / "leaky_relu_grad"
    tiling = (op / "op_host/arch35/leaky_relu_grad_tiling_arch35.cpp").read_text()
    assert tiling.count("brcBaseTiling.SetScalar<float>(negativeSlopeValue);") == 3
    for branch in tiling.split("BroadcastBaseTiling<")[1:]:
        assert branch.index("DoTiling()") < branch.index("SetScalar")
    assert "Placeholder::Var<float, 0>" in (op / "op_kernel/arch35/leaky_relu_grad_dag.h").read_text()
    assert "LeakyReluGradTilingData" not in (op / "op_kernel/arch35/leaky_relu_grad_tiling_struct.h").read_text()


def test_broadcast_scalars_need_float32_compute(run, tmp_path: Path) -> None:
    spec = _spec(tmp_path, "leaky_relu_grad.yaml", ("  dtype: float32", "  dtype: native"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2, result
    assert "compute.dtype: the recipe reads attrs (negative_slope) in a broadcasting kernel" in \
        " ".join((result.out + result.err).split())
    assert not (tmp_path / "out").exists()
