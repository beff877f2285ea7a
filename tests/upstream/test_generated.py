"""opgen's own generated trees parse into the same facts as upstream's, and those facts are the spec's: so the
upstream tier compares generated and upstream fact by fact."""

from __future__ import annotations

from functools import cache

import pytest
from conftest import SAMPLES, SCHEMAS

from opgen.plan import RenderPlan, build_plan
from opgen.spec.dtypes import PROTO_DTYPES, proto_admits
from opgen.spec.load import load_spec
from opgen.spec.models import OpSpec
from opgen.upstream import OpFacts, parse_op_dir
from opgen.upstream.docs import product_name

NAMES = sorted(p.stem for p in SCHEMAS.glob("*.yaml"))


@cache
def _sample(name: str) -> tuple[OpSpec, RenderPlan, OpFacts]:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    plan = build_plan(spec, f"{name}.yaml")
    return spec, plan, parse_op_dir(SAMPLES / plan.rel_dir)


def _ge(dtypes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(PROTO_DTYPES[d].ge for d in dtypes)


def test_every_sample_spec_has_a_generated_tree() -> None:
    assert len(NAMES) == 20
    assert all((SAMPLES / _sample(n)[1].rel_dir).is_dir() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_proto_facts_are_the_specs(name: str) -> None:
    spec, _, facts = _sample(name)
    proto = facts.proto
    assert proto is not None and proto.op_type == spec.op_type
    kinds = [("OPTIONAL_INPUT" if t.param_type == "optional" else "INPUT", t.proto_name or t.name)
             for t in spec.inputs]
    assert [(t.kind, t.name) for t in proto.tensors] == kinds + [("OUTPUT", t.proto_name or t.name)
                                                                for t in spec.outputs]
    for tensor, fact in zip(spec.tensors, proto.tensors, strict=True):
        written = tensor.proto_dtypes or tensor.dtype_column(spec.combination_count)
        admitted = proto_admits(written)
        assert set(fact.type.dtypes) == admitted, tensor.name
    assert [(a.name, a.type.capitalize()) for a in spec.attrs] == [(a.name, a.type) for a in proto.attrs]


@pytest.mark.parametrize("name", NAMES)
def test_def_facts_are_the_specs(name: str) -> None:
    spec, _, facts = _sample(name)
    definition = facts.definition
    assert definition is not None and definition.op_type == spec.op_type
    count = spec.combination_count
    assert [(t.direction, t.name, t.data_type) for t in definition.tensors] == \
        [("Input", t.name, _ge(t.dtype_column(count))) for t in spec.inputs] + \
        [("Output", t.name, _ge(t.dtype_column(count))) for t in spec.outputs]
    assert all(len(t.format or ()) == count for t in definition.tensors)
    assert [(a.name, a.type) for a in definition.attrs] == [(a.name, a.type.capitalize()) for a in spec.def_attrs]
    assert set(definition.socs) == {p.soc for p in spec.platforms}
    for platform in spec.platforms:
        config = definition.socs[platform.soc]
        if platform.aicore is not None:
            assert config is not None
            flag = config.flags.get("PrecisionReduceFlag")
            wanted = platform.aicore.precision_reduce
            assert flag == (None if wanted is None else str(wanted).lower()), platform.soc
        for tensor, written in zip(spec.tensors, definition.tensors, strict=True):
            assert tuple(written.flags) == tensor.def_calls, tensor.name


@pytest.mark.parametrize("name", NAMES)
def test_registrations_cmake_aclnn_and_docs_are_the_specs(name: str) -> None:
    spec, plan, facts = _sample(name)
    infer = [r for r in facts.registrations if r.macro == "IMPL_OP_INFERSHAPE"]
    assert [r.op_type for r in infer] == [spec.op_type] and infer[0].call("InferShape")
    modules = [c for f in facts.cmake for c in f.calls if c.command == "add_modules_sources"]
    assert [c.args["OPTYPE"] for c in modules] == [(spec.snake_name,)]
    if plan.aclnn is not None:
        functions = {f.name: f for h in facts.aclnn for f in h.functions}
        workspace = functions[f"{plan.aclnn.function}GetWorkspaceSize"]
        assert workspace.aclnn_api and workspace.params[-1].name == "executor"
        assert plan.aclnn.function in functions
    else:
        assert facts.aclnn == ()
    expected = [(product_name(p.name), p.supported) for p in spec.docs.products]
    assert facts.docs and all([(r.product, r.supported) for r in d.rows] == expected for d in facts.docs)
