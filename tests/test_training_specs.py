"""The training set: activation-grad specs of ops-nn beyond the two samples, rendered into generated_samples/,
and (given the CANN sources) their registered facts compared with upstream's def and proto."""

from __future__ import annotations

import ast
import operator
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES, SCHEMAS, snapshot

from opgen.generate import render_specs
from opgen.plan import build_plan
from opgen.spec.dtypes import PROTO_DTYPES, PROTO_TYPE_CLASSES
from opgen.spec.load import load_spec
from opgen.spec.models import OpSpec

SAMPLE_SPECS = {"relu_grad_v2", "gelu_grad"}
TRAINING = sorted(p.stem for p in SCHEMAS.glob("*.yaml") if p.stem not in SAMPLE_SPECS)
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


def _proto_admits(types: str) -> frozenset[str]:
    """The ge::DataType enumerators a proto TensorType(...) admits: listed ones and named classes, expanded."""
    names = re.findall(r"\w+", types.replace("TensorType", ""))
    return frozenset().union(*(PROTO_TYPE_CLASSES.get(n, {n}) for n in names))


def _upstream(ops_nn: Path, spec: OpSpec) -> dict[str, object]:
    """The facts upstream registers: proto tensors, their admitted dtypes and attrs, def dtype columns, SoCs."""
    folder = ops_nn / spec.category / spec.snake_name
    proto = (folder / "op_graph" / f"{spec.snake_name}_proto.h").read_text(encoding="utf-8")
    definition = (folder / "op_host" / f"{spec.snake_name}_def.cpp").read_text(encoding="utf-8")
    shared = re.search(r"std::vector<ge::DataType>\s*\w+\s*=\s*\{([^}]*)\}", definition)
    columns = {}
    for name, listed in re.findall(r'this->(?:Input|Output)\("(\w+)"\)[^;]*?\.DataType\((\{[^}]*\}|\w+)\)',
                                   definition, re.S):
        text = listed if listed.startswith("{") else (shared.group(1) if shared else "")
        columns[name] = tuple(_GE[d] for d in re.findall(r"ge::(DT_\w+)", text))
    return {
        "op_type": re.search(r"REG_OP\((\w+)\)", proto).group(1),  # type: ignore[union-attr]
        "tensors": tuple(re.findall(r"\.(INPUT|OPTIONAL_INPUT|OUTPUT)\((\w+),", proto)),
        "proto_dtypes": {n: _proto_admits(_type_var(t, proto)) for n, t in
                         re.findall(r"\.(?:INPUT|OPTIONAL_INPUT|OUTPUT)\((\w+),([^\n]*)", proto)},
        "attrs": tuple((n, t, _number(v) if t == "Float" else v.strip('"'))
                       for n, t, v in re.findall(r"\.ATTR\((\w+),\s*(\w+),\s*([^)]+)\)", proto)),
        "def_attrs": tuple((n, t, _float32(v) if t == "Float" else v.strip('"')) for n, t, v in re.findall(
            r'this->Attr\("(\w+)"\)(?:\.AttrType\(\w+\))?\.(\w+)\(([^;]*)\);', definition)),
        "dtypes": columns,
        "socs": tuple(sorted(set(re.findall(r'AddConfig\("(\w+)"', definition)))),
        "soc_dtypes": _upstream_soc_columns(definition, spec, columns, shared.group(1) if shared else ""),
    }


def _type_var(types: str, proto: str) -> str:
    """A tensor's type text, a named type variable (`"T"`, as GeluGradV2's) read as its `.DATATYPE(T, ...)`."""
    named = re.match(r'\s*"(\w+)"\)', types)
    declared = dict(re.findall(r"\.DATATYPE\((\w+),\s*([^\n]*)", proto))
    return declared.get(named.group(1), types) if named else types


def _upstream_soc_columns(definition: str, spec: OpSpec, main: dict[str, tuple[str, ...]],
                          shared: str) -> dict[str, tuple[tuple[str, ...], ...] | None]:
    """Per SoC the spec names, the dtype columns upstream registers for it (tensors in def order, names
    dropped): its OpAICoreConfig's own Input/Output columns, else the main ones; None where it is not added."""
    added = dict(re.findall(r'AddConfig\("(\w+)"(?:\s*,\s*(\w+))?\)', definition))
    result: dict[str, tuple[tuple[str, ...], ...] | None] = {}
    for p in spec.platforms:
        if p.soc not in added:
            result[p.soc] = None
            continue
        own = re.findall(rf'\b{added[p.soc]}\.(?:Input|Output)\("\w+"\)[^;]*?\.DataType\((\{{[^}}]*\}}|\w+)\)',
                         definition, re.S) if added[p.soc] else []
        lists = [listed if listed.startswith("{") else shared for listed in own]
        result[p.soc] = tuple(tuple(_GE[d] for d in re.findall(r"ge::(DT_\w+)", text)) for text in lists) \
            or tuple(main.values())
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


def _number(text: str) -> float:
    """A C++ float expression of literals, as upstream writes defaults (`0.5f`, `1.0f / 6.0f`)."""
    def value(node: ast.expr) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"not a float literal expression: {text!r}")
    return value(ast.parse(re.sub(r"(\d\.?)[fF]\b", r"\1", text.strip()), mode="eval").body)


def _float32(text: str) -> float:
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
def test_registered_facts_equal_upstream_but_for_the_listed_differences(name: str, cann_src: Path) -> None:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    theirs, mine = _upstream(cann_src / "ops-nn", spec), _mine(spec)
    differing = {fact for fact in mine if mine[fact] != theirs[fact]}
    listed = {fact for (op, fact) in DIFFERENCES if op == name}
    assert differing == listed, {fact: (mine[fact], theirs[fact]) for fact in differing ^ listed}


# aclnn APIs whose signature differs from upstream's header on purpose, each with the reason
ACLNN_DIFFERENCES: dict[str, str] = {
    "elu_grad_v2": "upstream's scalars (alpha, scale, inputScale, isResult) stand between gradOutput and "
                   "selfOrResult; opgen puts every scalar after the tensor inputs (the same parameters and types)",
}


def _api_params(text: str) -> list[tuple[str, str]]:
    """`const aclTensor* x, bool f` -> [("aclTensor*", "x"), ("bool", "f")]; a tensor's const is dropped (upstream
    declares outputs `aclTensor*`, opgen `const aclTensor*`: the same API to a caller)."""
    found = []
    for part in (p.strip() for p in text.split(",")):
        m = re.fullmatch(r"(.*?[\s*])(\w+)", part)
        assert m is not None, part
        found.append((re.sub(r"\s+", "", m.group(1)).replace("constaclTensor", "aclTensor").replace("const", "const "),
                      m.group(2)))
    return found


@pytest.mark.parametrize("name", TRAINING)
def test_aclnn_signature_equals_upstreams_header(name: str, cann_src: Path) -> None:
    """The parameters (names, types, order) of aclnn<Api>GetWorkspaceSize, where the op's upstream folder ships
    the API's header: the scalars, flags (selfIsResult) and their places included."""
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    if spec.aclnn is None:
        pytest.skip("no aclnn API")
    plan = build_plan(spec, f"{name}.yaml").aclnn
    assert plan is not None
    header = cann_src / "ops-nn" / spec.category / spec.snake_name / "op_api" / f"{plan.file_stem}.h"
    if not header.is_file():
        pytest.skip(f"upstream has no {header.relative_to(cann_src)}")
    theirs = re.search(rf"\b{plan.function}GetWorkspaceSize\s*\(([^)]*)\)", header.read_text(encoding="utf-8"))
    assert theirs is not None, header
    mine = _api_params(f"{plan.params_text}, uint64_t* workspaceSize, aclOpExecutor** executor")
    assert (mine != _api_params(theirs.group(1))) == (name in ACLNN_DIFFERENCES), (mine, theirs.group(1))
