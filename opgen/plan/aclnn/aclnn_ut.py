"""The aclnn UT case matrix (`tests/ut/op_api/test_aclnn_<api>.cpp`), derived from the spec's aclnn section.

Each case is what `aclnn<Api>GetWorkspaceSize` must answer for one call, as the generated wrapper's checks
decide it: null tensors, empty tensors, dtypes outside the kernel's list (double, complex, an integer type),
promotion, broadcast, shape mismatch, rank above the limit, non-contiguous views, formats, scalars, the
last-dim rule, per-SoC dtypes. The expected status of every case follows from the same facts the wrapper's
checks are printed from, so a wrapper that stops checking something fails its case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...spec.models import OpSpec, camel_to_snake
from ..kernel.split import SplitKernel
from ..registry.attrs import attr_settings, c_literal
from ..registry.platforms import SocPlan
from ..registry.soc_columns import GatedSoc
from ..registry.tensors import DtypeCombination, TensorPlan
from .aclnn_attrs import AclnnAttrs, AclnnScalarPlan
from .aclnn_order import in_api_order

SUCCESS = "ACLNN_SUCCESS"
NULLPTR = "ACLNN_ERR_PARAM_NULLPTR"
INVALID = "ACLNN_ERR_PARAM_INVALID"
# (aclDataType, name) of dtypes no opgen kernel takes, always rejected; then candidates for "a real dtype the
# kernel lacks", the first one not supported is used.
FOREIGN_DTYPES = (("ACL_DOUBLE", "float64"), ("ACL_COMPLEX64", "complex64"), ("ACL_COMPLEX128", "complex128"),
                  ("ACL_DT_UNDEFINED", "undefined"))
OTHER_DTYPES = (("ACL_INT32", "int32"), ("ACL_INT64", "int64"), ("ACL_INT8", "int8"), ("ACL_UINT8", "uint8"),
                ("ACL_FLOAT16", "float16"), ("ACL_FLOAT", "float32"))
FORMATS = ("ACL_FORMAT_NCHW", "ACL_FORMAT_NHWC")
OUT_PARAMS = ("workspaceSize", "executor")  # GetWorkspaceSize's out-parameters after the API's own
UT_DEFAULT_SOC = "ascend910b"  # the SoC ops-nn's op_api UT stub reports unless a case sets one (opdev/platform.cpp)


@dataclass(frozen=True)
class UtParam:
    var: str  # the descriptor variable, e.g. selfDesc
    desc: str | None  # its TensorDesc / ScalarDesc initializer, or a string literal; None: the argument is `bare`
    bare: str = "(aclTensor*)nullptr"  # the argument without a descriptor: a null pointer or a literal
    chars: bool = False  # a char* argument: `desc` fills a char array (the API takes a non-const char*)

    @property
    def arg(self) -> str:
        return self.var if self.desc is not None else self.bare

    @property
    def declaration(self) -> str:
        return f"char {self.var}[] = {self.desc};" if self.chars else f"auto {self.var} = {self.desc};"


@dataclass(frozen=True)
class AclnnUtCase:
    name: str
    why: str  # one line: what the case proves
    soc_enum: str | None  # SocVersion the case runs under (SocVersionManager), None: the UT's default
    inputs: tuple[UtParam, ...]
    outputs: tuple[UtParam, ...]
    expect: str  # the aclnnStatus GetWorkspaceSize must return
    workspace_zero: bool = False  # an empty tensor: the wrapper returns workspace size 0
    null_out: str = ""  # "workspaceSize" or "executor": GetWorkspaceSize gets nullptr for that out-parameter

    @property
    def declared(self) -> tuple[UtParam, ...]:
        return tuple(p for p in self.inputs + self.outputs if p.desc is not None)

    @property
    def input_args(self) -> str:
        return ", ".join(p.arg for p in self.inputs)

    @property
    def output_args(self) -> str:
        return ", ".join(p.arg for p in self.outputs)


@dataclass(frozen=True)
class _Param:
    name: str
    tensor: TensorPlan
    unused: bool = False  # an API tensor only checked non-null: its dtype and shape are not the op's

    @property
    def var(self) -> str:
        return f"{self.name}Desc"

    @property
    def is_data(self) -> bool:
        return not self.tensor.is_mask and not self.unused


class _Matrix:
    """Builds the cases; every descriptor comes from `desc` so all cases spell tensors alike."""

    def __init__(self, spec: OpSpec, inputs: Sequence[_Param], outputs: Sequence[_Param],
                 combos: tuple[DtypeCombination, ...], attrs: AclnnAttrs, split: SplitKernel | None = None) -> None:
        assert spec.aclnn is not None
        self.spec, self.aclnn, self.attrs = spec, spec.aclnn, attrs
        self.inputs, self.outputs, self.combos = tuple(inputs), tuple(outputs), combos
        self.data_inputs = tuple(p for p in self.inputs if p.is_data)
        rule = spec.constraints.last_dim_multiple_of
        self.multiple = rule.multiple if rule else 1
        self.low, self.high = spec.tests.value_range
        self.cases: list[AclnnUtCase] = []
        self.split = split  # an op split along an axis: one shape given for all is the split input's

    def fit(self, shape: Sequence[int]) -> tuple[int, ...]:
        """`shape` with its last dim rounded up to the spec's multiple, and the length along a split axis (its
        default) even (empty and scalar shapes kept)."""
        if not shape or shape[-1] == 0:
            return tuple(shape)
        fitted = [*shape[:-1], -(-shape[-1] // self.multiple) * self.multiple]
        axis = self.split.axis_default if self.split else None
        if axis is not None and -len(fitted) <= axis < len(fitted) and fitted[axis] % 2:
            fitted[axis] += 1
        return tuple(fitted)

    def shape_for(self, p: _Param, shape: Sequence[int], axis: int | None) -> Sequence[int]:
        """One shape given for every tensor: a split op's half-shaped tensors take it halved along the axis the
        case passes (its default where it passes none, or none of the shape's dims: the case is refused for that)."""
        split = self.split
        if split is None or p.tensor in (split.split, split.joined) or not shape:
            return shape
        if axis is None or not -len(shape) <= axis < len(shape):
            axis = split.axis_default
        return split.input_shapes((p.tensor,), tuple(shape), axis)[0]

    @property
    def axis_param(self) -> str:
        """The scalar parameter holding a split op's axis."""
        assert self.split is not None
        return next(s.name for s in self.aclnn.scalars if s.attr == self.split.axis)

    def desc(self, p: _Param, shape: Sequence[int], acl: str, fmt: str = "ACL_FORMAT_ND",
             view: tuple[Sequence[int], Sequence[int]] | None = None) -> UtParam:
        dims = ", ".join(map(str, shape))
        layout = f", {{{', '.join(map(str, view[0]))}}}, 0, {{{', '.join(map(str, view[1]))}}}" if view else ""
        text = f"TensorDesc({{{dims}}}, {acl}, {fmt}{layout})"
        if p.tensor.role == "input" and p.is_data and acl not in {a for a, _ in FOREIGN_DTYPES}:
            text += f".ValueRange({self.low!r}, {self.high!r})"
        return UtParam(p.var, text)

    def add(self, name: str, why: str, expect: str, shapes: Mapping[str, Sequence[int]] | Sequence[int],
            dtypes: Mapping[str, str] | DtypeCombination, *, soc: str | None = None, null: str | None = None,
            formats: Mapping[str, str] | None = None,
            views: Mapping[str, tuple[Sequence[int], Sequence[int]]] | None = None, workspace_zero: bool = False,
            scalars: Sequence[str] | None = None, null_out: str = "", axis: int | None = None) -> None:
        """One case; `shapes`/`dtypes` give every parameter (a mapping) or one value for all (a shape, a combo);
        `axis`: the value `scalars` give a split op's axis."""
        def shape_of(p: _Param) -> Sequence[int]:
            return shapes[p.name] if isinstance(shapes, Mapping) else self.shape_for(p, shapes, axis)

        def acl_of(p: _Param) -> str:
            if isinstance(dtypes, DtypeCombination):
                return p.tensor.dtypes[dtypes.index].acl
            return dtypes.get(p.name) or p.tensor.dtypes[self.combos[0].index].acl

        def param(p: _Param) -> UtParam:
            if p.name == null:
                return UtParam(p.var, None)
            fmt = (formats or {}).get(p.name, "ACL_FORMAT_ND")
            return self.desc(p, shape_of(p), acl_of(p), fmt, (views or {}).get(p.name))

        self.cases.append(AclnnUtCase(
            f"{self.aclnn_snake}_{len(self.cases) + 1:03d}_{name}", why, soc,
            tuple(in_api_order(self.aclnn, [*(param(p) for p in self.inputs), *self.scalar_params(scalars, null)])),
            tuple(param(p) for p in self.outputs), expect, workspace_zero, null_out,
        ))

    def scalar_params(self, values: Sequence[str] | None, null: str | None) -> tuple[UtParam, ...]:
        """The scalar arguments: each at its def default, or at `values`; the one named `null` a nullptr."""
        found = []
        for k, s in enumerate(self.attrs.scalars):
            text = values[k] if values is not None else s.default_literal
            if s.name == null and isinstance(s, AclnnScalarPlan):
                found.append(UtParam(f"{s.name}Desc", None, s.null_literal))
            elif s.is_string:
                found.append(UtParam(s.name, text, chars=True))
            elif s.is_pointer:
                found.append(UtParam(f"{s.name}Desc", text))
            else:
                found.append(UtParam(s.name, None, text))
        return tuple(found)

    def scalar_values(self, changed: Mapping[str, str]) -> list[str]:
        """Every scalar argument at its default (a flag false) but the `changed` ones."""
        return [changed.get(s.name, s.default_literal) for s in self.attrs.scalars]

    @property
    def aclnn_snake(self) -> str:
        return camel_to_snake(self.aclnn.api)

    def all_params(self) -> tuple[_Param, ...]:
        return self.inputs + self.outputs


def aclnn_ut_cases(spec: OpSpec, inputs: Sequence[_Param], outputs: Sequence[_Param],
                   combos: tuple[DtypeCombination, ...], socs: tuple[SocPlan, ...],
                   attrs: AclnnAttrs, unregistered: tuple[GatedSoc, ...] = (),
                   split: SplitKernel | None = None) -> tuple[AclnnUtCase, ...]:
    """`unregistered`: SoCs the def does not register whose vector core lacks a dtype of the op (soc_columns);
    `split`: the op splits an input along an axis (the shape cases follow it)."""
    # cases without a SoC run on the UT's default SoC: only the combinations it registers are accepted there
    home = next((s for s in socs if s.name == UT_DEFAULT_SOC), None)
    m = _Matrix(spec, inputs, outputs, home.combinations if home else combos, attrs, split)
    base = m.fit(spec.tests.shapes[0])
    for combo in combos:
        every = f"every tensor {combo.key.name}" if combo.label == combo.key.name else ", ".join(combo.names)
        hosts = [s.soc_enum for s in socs if combo in s.combinations]
        if combo not in m.combos and not hosts:
            continue  # a def column no SoC registers (every SoC lists its own): no SoC accepts it
        runs_on = None if combo in m.combos else hosts[0]
        m.add(f"normal_{combo.label}", f"{every}: accepted", SUCCESS, base, combo, soc=runs_on)
    gated: tuple[SocPlan | GatedSoc, ...] = (*socs, *unregistered)
    for soc in gated:
        for combo in soc.combinations:
            m.add(f"{soc.name}_normal_{combo.label}", f"{combo.key.name} on {soc.name}: accepted", SUCCESS,
                  base, combo, soc=soc.soc_enum)
        taken = {c.key for c in soc.combinations}
        for combo in combos:
            if combo.key not in taken:
                why = f"{soc.name} has no {combo.key.name}" if soc in unregistered else \
                    f"not a combination {soc.name} registers"
                m.add(f"{soc.name}_{combo.label}_rejected", f"{combo.key.name} on {soc.name}: {why}", INVALID, base,
                      combo, soc=soc.soc_enum)
    for p in m.all_params():
        m.add(f"null_{p.name}", f"{p.name} is a null pointer", NULLPTR, base, combos[0], null=p.name)
    for out in OUT_PARAMS:  # OP_CHECK_COMM_INPUT: refused before anything writes through them
        m.add(f"null_{camel_to_snake(out)}", f"{out} is a null pointer, every tensor valid", NULLPTR, base,
              m.combos[0], null_out=out)
    _scalars(m, base)
    _empty(m)
    _dtypes(m)
    _shapes(m, base)
    _layouts(m)
    return tuple(m.cases)


def _scalars(m: _Matrix, base: tuple[int, ...]) -> None:
    for s in m.attrs.pointers:
        if s.optional:
            m.add(f"null_{s.name}_takes_default", f"{s.name} nullptr: the def default {s.attr.name} = "
                  f"{s.attr.default}, accepted", SUCCESS, base, m.combos[0], null=s.name)
        else:
            m.add(f"null_{s.name}", f"{s.name} is a null pointer", NULLPTR, base, m.combos[0], null=s.name)
    for s in m.attrs.pointers:
        if s.attr.kind != "float":  # a float aclScalar casts to int64 or bool: CanCast refuses
            m.add(f"{s.name}_float_rejected", f"{s.name} a float aclScalar, attr {s.attr.name} is {s.attr.kind}: "
                  "rejected", INVALID, base, m.combos[0], scalars=m.scalar_values({s.name: "ScalarDesc(1.5f)"}))
    _rules(m, base)
    _strings(m, base)
    changed = [s for s, v in zip(m.attrs.scalars, m.attrs.check_values, strict=True) if v != s.default_literal]
    if m.attrs.scalars and not (len(changed) == 1 and changed[0].is_string):  # else a _strings case has it
        shown = ", ".join(f"{s.name} {v}" for s, v in zip(m.attrs.scalars, m.attrs.check_values, strict=True))
        m.add("scalars_not_default", f"{shown}: accepted", SUCCESS, base, m.combos[0],
              scalars=m.attrs.check_values,
              axis=int(str(attr_settings(m.spec)[-1][m.split.axis])) if m.split else None)  # as check_values


def _strings(m: _Matrix, base: tuple[int, ...]) -> None:
    """Per char* parameter: nullptr refused, each of its attr's values accepted, another value refused."""
    for s in m.attrs.strings:
        assert s.values is not None
        m.add(f"null_{s.name}", f"{s.name} is a null pointer", NULLPTR, base, m.combos[0], null=s.name)
        for value in s.values.values:
            m.add(f"{s.name}_{value}", f'{s.name} "{value}", one of its values: accepted', SUCCESS, base,
                  m.combos[0], scalars=m.scalar_values({s.name: c_literal("string", value)}))
        outside = s.values.outside
        m.add(f"{s.name}_{outside}_rejected", f'{s.name} "{outside}", none of its values: rejected', INVALID, base,
              m.combos[0], scalars=m.scalar_values({s.name: c_literal("string", outside)}))


def _rules(m: _Matrix, base: tuple[int, ...]) -> None:
    """Per value rule: a value below the bound (refused, or clamped and accepted), the bound itself accepted,
    and with a `when` flag the value below the bound accepted while the flag is false."""
    for s in m.attrs.scalars:
        if not isinstance(s, AclnnScalarPlan) or s.rule is None:
            continue
        rule, below = s.rule, s.literal(s.below(s.rule))
        on = {rule.when: "true"} if rule.when else {}
        with_flag = f" with {rule.when} true" if rule.when else ""
        if rule.clamp:
            m.add(f"{s.name}_below_min_clamped", f"{s.name} below {rule.shown}{with_flag}: taken as "
                  f"{rule.shown}, accepted", SUCCESS, base, m.combos[0], scalars=m.scalar_values({s.name: below, **on}))
            continue
        m.add(f"{s.name}_below_min_rejected", f"{s.name} below {rule.shown}{with_flag}: rejected", INVALID, base,
              m.combos[0], scalars=m.scalar_values({s.name: below, **on}))
        m.add(f"{s.name}_at_min", f"{s.name} {rule.shown}{with_flag}, the bound: accepted", SUCCESS, base,
              m.combos[0], scalars=m.scalar_values({s.name: s.literal(rule.minimum), **on}))
        if rule.when:
            m.add(f"{s.name}_below_min_without_{rule.when}", f"{s.name} below {rule.shown} with {rule.when} false: "
                  "accepted", SUCCESS, base, m.combos[0], scalars=m.scalar_values({s.name: below}))


def _empty(m: _Matrix) -> None:
    empty = m.fit((0,)) if m.multiple == 1 else (0, m.multiple)
    m.add("empty", "every tensor empty: accepted with workspace 0", SUCCESS, empty, m.combos[0], workspace_zero=True)
    if m.aclnn.broadcast and len(m.data_inputs) > 1:
        full = m.fit((16, 16))
        for p in m.data_inputs:
            shapes = {q.name: (empty if q is p else full) for q in m.all_params()}
            m.add(f"empty_{p.name}_only", f"{p.name} empty, the others not: shapes do not broadcast", INVALID,
                  shapes, m.combos[0])


def _dtypes(m: _Matrix) -> None:
    supported = {c.key.acl for c in m.combos}
    data = [p for p in m.all_params() if p.is_data]
    other = next(((acl, name) for acl, name in OTHER_DTYPES if acl not in supported), None)
    for acl, name in (*FOREIGN_DTYPES, *([other] if other else [])):
        m.add(f"dtype_{name}_rejected", f"data tensors {name}: not a dtype the kernel takes", INVALID,
              m.fit((2, 8)), {p.name: acl for p in data})
    for p in m.inputs:
        if p.tensor.is_mask:
            for d in p.tensor.proto_dtypes:
                if d not in p.tensor.dtypes:
                    m.add(f"{p.name}_dtype_{d.name}_rejected", f"{p.name} {d.name}: the proto admits it but no "
                          "kernel registers it", INVALID, m.fit((2, 8)), {p.name: d.acl})
    floats = [c.key for c in m.combos if c.key.is_float]
    wide = next((d for d in floats if d.name == "float32"), None)
    narrow = next((d for d in floats if d.name != "float32"), None)
    if m.aclnn.promotion and len(m.data_inputs) > 1 and wide and narrow:
        for first, rest in ((wide, narrow), (narrow, wide)):
            dtypes = {p.name: (first if i == 0 else rest).acl for i, p in enumerate(m.data_inputs)}
            dtypes.update({p.name: wide.acl for p in m.outputs})
            m.add(f"promote_{first.name}_{rest.name}", f"inputs {first.name} and {rest.name}: promoted to float32",
                  SUCCESS, m.fit((2, 8)), dtypes)
    if m.aclnn.promotion and floats:
        dtypes = {p.name: floats[0].acl for p in m.data_inputs}
        dtypes.update({p.name: "ACL_INT32" for p in m.outputs})
        m.add("promoted_dtype_not_castable_to_out", f"{floats[0].name} inputs cannot be cast to an int32 output",
              INVALID, m.fit((2, 8)), dtypes)
    elif not m.aclnn.promotion and m.data_inputs and len(m.combos) > 1:
        first, second = m.combos[0].key, m.combos[1].key
        for p in [*m.data_inputs[1:], *m.outputs]:
            dtypes = {q.name: first.acl for q in data}
            dtypes[p.name] = second.acl
            if m.aclnn.output_cast and p in m.outputs:
                m.add(f"{p.name}_dtype_differs", f"{p.name} {second.name}, the inputs {first.name}: the result is "
                      "cast to it", SUCCESS, m.fit((2, 8)), dtypes)
                continue
            m.add(f"{p.name}_dtype_differs", f"{p.name} {second.name}, the others {first.name}: dtypes must agree",
                  INVALID, m.fit((2, 8)), dtypes)


def _shapes(m: _Matrix, base: tuple[int, ...]) -> None:
    params = m.all_params()
    if m.aclnn.broadcast and len(m.data_inputs) > 1:
        for small, large in (((16,), (16, 16)), ((16, 5, 5), (5, 5))):
            a, b = m.fit(small), m.fit(large)
            out = a if len(a) > len(b) else b
            shapes = {p.name: (a if i == 0 else b) for i, p in enumerate(m.data_inputs)}
            shapes.update({p.name: out for p in params if p not in m.data_inputs})
            m.add(f"broadcast_{'x'.join(map(str, a))}_{'x'.join(map(str, b))}", "shapes broadcast: accepted",
                  SUCCESS, shapes, m.combos[0])
        shapes = {p.name: (m.fit((16,)) if i == 0 else m.fit((16, 16))) for i, p in enumerate(m.data_inputs)}
        shapes.update({p.name: m.fit((16,)) for p in params if p not in m.data_inputs})
        m.add("out_shape_not_broadcast_shape", "the output is not the broadcast shape", INVALID, shapes, m.combos[0])
        shapes = {p.name: (m.fit((2, 3)) if i == 0 else m.fit((4, 3))) for i, p in enumerate(params)}
        m.add("shapes_not_broadcastable", "the input shapes do not broadcast", INVALID, shapes, m.combos[0])
    else:
        for p in [q for q in params[1:] if not q.unused]:
            shapes = {q.name: base for q in params}
            shapes[p.name] = (base[0] + 1, *base[1:])
            m.add(f"{p.name}_shape_differs", f"{p.name} has another shape: shapes must be equal", INVALID, shapes,
                  m.combos[0])
    rank = m.spec.constraints.max_rank
    m.add(f"rank_{rank}", f"rank {rank}, the limit: accepted", SUCCESS, m.fit((2,) * rank), m.combos[0])
    m.add(f"rank_{rank + 1}_rejected", f"rank {rank + 1}: above the limit", INVALID, m.fit((1,) + (2,) * rank),
          m.combos[0])
    if m.split is not None:
        _split_shapes(m, base, m.split)
    elif m.multiple == 1:
        m.add("scalar", "every tensor a scalar (rank 0): accepted", SUCCESS, (), m.combos[0])
    else:
        m.add("scalar_rejected", f"a scalar has no last dim that is a multiple of {m.multiple}", INVALID, (),
              m.combos[0])
        bad = (*base[:-1], base[-1] + 1)
        m.add(f"last_dim_not_multiple_of_{m.multiple}", f"the last dim {bad[-1]} is not a multiple of {m.multiple}",
              INVALID, bad, m.combos[0])


def _split_shapes(m: _Matrix, base: tuple[int, ...], split: SplitKernel) -> None:
    """What upstream's aclnnGluBackward refuses: a scalar, an axis out of range, an odd length along it."""
    axis = m.axis_param
    m.add("scalar_rejected", f"a scalar has no {axis} to split", INVALID, (), m.combos[0])
    rank = len(base)
    for value in (rank, -rank - 1):
        m.add(f"{axis}_{value}_out_of_range".replace("-", "minus_"), f"{axis} {value}: not a dim of rank {rank}",
              INVALID, base, m.combos[0], scalars=m.scalar_values({axis: str(value)}), axis=value)
    odd = list(base)
    odd[split.axis_default] += 1
    shapes = {p.name: odd for p in m.all_params()}
    m.add(f"{axis}_length_odd_rejected", f"length {odd[split.axis_default]} along {axis}: it is split in halves",
          INVALID, shapes, m.combos[0])


def _layouts(m: _Matrix) -> None:
    cols = m.fit((5,))[0]
    views = {p.name: ((1, 2), (cols, 2)) for p in m.data_inputs}
    for combo in m.combos[:2]:
        m.add(f"not_contiguous_{combo.label}", "transposed (non-contiguous) inputs: made contiguous, accepted",
              SUCCESS, (2, cols), combo, views=views)
    shape = m.fit((1, 16, 1, 1))
    for fmt in FORMATS:
        m.add(f"format_{fmt.removeprefix('ACL_FORMAT_').lower()}", f"every tensor {fmt}: ND ops take any format",
              SUCCESS, shape, m.combos[0], formats={p.name: fmt for p in m.all_params()})
    mixed = {p.name: FORMATS[0] for p in m.all_params()[1:]}
    m.add("format_mixed", "ND and NCHW mixed: accepted", SUCCESS, shape, m.combos[0], formats=mixed)


def ut_params(params: Sequence[tuple[str, TensorPlan, bool]]) -> tuple[_Param, ...]:
    return tuple(_Param(name, tensor, unused) for name, tensor, unused in params)
