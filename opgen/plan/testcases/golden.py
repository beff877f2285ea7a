"""The recipe as NumPy statements: printed into tests/assets/golden.py and run by the emulator."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.models import OpSpec
from ...spec.recipe import OPS, Step
from ..kernel.lowering import lower
from ..kernel.ops import SPELLINGS
from ..registry.attrs import AttrPlan, KernelScalars
from ..registry.reserved import upper_snake
from ..registry.tensors import TensorPlan


@dataclass(frozen=True)
class GoldenVariant:
    name: str
    socs: tuple[str, ...]  # short SoC versions (golden kwarg short_soc_version) that run it
    lines: tuple[str, ...]  # `value = expr` statements over the input names, `cdt` and `shape`
    masks: tuple[str, ...] = ()  # values that are boolean masks (comparisons), not of dtype cdt
    value: str | bool | None = None  # the value of the attr choosing the math that runs it (None: the SoCs pick it)
    about: str = ""  # who runs it, for its docstring: the SoCs, or the attr's value

    @property
    def keys(self) -> tuple[str, ...]:
        """Its keys in golden.py's variant table, as Python literals: its choice value, or the SoCs that run it."""
        if self.value is None:
            return tuple(f'"{soc}"' for soc in self.socs)
        return (f'"{self.value}"' if isinstance(self.value, str) else repr(self.value),)


@dataclass(frozen=True)
class GoldenPlan:
    """What tests/assets/golden.py prints around the variants' lines."""

    function: str
    params: str  # every input, def order, then every attr as a keyword with its default
    variant_params: str  # inputs the recipe reads, cdt and shape, then the attrs it reads
    variant_returns: str
    out_dtype_source: str  # the input whose dtype the outputs take
    out_dtype: str  # the expression of the outputs' dtype: that input's, or (mixed columns) out_dtype_table's
    out_dtype_table: tuple[tuple[str, str], ...]  # (tuple of the data inputs' dtype names, output dtype name)
    shape_args: str
    cdt: str
    input_prep: tuple[tuple[str, str], ...]  # (input, statement preparing it for the recipe)
    result: str
    variants: tuple[GoldenVariant, ...]
    unpacks_masks: bool  # whether the golden needs its bit-mask unpacking helper
    casts_to_integers: bool  # a float recipe gives an integer output: the golden needs the kernel's saturating cast
    imports_math: bool  # erf is spelled with math.erf
    absent_variants: tuple[GoldenVariant, ...] = ()  # the variants run when the optional input is None
    absent_table: str = ""  # golden.py's name for their table
    lookup: tuple[str, ...] = ()  # the statements setting `variant`: by SoC (and presence), or by the choice attr


def mask_values(steps: tuple[Step, ...]) -> tuple[str, ...]:
    return tuple(s.out for s in steps if OPS[s.op].gives_mask)


def golden_lines(steps: tuple[Step, ...]) -> tuple[str, ...]:
    lines = []
    for step in steps:
        # an AttrRef prints its name; a number goes through the compute dtype, but an axis, which is an index
        args = [a if isinstance(a, str) or OPS[step.op].along else f"cdt({a})" for a in step.args]
        lines.append(f"{step.out} = {SPELLINGS[step.op].numpy.format(*args)}")
    return tuple(lines)


def absent_golden(spec: OpSpec, absent: TensorPlan, variants: tuple[GoldenVariant, ...],
                  layout: str) -> tuple[str, str, tuple[GoldenVariant, ...]]:
    """The absent input's name, golden.py's table of its variants, and those variants: each one with the spec's
    `compute.absent` steps in front, run by the same SoCs."""
    lowered = {v: lower(spec.compute.absent[absent.name] + steps, layout) for v, steps in spec.compute.variants.items()}
    return absent.name, f"_VARIANTS_WITHOUT_{upper_snake(absent.name)}", tuple(
        GoldenVariant(f"{v.name}_without_{absent.name}", v.socs, golden_lines(lowered[v.name]),
                      mask_values(lowered[v.name]), about=v.about) for v in variants)


def golden_plan(
    name: str, tensors: tuple[TensorPlan, ...], float_compute: bool, attrs: tuple[AttrPlan, ...],
    scalars: KernelScalars, variants: tuple[GoldenVariant, ...],
    absent: tuple[str, str, tuple[GoldenVariant, ...]] | None = None, choice: str = "", choice_is_bool: bool = False,
    native: tuple[str, ...] = (), split: tuple[str, str] | None = None,
) -> GoldenPlan:
    """`absent`: (optional input, table name, its variants) when the golden takes that input as None;
    `choice`: the attr whose value picks the variant; `native`: the output dtypes a float32 recipe computes as
    they are; `split`: (the input split in halves, the axis attr): every input keeps its own shape, the axis is the
    variants' argument."""
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    read = [t for t in inputs if t.read_by_kernel]
    data = [t for t in inputs if not t.is_mask and not (absent and t.name == absent[0])]
    source = next((t for t in data if t.dtypes == outputs[0].dtypes), data[0])
    prep = []
    for t in read:
        if t.is_mask:
            prep.append((t.name, f"_unpack_mask({t.name}, shape)"))
        elif split is not None:
            prep.append((t.name, f"{t.name}.astype({'cdt' if native or not float_compute else 'np.float32'})"))
        elif float_compute:
            prep.append((t.name, f"np.broadcast_to({t.name}.astype({'cdt' if native else 'np.float32'}), shape)"))
        else:
            prep.append((t.name, f"np.broadcast_to({t.name}, shape)"))
    if absent:
        prep = [(n, f"None if {n} is None else {p}" if n == absent[0] else p) for n, p in prep]
    recipe_args = ", ".join([t.name for t in read] + ["cdt", "shape"] + list(scalars.var_names) +
                            ([split[1]] if split else []))
    keywords = ["*", *(f"{a.name}={a.python_default}" for a in attrs)] if attrs else []
    out_dtype, table = f"{source.name}.dtype", tuple[tuple[str, str], ...]()
    if source.dtypes != outputs[0].dtypes:  # mixed columns: no input has the output's dtype in every combination
        keys = [repr(tuple(d.name for d in column)) for column in zip(*(t.dtypes for t in data), strict=True)]
        table = tuple(dict.fromkeys(zip(keys, (d.name for d in outputs[0].dtypes), strict=True)))
        names = ", ".join(f"{t.name}.dtype.name" for t in data) + ("," if len(data) == 1 else "")
        out_dtype = f"np.dtype(_OUT_DTYPES[({names})])"
        if len({k for k, _ in table}) < len(table):  # the inputs' dtypes do not tell the output's: the caller does
            out_dtype, table = 'np.dtype(kwargs["output_dtypes"][0])', ()
    to_integers = float_compute and any(not d.is_float for t in outputs for d in t.dtypes)
    return GoldenPlan(
        function=f"{name}_golden", params=", ".join([_params(inputs, absent[0] if absent else None), *keywords]),
        variant_params=recipe_args,
        variant_returns=f"({', '.join(t.name for t in outputs)},)", out_dtype_source=source.name,
        out_dtype=out_dtype, out_dtype_table=table,
        # a split op's inputs keep their shapes: a fill is a 0-d constant that broadcasts to the values reading it
        shape_args="" if split else ", ".join(f"{t.name}.shape" for t in data),
        cdt=_compute_type(float_compute, native),
        input_prep=tuple(prep),
        result=_result(len(outputs), to_integers),
        variants=variants, unpacks_masks=any(t.is_mask for t in read), casts_to_integers=to_integers,
        imports_math=any("math." in line for v in variants + (absent[2] if absent else ()) for line in v.lines),
        absent_variants=absent[2] if absent else (), absent_table=absent[1] if absent else "",
        lookup=_lookup(variants, absent, choice, choice_is_bool),
    )


def _compute_type(float_compute: bool, native: tuple[str, ...]) -> str:
    """golden.py's expression for the compute type (out_dtype is the output's dtype)."""
    if not float_compute:
        return "out_dtype.type"
    if native:
        return f"out_dtype.type if out_dtype.name in {native!r} else np.float32"
    return "np.float32"


def _lookup(variants: tuple[GoldenVariant, ...], absent: tuple[str, str, tuple[GoldenVariant, ...]] | None,
            choice: str, choice_is_bool: bool) -> tuple[str, ...]:
    """golden.py's statements picking the variant: by the choice attr's value (an unknown string refused, as
    the tiling does; a bool attr by its truth), else by the SoC (a SoC the table does not name runs the first
    variant)."""
    if choice_is_bool:
        return (f"variant = _VARIANTS[bool({choice})]",)
    if choice:
        return (f"if {choice} not in _VARIANTS:",
                f'    raise ValueError(f"{choice} must be one of {{list(_VARIANTS)}}, got {{{choice}!r}}")',
                f"variant = _VARIANTS[{choice}]")
    soc = 'kwargs.get("short_soc_version")'
    if absent is None:
        return (f"variant = _VARIANTS.get({soc}, _{variants[0].name})",)
    given = f"{absent[0]} is not None"
    return (f"variants = _VARIANTS if {given} else {absent[1]}",
            f"variant = variants.get({soc}, _{variants[0].name} if {given} else _{absent[2][0].name})")


def _params(inputs: list[TensorPlan], absent: str | None) -> str:
    """The golden's parameters, def order; the optional input defaults to None when nothing follows it."""
    names = [t.name for t in inputs]
    if absent and names[-1] == absent:
        names[-1] = f"{absent}=None"
    return ", ".join(names)


def _result(outputs: int, to_integers: bool) -> str:
    cast = "_to_output({}, out_dtype)" if to_integers else "{}.astype(out_dtype)"
    return cast.format("_outputs[0]") if outputs == 1 else f"tuple({cast.format('o')} for o in _outputs)"
