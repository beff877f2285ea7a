"""The aclnn API an imported op dir declares, as the spec's `aclnn:` writes it."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml.comments import CommentedMap

from ..errors import OpgenError
from ..spec.models import camel_to_snake
from ..upstream import OpFacts
from ..upstream.models import AclnnFunction, AclnnParam
from .yaml_text import flow, snake, where_registered


def aclnn_api(facts: OpFacts, op_dir: Path) -> CommentedMap | None:
    """The aclnn API as its header declares it: tensors matched to the op's in order (the last ones are the
    outputs), scalars matched to attrs by name, the parameter order and the `const`s where they are not opgen's."""
    definition = facts.definition
    assert definition is not None
    functions = {f.name: f for header in facts.aclnn for f in header.functions}
    first = next((f for name, f in functions.items() if name.endswith("GetWorkspaceSize")), None)
    if first is None:
        return None
    params = [p for p in first.params if p.name not in ("workspaceSize", "executor")]
    tensors = [p for p in params if _bare(p.type) == "aclTensor*"]
    op_outs = [t.name for t in definition.tensors if t.direction == "Output"]
    headers = [h.file for h in facts.aclnn if first in h.functions]
    _check_api(first, tensors, len(op_outs), where_registered(op_dir, headers, first.name))
    ins, outs = tensors[: len(tensors) - len(op_outs)], tensors[len(tensors) - len(op_outs):]
    op_ins = [t for t in definition.tensors if t.direction == "Input"]
    required = [t.name for t in op_ins if t.param_type != "OPTIONAL"]
    taken = required + [t.name for t in op_ins if t.param_type == "OPTIONAL"]
    api = CommentedMap(api=first.name.removeprefix("aclnn").removesuffix("GetWorkspaceSize"))
    stem = next(Path(h.file).stem for h in facts.aclnn if first in h.functions)
    if stem != f"aclnn_{camel_to_snake(api['api'])}":
        api["file"] = stem
    api["inputs"] = [_param(p.name, taken[k] if k < len(taken) else taken[-1], k >= len(taken))
                     for k, p in enumerate(ins)]
    scalars = _scalars([p for p in params if p not in tensors], [a.name for a in definition.attrs])
    if scalars:
        api["scalars"] = scalars
    api["outputs"] = [_param(p.name, t) for p, t in zip(outs, op_outs, strict=True)]
    fed = CommentedMap((name, None if name not in required else ins[-1].name) for name in taken[len(ins):])
    for name in (n for n in fed if fed[n] is not None):
        fed.yaml_add_eol_comment(f"imported: the API does not take {name}; say which API input feeds it", name)
    if fed:
        api["unused_inputs"] = fed
    written = [p.name for p in params if p not in outs]
    if written != [p.name for p in ins] + [s["name"] for s in scalars]:
        api["order"] = flow(written)
    second = functions.get(first.name.removesuffix("GetWorkspaceSize"))
    if second is not None and any(p.type.replace(" ", "") == "constaclrtStream" for p in second.params):
        api["const_stream"] = True
    if outs and all(p.type.replace(" ", "").startswith("const") for p in outs):
        api["const_outputs"] = True
    return api


def _check_api(function: AclnnFunction, tensors: list[AclnnParam], outputs: int, where: str) -> None:
    """What the spec's `aclnn:` needs of the header: named parameters, no varargs, an aclTensor* for each output
    and at least one input."""
    for k, param in enumerate(function.params):
        if param.type == "...":
            raise OpgenError(f"{function.name} takes variable arguments (...); an aclnn API opgen wraps has a fixed "
                             "parameter list: import an op whose header declares one", where=where)
        if not param.name:
            raise OpgenError(f"{function.name}'s parameter {k + 1} ({param.type}) has no name; the spec names every "
                             "API parameter: name it in the header", where=where)
    if len(tensors) < outputs + 1:
        raise OpgenError(f"{function.name} takes {len(tensors)} aclTensor* parameter(s), but the op registers "
                         f"{outputs} output(s) and at least one input, each an aclTensor* of the API (outputs "
                         "last); import an op whose header takes them", where=where)


def _bare(c_type: str) -> str:
    return c_type.replace(" ", "").removeprefix("const")


def _param(name: str, tensor: str, unused: bool = False) -> CommentedMap:
    out = CommentedMap(name=name, tensor=tensor)
    if unused:
        out["unused"] = True
        out.yaml_add_eol_comment("imported: an API tensor beyond the op's inputs; say which it carries", "unused")
    out.fa.set_flow_style()
    return out


def _scalars(params: list[AclnnParam], attrs: list[str]) -> list[CommentedMap]:
    """Each non-tensor parameter as a scalar: the attr of its name (snake or camel, an `Optional` suffix dropped),
    else the next attr no parameter names, in order; a bool with neither is a flag a rule reads."""
    names = {p.name: p.name.removesuffix("Optional") for p in params}
    named = {p.name: next((a for a in attrs if a in (n, snake(n)) or a.replace("_", "") == n.lower()), None)
             for p in params for n in [names[p.name]]}
    spare = iter(a for a in attrs if a not in named.values())
    out = []
    for p in params:
        kind = "char*" if _bare(p.type) == "char*" else _bare(p.type).removesuffix("*")
        scalar = CommentedMap(name=p.name)
        attr = named[p.name] or (None if kind == "bool" else next(spare, None))
        if attr is not None:
            scalar["attr"] = attr
        if kind != "aclScalar":
            scalar["type"] = kind
        if names[p.name] != p.name and kind == "aclScalar":
            scalar["optional"] = True
        if attr is not None and named[p.name] is None:
            scalar.yaml_add_eol_comment("imported: matched to the attr by order; check it", "name")
        scalar.fa.set_flow_style()
        out.append(scalar)
    return out
