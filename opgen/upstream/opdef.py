"""The OpDef of an `op_host/<op>_def.cpp`: tensors with their columns and flags, attrs, each OpAICoreConfig's
flag calls and own tensors, and which SoC AddConfig gives which config."""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from ..errors import OpgenError
from .cpp import Call, chain, descendants, enumerators, literal, parse, text, value, written
from .models import AICoreConfig, DefAttr, DefTensor, OpDef

_COLUMNS = {"DataType": "data_type", "Format": "format", "UnknownShapeFormat": "unknown_shape_format"}
_ATTR_TYPES = frozenset({"Bool", "Float", "Int", "String", "ListBool", "ListFloat", "ListInt", "ListListInt",
                         "ListString"})


@dataclass
class _Config:
    """An OpAICoreConfig variable while the constructor is read."""

    initializer: str | None = None
    flags: dict[str, str] = field(default_factory=dict)
    extend: dict[str, str] = field(default_factory=dict)
    tensors: list[DefTensor] = field(default_factory=list)


def read_def(source: bytes, where: str) -> OpDef | None:
    """The OpDef a def file registers (None when it has none): statements are read in order, so a config is
    taken as it stands at its AddConfig."""
    root = parse(source)
    lists = _vector_constants(root)
    op_type = _op_type(root)
    if op_type is None:
        return None
    tensors: list[DefTensor] = []
    attrs: list[DefAttr] = []
    configs: dict[str, _Config] = {}
    socs: dict[str, AICoreConfig | None] = {}
    other: list[str] = []
    for node in descendants(root, "call_expression", "declaration"):
        if node.type == "declaration":
            declared = _config_declaration(node)
            if declared:
                configs[declared[0]] = _Config(initializer=declared[1])
            continue
        root_text, calls = chain(node)
        if root_text in configs and calls:
            _config_call(configs[root_text], calls, lists, where)
        elif root_text == "this" and calls:
            head = calls[0].name
            if head in ("Input", "Output"):
                tensors.append(_tensor(calls, lists, where))
            elif head == "Attr":
                attrs.append(_attr(calls))
            elif head == "AICore" and len(calls) > 1 and all(c.name == "AddConfig" for c in calls[1:]):
                for add in calls[1:]:  # `this->AICore().AddConfig("a").AddConfig("b")` adds both
                    soc, config = _add_config(add, configs, where)
                    socs[soc] = config
            else:
                other.append(written(node))
    return OpDef(op_type=op_type, tensors=tuple(tensors), attrs=tuple(attrs), socs=socs, other_calls=tuple(other))


def _op_type(root: Node) -> str | None:
    """The op type: OP_ADD's argument, else the class deriving from OpDef."""
    for _, calls in (chain(n) for n in descendants(root, "call_expression")):
        if len(calls) == 1 and calls[0].name == "OP_ADD" and calls[0].args:
            return written(calls[0].args[0])
    for node in descendants(root, "class_specifier"):
        clause = next((c for c in node.children if c.type == "base_class_clause"), None)
        name = node.child_by_field_name("name")
        if clause is not None and name is not None and "OpDef" in text(clause):
            return text(name)
    return None


def _vector_constants(root: Node) -> dict[str, tuple[str, ...]]:
    """`std::vector<ge::DataType> name = {...}` (or Format) declarations, by name, for columns that use them."""
    found: dict[str, tuple[str, ...]] = {}
    for node in descendants(root, "init_declarator", "field_declaration"):
        name = node.child_by_field_name("declarator")
        initial = node.child_by_field_name("value" if node.type == "init_declarator" else "default_value")
        if name is not None and initial is not None and initial.type == "initializer_list":
            found[text(name)] = enumerators(initial)
    return found


def _config_declaration(node: Node) -> tuple[str, str | None] | None:
    """`OpAICoreConfig name;` -> (name, None); `OpAICoreConfig name = Make();` -> (name, "Make()")."""
    kind = node.child_by_field_name("type")
    declarator = node.child_by_field_name("declarator")
    if kind is None or text(kind) != "OpAICoreConfig" or declarator is None:
        return None
    if declarator.type == "init_declarator":
        name, initial = declarator.child_by_field_name("declarator"), declarator.child_by_field_name("value")
        return text(name) if name else "", written(initial) if initial else None
    return text(declarator), None


def _column(call: Call, lists: dict[str, tuple[str, ...]], where: str) -> tuple[str, ...]:
    if len(call.args) != 1:
        raise OpgenError(f".{call.name}(...) takes one list here", where=where)
    arg = call.args[0]
    if arg.type == "identifier":  # a list declared in the file; one built otherwise is kept as its name
        return lists.get(text(arg), (text(arg),))
    return enumerators(arg)


def _tensor(calls: tuple[Call, ...], lists: dict[str, tuple[str, ...]], where: str) -> DefTensor:
    head = calls[0]
    columns: dict[str, tuple[str, ...] | None] = dict.fromkeys(_COLUMNS.values())
    param_type: str | None = None
    flags: dict[str, str] = {}
    for call in calls[1:]:
        if call.name in _COLUMNS:
            columns[_COLUMNS[call.name]] = _column(call, lists, where)
        elif call.name == "ParamType":
            param_type = call.args_written
        else:
            flags[call.name] = call.args_written
    return DefTensor(direction=head.name, name=head.name_arg, param_type=param_type, flags=flags, **columns)


def _attr(calls: tuple[Call, ...]) -> DefAttr:
    attr_type = kind = default = None
    flags: dict[str, str] = {}
    for call in calls[1:]:
        if call.name == "AttrType":
            attr_type = call.args_written
        elif call.name in _ATTR_TYPES:
            kind, default = call.name, ", ".join(literal(a) for a in call.args) or None
        else:
            flags[call.name] = call.args_written
    return DefAttr(name=calls[0].name_arg, attr_type=attr_type, type=kind, default=default, flags=flags)


def _config_call(config: _Config, calls: tuple[Call, ...], lists: dict[str, tuple[str, ...]], where: str) -> None:
    if calls[0].name in ("Input", "Output"):
        config.tensors.append(_tensor(calls, lists, where))
        return
    for call in calls:
        if call.name == "ExtendCfgInfo" and len(call.args) == 2:
            config.extend[value(call.args[0])] = value(call.args[1])
        else:
            config.flags[call.name] = call.args_written


def _add_config(call: Call, configs: dict[str, _Config], where: str) -> tuple[str, AICoreConfig | None]:
    if not call.args:
        raise OpgenError("AddConfig() names no SoC", where=where)
    soc = value(call.args[0])
    if len(call.args) == 1:
        return soc, None
    variable = text(call.args[1])
    if variable not in configs:
        raise OpgenError(f'AddConfig("{soc}", {variable}): no `OpAICoreConfig {variable};` before it', where=where)
    config = configs[variable]
    return soc, AICoreConfig(variable=variable, initializer=config.initializer, flags=dict(config.flags),
                             extend_cfg_info=dict(config.extend),
                             tensors=tuple(config.tensors))
