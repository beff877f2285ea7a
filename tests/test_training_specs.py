"""The training set: activation-grad specs of ops-nn beyond the two samples, rendered into generated_samples/,
and their registered facts compared with upstream's (the committed facts of tests/upstream_facts, which
tests/upstream/test_facts.py re-extracts from the CANN sources)."""

from __future__ import annotations

import ast
import operator
import re

import numpy as np
import pytest
from conftest import ROOT, SAMPLES, SCHEMAS, snapshot

from opgen.generate import render_specs
from opgen.plan import build_plan
from opgen.spec.dtypes import PROTO_DTYPES, PROTO_TYPE_CLASSES
from opgen.spec.load import load_spec
from opgen.spec.models import OpSpec
from opgen.upstream import OpFacts, parse_op_dir
from opgen.upstream.facts import load_facts
from opgen.upstream.models import AclnnFunction, OpDef

SAMPLE_SPECS = {"relu_grad_v2", "gelu_grad"}
TRAINING = sorted(p.stem for p in SCHEMAS.glob("*.yaml") if p.stem not in SAMPLE_SPECS)
UPSTREAM_FACTS = ROOT / "tests" / "upstream_facts"
_GE = {"DT_FLOAT": "float32", "DT_FLOAT16": "float16", "DT_BF16": "bfloat16"}
# facts that differ from upstream on purpose, each with the reason (docs/training-set.md lists them too)
DIFFERENCES: dict[tuple[str, str], str] = {
    ("hard_swish_grad_v2", "tensors"): "spec tensor names are snake_case: upstream's gradOutput is grad_output",
    ("hard_swish_grad_v2", "dtypes"): "the same columns, keyed by grad_output for upstream's gradOutput",
    ("hard_swish_grad_v2", "proto_dtypes"): "the same type lists, keyed by grad_output for upstream's gradOutput",
    ("sigmoid_grad", "def_attrs"): "upstream's def registers no attr (complex_conj is proto-only); opgen registers "
                                   "every attr in both",
    ("hard_swish_grad_v2", "socs"): "no ascend910 (its fp16/fp32 columns are expressible as platforms[i]."
                                    "combinations, but the classic kernel's DataCopyPad is not supported on dav_c100) "
                                    "and no mc62 (not a SoC opgen knows)",
}


def test_there_are_at_least_ten_training_specs() -> None:
    assert len(TRAINING) >= 10


@pytest.fixture(scope="module")
def rendered() -> dict[str, dict[str, bytes]]:
    return {op.plan.name: op.files for op in render_specs([SCHEMAS / f"{n}.yaml" for n in TRAINING])}


@pytest.mark.parametrize("name", TRAINING)
def test_training_samples_are_in_sync_with_their_specs(name: str, rendered: dict[str, dict[str, bytes]]) -> None:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    committed = snapshot(SAMPLES / spec.category / spec.snake_name)
    assert committed == rendered[name], "run: opgen gen --force schemas/*.yaml -o generated_samples"


@pytest.fixture(scope="module")
def upstream() -> dict[str, OpFacts]:
    """Upstream's facts at the pinned ops-nn commit (tests/upstream_facts; tests/upstream/test_facts.py re-extracts
    them from $OPGEN_CANN_SRC and compares)."""
    return load_facts(UPSTREAM_FACTS)[1]


def _upstream(facts: OpFacts, spec: OpSpec) -> dict[str, object]:
    """The facts upstream registers: proto tensors, their admitted dtypes and attrs, def dtype columns, SoCs."""
    proto, definition = facts.proto, facts.definition
    assert proto is not None and definition is not None
    columns = {t.name: _columns(t.data_type) for t in definition.tensors}
    return {
        "op_type": proto.op_type,
        "tensors": tuple((t.kind, t.name) for t in proto.tensors),
        "proto_dtypes": {t.name: frozenset(t.type.dtypes) for t in proto.tensors},
        "attrs": tuple((a.name, a.type, _number(a.default) if a.type == "Float" else _unquoted(a.default))
                       for a in proto.attrs),
        "def_attrs": tuple((a.name, a.type, _float32(a.default) if a.type == "Float" else _unquoted(a.default))
                           for a in definition.attrs),
        "dtypes": columns,
        "socs": tuple(sorted(definition.socs)),
        "soc_dtypes": _upstream_soc_columns(definition, spec, columns),
    }


def _columns(data_type: tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(_GE[d] for d in data_type or ())


def _unquoted(default: str | None) -> str | None:
    return None if default is None else default.strip('"')


def _upstream_soc_columns(definition: OpDef, spec: OpSpec, main: dict[str, tuple[str, ...]]
                          ) -> dict[str, tuple[tuple[str, ...], ...] | None]:
    """Per SoC the spec names, the dtype columns upstream registers for it (tensors in def order, names
    dropped): its OpAICoreConfig's own Input/Output columns, else the main ones; None where it is not added."""
    result: dict[str, tuple[tuple[str, ...], ...] | None] = {}
    for p in spec.platforms:
        if p.soc not in definition.socs:
            result[p.soc] = None
            continue
        config = definition.socs[p.soc]
        own = tuple(_columns(t.data_type) for t in config.tensors) if config is not None else ()
        result[p.soc] = own or tuple(main.values())
    return result


def _mine(spec: OpSpec) -> dict[str, object]:
    count = spec.combination_count
    kinds = [("OPTIONAL_INPUT" if t.param_type == "optional" else "INPUT", t.name) for t in spec.inputs]
    return {
        "op_type": spec.op_type,
        "tensors": tuple(kinds + [("OUTPUT", t.name) for t in spec.outputs]),
        "proto_dtypes": {t.name: _my_proto_admits(t.proto_dtypes or t.dtype_column(count)) for t in spec.tensors},
        "attrs": tuple((a.name, a.type.capitalize(), _proto_default(a.default if a.proto_default is None
                                                                     else a.proto_default)) for a in spec.attrs),
        "def_attrs": tuple((a.name, a.type.capitalize(), float(np.float32(a.default)) if a.type == "float"
                            else str(a.default).lower()) for a in spec.attrs),
        "dtypes": {t.name: t.dtype_column(count) for t in spec.tensors},
        "socs": tuple(sorted(p.soc for p in spec.platforms)),
        "soc_dtypes": {p.soc: tuple(tuple(t.dtype_column(count)[k] for k in _columns_of(p.combinations, count))
                                    for t in spec.tensors) for p in spec.platforms},
    }


_ARITHMETIC = {ast.Div: operator.truediv, ast.Mult: operator.mul, ast.Add: operator.add, ast.Sub: operator.sub}


def _number(text: str | None) -> float:
    """A C++ float expression of literals, as upstream writes defaults (`0.5f`, `1.0f / 6.0f`)."""
    assert text is not None, "a Float attr without a default"
    def value(node: ast.expr) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"not a float literal expression: {text!r}")
    return value(ast.parse(re.sub(r"(\d\.?)[fF]\b", r"\1", text.strip()), mode="eval").body)


def _float32(text: str | None) -> float:
    """The value the def registers: the expression in float32, as the OpDef stores it."""
    return float(np.float32(_number(text)))


def _proto_default(value: object) -> object:
    return float(value) if isinstance(value, float) else str(value).lower()


def _columns_of(chosen: tuple[int, ...] | None, count: int) -> list[int]:
    """A platform's column indices in def order: its `combinations`, else every column."""
    return sorted(set(range(count) if chosen is None else chosen))


def _my_proto_admits(types: str | tuple[str, ...]) -> frozenset[str]:
    if isinstance(types, str):
        return PROTO_TYPE_CLASSES[types]
    return frozenset(PROTO_DTYPES[d].ge for d in types)


@pytest.mark.parametrize("name", TRAINING)
def test_registered_facts_equal_upstream_but_for_the_listed_differences(name: str,
                                                                         upstream: dict[str, OpFacts]) -> None:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    theirs, mine = _upstream(upstream[f"{spec.category}/{spec.snake_name}"], spec), _mine(spec)
    differing = {fact for fact in mine if mine[fact] != theirs[fact]}
    listed = {fact for (op, fact) in DIFFERENCES if op == name}
    assert differing == listed, {fact: (mine[fact], theirs[fact]) for fact in differing ^ listed}


# aclnn APIs whose signature differs from upstream's header on purpose, each with the reason
ACLNN_DIFFERENCES: dict[str, str] = {
    "elu_grad_v2": "upstream's scalars (alpha, scale, inputScale, isResult) stand between gradOutput and "
                   "selfOrResult; opgen puts every scalar after the tensor inputs (the same parameters and types)",
    "logsigmoid_grad": "upstream's API takes a tensor `buffer` between self and gradInput (op_api/"
                       "aclnn_logsigmoid_backward.h:25), checked non-null and otherwise unused "
                       "(aclnn_logsigmoid_backward.cpp:44-49); the spec has no way to declare such a parameter yet "
                       "(issue 21: an ABI break the upstream tier must refuse)",
}


def _api_params(function: AclnnFunction) -> list[tuple[str, str]]:
    """[(type, name)] of a function's parameters; a tensor's const is dropped (upstream declares outputs
    `aclTensor*`, opgen `const aclTensor*`: the same API to a caller)."""
    return [(p.type.replace("const aclTensor", "aclTensor"), p.name) for p in function.params]


@pytest.mark.parametrize("name", TRAINING)
def test_aclnn_signature_equals_upstreams_header(name: str, upstream: dict[str, OpFacts]) -> None:
    """The parameters (names, types, order) of aclnn<Api>GetWorkspaceSize, where the op's upstream folder ships
    the API's header: the scalars, flags (selfIsResult) and their places included."""
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    if spec.aclnn is None:
        pytest.skip("no aclnn API")
    plan = build_plan(spec, f"{name}.yaml")
    assert plan.aclnn is not None
    function = f"{plan.aclnn.function}GetWorkspaceSize"
    theirs = _function(upstream[f"{spec.category}/{spec.snake_name}"], function)
    if theirs is None:
        pytest.skip(f"upstream's {spec.category}/{spec.snake_name} declares no {function}")
    mine = _function(parse_op_dir(SAMPLES / plan.rel_dir), function)
    assert mine is not None, f"the generated tree declares no {function}"
    assert (_api_params(mine) != _api_params(theirs)) == (name in ACLNN_DIFFERENCES), (mine, theirs)


def _function(facts: OpFacts, name: str) -> AclnnFunction | None:
    return next((f for header in facts.aclnn for f in header.functions if f.name == name), None)
