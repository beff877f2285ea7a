"""The spec's independent reference, with the retired reference names read as the formulas they stood for."""

from __future__ import annotations

from dataclasses import dataclass

from .formula import Formula, parse_formula
from .models import OpSpec, ReferenceSpec

GELU_TANH = "0.5 * {x} * (1 + tanh(sqrt(2 / pi) * ({x} + 0.044715 * {x}^3)))"
NO_REFERENCE = "numerics unchecked: no reference"


@dataclass(frozen=True)
class ResolvedReference:
    """forward + wrt + grad (derivative by autograd) or direct (the output); `migrated` says what a retired
    name was read as, for the user to write into the spec."""

    formula: Formula
    wrt: str | None
    grad: str | None
    migrated: str = ""
    nan: str = "select"  # ReferenceSpec.nan: what a NaN grad gives where the derivative is 0


def resolve_reference(spec: OpSpec) -> ResolvedReference | None:
    """None when the spec has no reference (or only the placeholder `opgen new` writes)."""
    ref = spec.golden.reference
    if ref == "none":
        return None
    if isinstance(ref, str):
        first, second = (t.name for t in spec.inputs[:2])
        if ref == "gelu_tanh_backward":
            ref = ReferenceSpec(forward=GELU_TANH.format(x=second), wrt=second, grad=first)
            shown = f"{{forward: '{ref.forward}', wrt: {second}, grad: {first}}}"
        else:
            ref = ReferenceSpec(direct=f"where({second}, {first}, 0)")
            shown = f"{{direct: '{ref.direct}'}}"
        resolved = _resolved(ref)
        assert resolved is not None
        note = f"golden.reference {spec.golden.reference!r} is a retired name, read as {shown}; write that instead"
        return ResolvedReference(resolved.formula, resolved.wrt, resolved.grad, note)
    return _resolved(ref)


def _resolved(ref: ReferenceSpec) -> ResolvedReference | None:
    if ref.forward is not None:
        return ResolvedReference(parse_formula(ref.forward), ref.wrt, ref.grad, nan=ref.nan)
    if ref.direct is not None:
        return ResolvedReference(parse_formula(ref.direct), None, ref.grad, nan=ref.nan)
    return None


def reference_problems(spec: OpSpec) -> list[tuple[tuple[str, ...], str]]:
    """(field, message) for each way the reference does not fit the op's inputs, attrs and outputs."""
    ref = spec.golden.reference
    loc = ("golden", "reference")
    if isinstance(ref, str):
        if ref != "none" and len(spec.inputs) < 2:
            return [(loc, f"{ref!r} reads two inputs; write forward/wrt/grad or direct instead")]
        return []
    problems: list[tuple[tuple[str, ...], str]] = []
    if ref.forward is not None and ref.direct is not None:
        problems.append((loc, "give forward (with wrt and grad) or direct, not both"))
    if ref.direct is not None and ref.wrt:
        problems.append((loc, "wrt belongs to forward; a direct reference is the output itself (grad may name "
                              "the input holding the incoming gradient)"))
    if ref.direct is not None and ref.grad is not None and ref.grad not in {t.name for t in spec.inputs}:
        problems.append(((*loc, "grad"), f"{ref.grad!r} is not an input; inputs: "
                                         f"{', '.join(sorted(t.name for t in spec.inputs))}"))
    if ref.nan == "passthrough" and ref.grad is None:
        problems.append(((*loc, "nan"), "passthrough says a NaN in the incoming gradient comes out as NaN; "
                                        "name that input in grad"))
    if ref.forward is None and ref.direct is None:
        return problems
    inputs = {t.name for t in spec.inputs}
    strings = {a.name: a.values for a in spec.attrs if a.type == "string"}
    known = inputs | {a.name for a in spec.attrs if a.name not in strings}
    if ref.forward is not None:
        for field in ("wrt", "grad"):
            value = getattr(ref, field)
            if value is None:
                role = "the gradient is taken for" if field == "wrt" else "holding the incoming gradient"
                problems.append(((*loc, field), f"forward needs {field}: the input {role}"))
            elif value not in inputs:
                problems.append(((*loc, field), f"{value!r} is not an input; inputs: {', '.join(sorted(inputs))}"))
        if ref.grad is not None and ref.grad == ref.wrt:
            problems.append(((*loc, "grad"), "the incoming gradient and the input differentiated differ"))
    field, text = ("forward", ref.forward) if ref.forward is not None else ("direct", ref.direct)
    assert text is not None
    formula = parse_formula(text)
    for name in formula.names:
        if name in strings:
            problems.append(((*loc, field), f"{name!r} is a string attr, not a number; let it choose the math: "
                             f'where({name} == "<value>", ..., ...)'))
        elif name not in known:
            problems.append(((*loc, field), f"{name!r} is neither an input nor an attr"))
        if field == "forward" and name == ref.grad:
            problems.append(((*loc, field), f"the forward function cannot read the incoming gradient {name!r}"))
    ints = {a.name for a in spec.attrs if a.type == "int"}
    problems += [((*loc, field), f"{name!r} names an axis: it must be an int attr (ints: "
                  f"{', '.join(sorted(ints)) or 'none'})") for name in formula.axes if name not in ints]
    for name, value in formula.choices:
        if name not in strings:
            problems.append(((*loc, field), f"{name!r} is tested against the string {value!r}, but is no string "
                             "attr; only a string attr's value is tested so"))
        elif value not in strings[name]:
            problems.append(((*loc, field), f"{value!r} is not one of {name}'s values ({', '.join(strings[name])})"))
    if len(spec.outputs) != 1:
        problems.append((loc, "a reference formula gives one output; this op has several"))
    return problems
