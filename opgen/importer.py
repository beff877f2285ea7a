"""`opgen import`: a spec written from what an existing ops-nn op dir registers (opgen.upstream's parser, the one
the upstream comparison uses), so an op upstream already has starts from its own names, dtypes and SoCs.

Only registered facts are imported; the math is not: the recipe and the reference are placeholders that fail
`opgen check` until written.
"""

from __future__ import annotations

import ast
import io
import operator
import re
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from .errors import OpgenError
from .spec.dtypes import PROTO_DTYPES
from .upstream import OpFacts, parse_op_dir
from .upstream.models import AICoreConfig, DefTensor, ProtoTensor, ProtoType

_BY_GE = {d.ge: d.name for d in PROTO_DTYPES.values()}
_ATTR_TYPES = {"Float": "float", "Int": "int", "Bool": "bool", "String": "string"}
_FLAGS = {"DynamicCompileStaticFlag": "dynamic_compile_static", "DynamicFormatFlag": "dynamic_format",
          "DynamicRankSupportFlag": "dynamic_rank_support", "DynamicShapeSupportFlag": "dynamic_shape_support",
          "NeedCheckSupportFlag": "need_check_support", "PrecisionReduceFlag": "precision_reduce"}
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
PLACEHOLDER = "imported: write the op's math"


def import_spec(op_dir: Path) -> str:
    """The spec YAML of an ops-nn op dir (`<category>/<op>` or `experimental/<category>/<op>`)."""
    if not op_dir.is_dir():
        raise OpgenError("not a directory; pass an ops-nn op dir such as activation/relu_grad_v2", where=str(op_dir))
    facts = parse_op_dir(op_dir)
    if facts.definition is None:
        raise OpgenError("no op_host/*_def.cpp with an OpDef; pass an ops-nn op dir", where=str(op_dir))
    data = spec_data(facts, op_dir.resolve())
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    return buffer.getvalue()


def spec_data(facts: OpFacts, op_dir: Path) -> CommentedMap:
    """The spec as ruamel data: every registered fact, placeholders for the math."""
    definition = facts.definition
    assert definition is not None
    experimental = op_dir.parent.parent.name == "experimental"
    columns = _columns(definition.tensors, definition.socs)
    data = CommentedMap(op_type=definition.op_type)
    data["category"] = op_dir.parent.name
    if experimental:
        data["experimental"] = True
    if _snake(definition.op_type) != op_dir.name:
        data["name"] = op_dir.name
    data["brief"] = f"{definition.op_type} ({PLACEHOLDER} in docs)."
    proto = {t.name: t for t in facts.proto.tensors} if facts.proto else {}
    for direction, key in (("Input", "inputs"), ("Output", "outputs")):
        data[key] = [_tensor(t, columns[t.name], _proto_type(facts, proto.get(t.name)))
                     for t in definition.tensors if t.direction == direction]
    attrs = [_attr(a.name, a.type, a.default) for a in definition.attrs]
    if facts.proto:  # an attr only the proto registers: opgen registers every attr in both
        known = {a.name for a in definition.attrs}
        attrs += [_attr(a.name, a.type, a.default) for a in facts.proto.attrs if a.name not in known]
    if attrs:
        data["attrs"] = attrs
    data["platforms"] = [_platform(soc, config, definition.tensors, columns)
                         for soc, config in definition.socs.items()]
    data["infershape"] = {"rule": "elementwise"}
    data["compute"] = _placeholder_recipe(definition.tensors)
    api = _aclnn_api(facts)
    if api:
        data["aclnn"] = api
    inputs = [t.name for t in definition.tensors if t.direction == "Input"]
    reference = CommentedMap([("forward", None), ("wrt", inputs[-1]), ("grad", inputs[0])])
    reference.yaml_add_eol_comment(f"{PLACEHOLDER}: the forward function; opgen check fails until you do", "forward")
    dtypes = sorted({d for c in columns.values() for d in c})
    data["golden"] = {"reference": reference, "tolerances": {d: {"rtol": 1.0e-3, "atol": 1.0e-3} for d in dtypes}}
    data["tests"] = {"shapes": [[1024]]}
    data["docs"] = {"description": PLACEHOLDER, "formula": PLACEHOLDER,
                    "products": [{"name": r.product, "supported": r.supported}
                                 for r in (facts.docs[0].rows if facts.docs else ())]}
    return data


def _columns(tensors: tuple[DefTensor, ...], socs: dict[str, AICoreConfig | None]) -> dict[str, list[str]]:
    """Each tensor's dtype columns: the def's own, then every SoC config's columns the def lacks."""
    columns = {t.name: [_dtype(d) for d in t.data_type or ()] for t in tensors}
    for config in socs.values():
        for row in _rows(config):
            if row not in _all_rows(columns):
                for name, dtype in row:
                    columns[name].append(dtype)
    return columns


def _rows(config: AICoreConfig | None) -> list[tuple[tuple[str, str], ...]]:
    if config is None or not config.tensors:
        return []
    width = len(config.tensors[0].data_type or ())
    return [tuple((t.name, _dtype((t.data_type or ())[k])) for t in config.tensors) for k in range(width)]


def _all_rows(columns: dict[str, list[str]]) -> list[tuple[tuple[str, str], ...]]:
    width = len(next(iter(columns.values())))
    return [tuple((name, dtypes[k]) for name, dtypes in columns.items()) for k in range(width)]


def _proto_type(facts: OpFacts, tensor: ProtoTensor | None) -> ProtoType | None:
    """A tensor's REG_OP type; one written `"T"` is its `.DATATYPE(T, ...)`."""
    if tensor is None or facts.proto is None:
        return None
    symbol = tensor.type.symbol
    return facts.proto.datatypes.get(symbol, tensor.type) if symbol else tensor.type


def _tensor(tensor: DefTensor, dtypes: list[str], proto: ProtoType | None) -> CommentedMap:
    out = CommentedMap(name=tensor.name)
    out["dtypes"] = CommentedSeq(dtypes)
    out["dtypes"].fa.set_flow_style()
    formats = sorted(set(f.removeprefix("FORMAT_") for f in tensor.format or ("FORMAT_ND",)))
    if formats != ["ND"]:
        out["formats"] = formats[0] if len(formats) == 1 else formats
    if tensor.param_type == "OPTIONAL":
        out["param_type"] = "optional"
    if proto is not None:
        single_class = proto.form == "class" and len(proto.classes) == 1
        written = proto.listed if proto.form == "list" else proto.dtypes  # a mixed form: its expanded set
        declared = proto.classes[0] if single_class else [_dtype(d) for d in written]
        if isinstance(declared, str) or set(declared) != set(dtypes):
            out["proto_dtypes"] = declared
    return out


def _attr(name: str, written_type: str | None, default: str | None) -> CommentedMap:
    kind = _ATTR_TYPES.get(written_type or "", (written_type or "").lower())
    out = CommentedMap(name=name, type=kind)
    if default is not None:
        out["default"] = _value(kind, default)
    if kind == "string":  # the accepted values are in the tiling's code, not registered
        out["values"] = CommentedSeq([out.get("default", "")])
        out["values"].fa.set_flow_style()
        out.yaml_add_eol_comment("imported: list every value the op accepts", "values")
    return out


def _value(kind: str, written: str) -> bool | int | float | str:
    text = written.strip()
    if kind == "bool":
        return text == "true"
    if kind == "string":
        return text.strip('"')
    number = _arithmetic(re.sub(r"(?<=\d)[fFlLuU]+\b", "", text))
    if number is None:
        return text  # not plain arithmetic: kept as written, and the spec's loader names it
    return int(number) if kind == "int" else float(number)


def _arithmetic(text: str) -> float | None:
    """A default written as number arithmetic (`1.0 / 6.0`), evaluated node by node; None for anything else."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return -value(node.operand) if isinstance(node.op, ast.USub) else value(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
            return float(_OPERATORS[type(node.op)](value(node.left), value(node.right)))
        raise ValueError(text)

    try:
        return value(tree)
    except (ValueError, ZeroDivisionError):
        return None


def _platform(soc: str, config: AICoreConfig | None, tensors: tuple[DefTensor, ...],
              columns: dict[str, list[str]]) -> CommentedMap:
    out = CommentedMap(soc=soc, kernel="arch35_dag" if soc in ("ascend950", "ascend350") else "classic")
    if config is not None:
        out["aicore"] = {field: config.flags[flag] == "true" for flag, field in _FLAGS.items() if flag in config.flags}
    rows = _rows(config)
    if rows:
        every = _all_rows(columns)
        picked = CommentedSeq(every.index(row) for row in rows)
        picked.fa.set_flow_style()
        out["combinations"] = picked
    return out


def _placeholder_recipe(tensors: tuple[DefTensor, ...]) -> CommentedMap:
    first = next(t.name for t in tensors if t.direction == "Input")
    outputs = [t.name for t in tensors if t.direction == "Output"]
    steps = CommentedSeq(f"{name} = muls({first}, 0.0)" for name in outputs)
    steps.yaml_set_start_comment(f"{PLACEHOLDER}; these steps only shape the tree", indent=4)
    return CommentedMap(dtype="float32", variants={"default": steps})


def _aclnn_api(facts: OpFacts) -> CommentedMap | None:
    """The aclnn API and its tensor parameters, matched to the op's tensors in order."""
    definition = facts.definition
    assert definition is not None
    for header in facts.aclnn:
        for function in header.functions:
            if not function.name.endswith("GetWorkspaceSize"):
                continue
            op_ins = [t.name for t in definition.tensors if t.direction == "Input"]
            op_outs = [t.name for t in definition.tensors if t.direction == "Output"]
            tensors = [p.name for p in function.params if p.type.replace(" ", "") in ("constaclTensor*", "aclTensor*")]
            ins, outs = tensors[: len(op_ins)], tensors[len(op_ins):]  # in order, as the API takes them
            api = CommentedMap(api=function.name.removeprefix("aclnn").removesuffix("GetWorkspaceSize"))
            api["inputs"] = [{"name": n, "tensor": t} for n, t in zip(ins, op_ins, strict=False)]
            api["outputs"] = [{"name": n, "tensor": t} for n, t in zip(outs, op_outs, strict=False)]
            return api
    return None


def _dtype(ge: str) -> str:
    return _BY_GE.get(ge, ge.removeprefix("DT_").lower())


def _snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).lower()
