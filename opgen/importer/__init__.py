"""`opgen import`: a spec written from what an existing ops-nn op dir registers (opgen.upstream's parser, the one
the upstream comparison uses), so an op upstream already has starts from its own names, dtypes and SoCs.

Only registered facts are imported; the math is not: the recipe and the reference are placeholders that fail
`opgen check` until written.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import get_args

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from ..errors import OpgenError
from ..files import read_regular
from ..spec.dtypes import PROTO_DTYPES
from ..spec.models import AICoreFlags, DefCall, SocName
from ..upstream import OpFacts, parse_op_dir
from ..upstream.infershape import shape_rule
from ..upstream.models import AICoreConfig, DefTensor, ProtoAttr, ProtoTensor, ProtoType
from ..upstream.opdir import is_def_file
from .aclnn import aclnn_api
from .axis import split_axis, split_infershape, split_placeholder
from .values import ValueProblem, attr_value
from .yaml_text import flow, snake, where_registered

_BY_GE = {d.ge: d.name for d in PROTO_DTYPES.values()}
_ATTR_TYPES = {"Float": "float", "Int": "int", "Bool": "bool", "String": "string"}
_FLAGS = {"DynamicCompileStaticFlag": "dynamic_compile_static", "DynamicFormatFlag": "dynamic_format",
          "DynamicRankSupportFlag": "dynamic_rank_support", "DynamicShapeSupportFlag": "dynamic_shape_support",
          "NeedCheckSupportFlag": "need_check_support", "PrecisionReduceFlag": "precision_reduce"}
PLACEHOLDER = "imported: write the op's math"
_ARCH35 = ("ascend950", "ascend350")
_GRAD_NAME = re.compile(r"grad|^dy$|^d[a-z]$", re.IGNORECASE)
_TOLERANCES = {"float32": (("rtol", 1.0e-4), ("atol", 1.0e-4)), "float16": (("rtol", 1.0e-3), ("atol", 1.0e-3)),
               "bfloat16": (("rtol", 8.0e-3), ("atol", 4.0e-3))}
_TOLERANCE_WHY = {"float32": "imported: float32's margin for approximated functions",
                  "float16": "imported: one float16 ulp is 2^-10 relative",
                  "bfloat16": "imported: one bfloat16 ulp is 2^-7 relative"}


def import_spec(op_dir: Path) -> str:
    """The spec YAML of an ops-nn op dir (`<category>/<op>` or `experimental/<category>/<op>`)."""
    if not op_dir.is_dir():
        raise OpgenError("not a directory; pass an ops-nn op dir such as activation/relu_grad_v2", where=str(op_dir))
    facts = parse_op_dir(op_dir)
    if facts.definition is None:
        raise OpgenError("no op_host/*_def.cpp with an OpDef; pass an ops-nn op dir", where=str(op_dir))
    _check_tensors(facts, op_dir.resolve())
    data = spec_data(facts, op_dir.resolve())
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.representer.add_representer(type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null"))
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
    if snake(definition.op_type) != op_dir.name:
        data["name"] = op_dir.name
    modules = next((c for f in facts.cmake for c in f.calls
                    if c.command in ("add_modules_sources", "add_all_modules_sources")), None)
    if modules is not None and modules.args.get("DISABLE_IN_OPP") == ("TRUE",):
        data["disable_in_opp"] = True
    if modules is not None and modules.args.get("ACLNNTYPE", ("aclnn_exclude",)) != ("aclnn_exclude",):
        data["aclnn_type"] = modules.args["ACLNNTYPE"][0]
    data["brief"] = f"{definition.op_type} ({PLACEHOLDER} in docs)."
    proto = _proto_tensors(facts)
    symbols = {t.type.symbol for t in proto.values()}
    if len(symbols) == 1 and None not in symbols:
        data["proto_symbol"] = symbols.pop()
    for direction, key in (("Input", "inputs"), ("Output", "outputs")):
        data[key] = [_tensor(t, columns[t.name], _proto_type(facts, proto.get(t.name)), proto.get(t.name))
                     for t in definition.tensors if t.direction == direction]
    proto_attrs = {a.name: a for a in facts.proto.attrs} if facts.proto else {}
    def_files = [f for f in facts.files if is_def_file(f)]
    attrs = [_located(op_dir, def_files, f'"{a.name}"', partial(_attr, a.name, a.type, a.default, a.attr_type,
                                                                 proto_attrs.get(a.name)), f"attr {a.name!r}")
             for a in definition.attrs]
    known = {a.name for a in definition.attrs}
    protos = [f for f in facts.files if f.startswith("op_graph/")]
    attrs += [_proto_only(_located(op_dir, protos, a.name, partial(_attr, a.name, a.type, a.default, "OPTIONAL", None),
                                   f"attr {a.name!r}"))
              for a in proto_attrs.values() if a.name not in known]
    if attrs:
        data["attrs"] = attrs
    axis = split_axis(facts, lambda name: where_registered(op_dir, def_files, f'"{name}"'))
    dag = not any(re.fullmatch(r"op_kernel/arch35/\w+_tiling_key\.h", f) for f in facts.files)
    socs = {soc: config for soc, config in definition.socs.items()
            if soc in get_args(SocName) and (soc in _ARCH35 or not axis)}
    data["platforms"] = _platforms(socs, columns, "arch35_split" if axis else
                                   "arch35_dag" if dag else "classic_arch35", op_dir.name)
    unknown = [soc for soc in definition.socs if soc not in socs]
    if unknown:
        why = "with classic kernels, which opgen does not write for an op split along an axis yet" if axis else \
            "which opgen cannot generate"
        data.yaml_set_comment_before_after_key("platforms", before=f"imported: ops-nn also registers "
                                               f"{', '.join(unknown)}, {why}; list def.socs under "
                                               "upstream_differences with the reason")
    inputs = [t.name for t in definition.tensors if t.direction == "Input"]
    data["infershape"] = _infershape(facts, op_dir, inputs)
    if axis:
        data["infershape"] = split_infershape(data["infershape"], inputs)
    if any(r.call("InferDataType") for r in facts.registrations):
        data["infershape"]["datatype_from"] = next(t.name for t in definition.tensors if t.direction == "Input")
        data["infershape"].yaml_add_eol_comment("imported: upstream registers InferDataType; say which input's "
                                                "dtype the outputs take", "datatype_from")
    choice = next((a for a in attrs if a["type"] == "string"), None)
    results = [t.name for t in definition.tensors if t.direction == "Output"]
    data["compute"] = split_placeholder(data["infershape"]["input"], results, axis.name, PLACEHOLDER) if axis else \
        _placeholder_recipe(definition.tensors, list(choice["values"]) if choice else ["default"])
    api = aclnn_api(facts, op_dir)
    l0_stems = [m.group(1) for f in facts.files if (m := re.fullmatch(r"(?:op_host/)?op_api/(?!aclnn_)(\w+)\.cpp", f))]
    if api:
        data["aclnn"] = api
    elif l0_stems:
        data["l0_op"] = True  # an l0 op for an aclnn API declared elsewhere
    if len(l0_stems) == 1 and l0_stems[0] != op_dir.name:
        data["l0_file"] = l0_stems[0]
    grad = next((n for n in inputs if _GRAD_NAME.search(n)), inputs[0])
    wrt = next((n for n in inputs if n != grad), grad)
    reference = CommentedMap([("forward", None), ("wrt", wrt), ("grad", grad)])
    reference.yaml_add_eol_comment(f"{PLACEHOLDER}: the forward function; opgen check fails until you do", "forward")
    reference.yaml_add_eol_comment("imported: the input named as a gradient; check both", "grad")
    outputs = {d for t in definition.tensors if t.direction == "Output" for d in columns[t.name]}
    data["golden"] = {"reference": reference, "tolerances": _tolerances(sorted(outputs))}
    data["tests"] = {"shapes": [[1024]]}
    data["docs"] = {"description": PLACEHOLDER, "formula": PLACEHOLDER,
                    "products": [{"name": r.product, "supported": r.supported}
                                 for r in (facts.docs[0].rows if facts.docs else ())]}
    return data


def _tolerances(dtypes: list[str]) -> CommentedMap:
    """Each output dtype's tolerance for a float32-computed recipe: one ulp of the output type (the final rounding)
    and a float32 margin for function approximations; integer outputs exact, in their own type."""
    found = CommentedMap()
    for dtype in dtypes:
        found[dtype] = CommentedMap(_TOLERANCES.get(dtype, (("rtol", 0.0), ("atol", 0.0))))
        found[dtype].fa.set_flow_style()
    for dtype in dtypes:
        found.yaml_add_eol_comment(_TOLERANCE_WHY.get(dtype, "imported: an integer output compared exactly"), dtype,
                                   column=44)
    return found


def _infershape(facts: OpFacts, op_dir: Path, inputs: list[str]) -> CommentedMap:
    """The rule upstream's infershape follows (upstream/infershape.py); `elementwise` with a comment saying what
    to check where upstream computes the shape in its own code."""
    found = shape_rule(facts, lambda rel: read_regular(op_dir / rel))
    if not found.rule:
        data = CommentedMap(rule="elementwise")
        data.yaml_add_eol_comment(f"imported: {found.why}; say the rule it follows", "rule")
        return data
    data = CommentedMap(rule=found.rule)
    if found.input is not None and found.input < len(inputs):
        data["input"] = inputs[found.input]
    return data


def _check_tensors(facts: OpFacts, op_dir: Path) -> None:
    """An op opgen generates takes at least one input and gives at least one output."""
    definition = facts.definition
    assert definition is not None
    for direction in ("Input", "Output"):
        if not any(t.direction == direction for t in definition.tensors):
            raise OpgenError(f"the OpDef {definition.op_type} registers no {direction} (`this->{direction}(\"...\")`); "
                             f"opgen generates ops with at least one input and one output",
                             where=where_registered(op_dir, [f for f in facts.files if is_def_file(f)], "OpDef"))


def _located(op_dir: Path, files: list[str], needle: str, make: Callable[[], CommentedMap], what: str) -> CommentedMap:
    """`make()`, its ValueProblem raised as an OpgenError at the file:line where `needle` is registered."""
    try:
        return make()
    except ValueProblem as problem:
        raise OpgenError(f"{what}: {problem}", where=where_registered(op_dir, files, needle)) from None


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


def _proto_tensors(facts: OpFacts) -> dict[str, ProtoTensor]:
    """Each def tensor's REG_OP tensor: the one of its name, else the one at its place among the inputs or the
    outputs (upstream GLUGrad's def says grad_out, self, out where its proto says y_grad, x, x_grad)."""
    if facts.proto is None or facts.definition is None:
        return {}
    by_name = {t.name: t for t in facts.proto.tensors}
    found = {}
    for direction in ("Input", "Output"):
        placed = [t for t in facts.proto.tensors if t.kind.endswith(direction.upper())]
        tensors = [t for t in facts.definition.tensors if t.direction == direction]
        for k, tensor in enumerate(tensors):
            match = by_name.get(tensor.name) or (placed[k] if len(placed) == len(tensors) else None)
            if match is not None:
                found[tensor.name] = match
    return found


def _proto_type(facts: OpFacts, tensor: ProtoTensor | None) -> ProtoType | None:
    """A tensor's REG_OP type; one written `"T"` is its `.DATATYPE(T, ...)`."""
    if tensor is None or facts.proto is None:
        return None
    symbol = tensor.type.symbol
    return facts.proto.datatypes.get(symbol, tensor.type) if symbol else tensor.type


def _tensor(tensor: DefTensor, dtypes: list[str], proto: ProtoType | None, ir: ProtoTensor | None) -> CommentedMap:
    out = CommentedMap(name=tensor.name)
    if ir is not None and ir.name != tensor.name:
        out["proto_name"] = ir.name
    out["dtypes"] = CommentedSeq(dtypes)
    out["dtypes"].fa.set_flow_style()
    formats = sorted(set(f.removeprefix("FORMAT_") for f in tensor.format or ("FORMAT_ND",)))
    if formats != ["ND"]:
        out["formats"] = formats[0] if len(formats) == 1 else formats
    if tensor.param_type == "OPTIONAL":
        out["param_type"] = "optional"
    calls = [c for c in get_args(DefCall) if c in tensor.flags]
    if calls:
        out["def_calls"] = CommentedSeq(calls)
        out["def_calls"].fa.set_flow_style()
    if tensor.unknown_shape_format is None:
        out["unknown_shape_format"] = False
    if proto is not None:
        single_class = proto.form == "class" and len(proto.classes) == 1
        declared = proto.classes[0] if single_class else [*proto.classes, *(_dtype(d) for d in proto.listed)]
        if isinstance(declared, str) or set(declared) != set(dtypes):
            out["proto_dtypes"] = declared
        if any(ge not in proto.dtypes for ge in tensor.data_type or ()):
            out["proto_narrower"] = True
    return out


def _attr(name: str, written_type: str | None, default: str | None, attr_type: str | None,
          proto: ProtoAttr | None) -> CommentedMap:
    kind = _ATTR_TYPES.get(written_type or "", (written_type or "").lower())
    out = CommentedMap(name=name, type=kind)
    if default is not None:
        out["default"] = attr_value(kind, default)
    if proto is not None and proto.default is not None and default is not None \
            and attr_value(kind, proto.default) != out["default"]:
        out["proto_default"] = attr_value(kind, proto.default)
    if attr_type != "OPTIONAL":
        out["attr_type"] = attr_type.lower() if attr_type else None
    if kind == "string":  # the accepted values are in the tiling's code, not registered
        out["values"] = CommentedSeq([out.get("default", "")])
        out["values"].fa.set_flow_style()
        out.yaml_add_eol_comment("imported: list every value the op accepts", "values")
    return out


def _proto_only(attr: CommentedMap) -> CommentedMap:
    attr["proto_only"] = True
    return attr


def _platforms(socs: dict[str, AICoreConfig | None], columns: dict[str, list[str]], arch35_kernel: str,
               name: str) -> list[CommentedMap]:
    """One platform per AddConfig of the SoCs given: arch35 SoCs take `arch35_kernel` (classic_arch35 where
    upstream has an arch35 `_tiling_key.h`, a TPipe kernel; arch35_split for a split op; else the DAG one); classic
    families get tiling keys in order (upstream's own are in its tiling code)."""
    out = []
    keys = iter(range(len(socs)))
    for soc, config in socs.items():
        arch35 = soc in _ARCH35
        platform = CommentedMap(soc=soc, kernel=arch35_kernel if arch35 else "classic")
        if config is not None:
            called = {field: config.flags[flag] == "true" if flag in config.flags else None
                      for flag, field in _FLAGS.items()}
            defaults = AICoreFlags().model_dump()
            platform["aicore"] = CommentedMap((field, value) for field, value in called.items()
                                              if value != defaults[field])
            platform["aicore"].fa.set_flow_style()
            op_file = config.extend_cfg_info.get("opFile.value")
            if op_file is not None and op_file != f"{name}_apt":
                platform["op_file"] = op_file
        if platform["kernel"] not in ("arch35_dag", "arch35_split"):
            platform["tiling_key"] = next(keys)
            platform.yaml_add_eol_comment("imported: numbered in order; use upstream's key", "tiling_key")
        rows = _rows(config)
        if rows:
            every = _all_rows(columns)
            platform["combinations"] = flow([every.index(row) for row in rows])
        out.append(platform)
    return out


def _placeholder_recipe(tensors: tuple[DefTensor, ...], variants: list[str]) -> CommentedMap:
    first = next(t.name for t in tensors if t.direction == "Input")
    outputs = [t.name for t in tensors if t.direction == "Output"]
    steps = CommentedSeq(f"{name} = muls({first}, 0.0)" for name in outputs)
    steps.yaml_set_start_comment(f"{PLACEHOLDER}; these steps only shape the tree", indent=4)
    return CommentedMap(dtype="float32", variants={variant: steps for variant in variants})


def _dtype(ge: str) -> str:
    return _BY_GE.get(ge, ge.removeprefix("DT_").lower())
