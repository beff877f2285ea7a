"""REG_OP registrations of an `op_graph/<op>_proto.h`: tensors in order with kind, name and type (as written and
expanded), attrs with kind, type and default, and `.DATATYPE` symbols."""

from __future__ import annotations

from tree_sitter import Node

from ..errors import OpgenError
from ..spec.dtypes import PROTO_TYPE_CLASSES
from .cpp import Call, descendants, literal, parse, statement_chains, string_value, text, written
from .models import Proto, ProtoAttr, ProtoTensor, ProtoType

_ATTR_KINDS = ("ATTR", "REQUIRED_ATTR")
_SKIPPED = ("REG_OP", "OP_END_FACTORY_REG")


def read_protos(source: bytes, where: str) -> tuple[Proto, ...]:
    """Every REG_OP of a proto header, in source order."""
    return tuple(_proto(calls, where) for _, calls in statement_chains(parse(source))
                 if calls and calls[0].name == "REG_OP")


def _proto(calls: tuple[Call, ...], where: str) -> Proto:
    op_type = written(calls[0].args[0]) if calls[0].args else ""
    datatypes = {written(c.args[0]): proto_type(c.args[1], where) for c in calls
                 if c.name == "DATATYPE" and len(c.args) == 2}
    tensors, attrs = [], []
    for call in calls:
        if call.name.endswith(("INPUT", "OUTPUT")) and len(call.args) == 2:
            tensors.append(ProtoTensor(kind=call.name, name=written(call.args[0]),
                                       type=_tensor_type(call.args[1], datatypes, where)))
        elif call.name in _ATTR_KINDS and len(call.args) >= 2:
            default = literal(call.args[2]) if len(call.args) > 2 else None
            attrs.append(ProtoAttr(kind=call.name, name=written(call.args[0]), type=written(call.args[1]),
                                   default=default))
        elif call.name not in (*_SKIPPED, "DATATYPE"):
            raise OpgenError(f"REG_OP({op_type}) calls .{call.name}(...), which this reader does not know; "
                             "extend opgen/upstream/proto.py", where=where)
    return Proto(op_type=op_type, tensors=tuple(tensors), attrs=tuple(attrs), datatypes=datatypes)


def _tensor_type(node: Node, datatypes: dict[str, ProtoType], where: str) -> ProtoType:
    symbol = string_value(node)
    if symbol is None:
        return proto_type(node, where)
    if symbol not in datatypes:
        raise OpgenError(f'a tensor is typed "{symbol}" but no .DATATYPE({symbol}, ...) declares it', where=where)
    return datatypes[symbol].model_copy(update={"symbol": symbol, "written": written(node)})


def proto_type(node: Node, where: str) -> ProtoType:
    """`TensorType({DT_FLOAT, DT_BF16})`, `TensorType::RealNumberType()`, or a mix: the DT_* listed, the classes
    named, and the set they admit."""
    listed: list[str] = []
    classes: list[str] = []
    for part in descendants(node, "identifier", "qualified_identifier", "field_identifier"):
        name = written(part).removeprefix("ge::")
        if name.startswith("TensorType::") and name != "TensorType::":
            classes.append(name.removeprefix("TensorType::"))
        elif name in PROTO_TYPE_CLASSES:  # `TensorType(UnaryDataType)`, as SigmoidGrad's proto writes it
            classes.append(name)
        elif name.startswith("DT_"):
            listed.append(name)
    unknown = [c for c in classes if c not in PROTO_TYPE_CLASSES]
    if unknown:
        raise OpgenError(f"TensorType::{unknown[0]}() is not a type class this reader knows; add its dtypes to "
                         "PROTO_TYPE_CLASSES in opgen/spec/dtypes.py", where=where)
    if not listed and not classes:
        raise OpgenError(f"no DT_* or TensorType class in the tensor type {text(node)!r}", where=where)
    admitted = set(listed).union(*(PROTO_TYPE_CLASSES[c] for c in classes))
    return ProtoType(written=written(node), listed=tuple(listed), classes=tuple(classes),
                     dtypes=tuple(sorted(admitted)))
