"""Random valid specs within the model render into trees that pass the syntax and consistency tiers."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from opgen.check.consistency import consistency_tier
from opgen.check.items import FAIL
from opgen.check.syntax_tier import syntax_tier
from opgen.generate import render_loaded
from opgen.spec.load import LoadedSpec, parse_spec
from opgen.spec.socs import LACKING_DTYPES, TILING_SOC_ALIASES
from opgen.write import write_trees

FLOATS = ["float32", "float16", "bfloat16"]
NATIVE = ["bfloat16", "float16", "float32", "int8", "int32", "uint8"]
CLASSIC_SOCS = ["ascend910b", "ascend910_93", "ascend310p", "ascend310b"]
ARCH35_SOCS = ["ascend950", "ascend350"]
FLOAT_OPS = ["add", "sub", "mul", "div", "max", "min", "adds", "muls", "maxs", "mins", "exp", "abs", "sqrt",
             "reciprocal", "relu", "log"]
INT_SAFE_OPS = ["add", "sub", "mul", "max", "min", "adds", "muls", "maxs", "mins", "abs", "relu"]
BINARY = {"add", "sub", "mul", "div", "max", "min"}
WITH_SCALAR = {"adds", "muls", "maxs", "mins"}
NAMES = ["dy", "x", "feat", "grad", "scale"]
CONSTANTS = [-2.0, -0.5, 0.0, 0.25, 1.0, 1.5957691216057308, 3.0]


@st.composite
def recipes(draw: st.DrawFn, inputs: list[str], ops: list[str], output: str, mask: str | None,
            unsigned: bool = False) -> list[str]:
    """A chain of steps: each value feeds the next, binary ops also read an earlier value.

    Constants fit the compute dtype: an unsigned native dtype takes no negative one.
    """
    constants = st.sampled_from([c for c in CONSTANTS if c >= 0 or not unsigned])
    values = list(inputs)
    current = draw(st.sampled_from(inputs))
    steps = []
    count = draw(st.integers(1, 6))
    for i in range(count):
        op = draw(st.sampled_from(ops))
        name = output if i == count - 1 and mask is None else f"v{i}"
        if op in BINARY:
            args = f"{current}, {draw(st.sampled_from(values))}"
        elif op in WITH_SCALAR:
            args = f"{current}, {draw(constants)!r}"
        else:
            args = current
        steps.append(f"{name} = {op}({args})")
        values.append(name)
        current = name
    if mask is not None:
        steps.append(f"{output} = select({mask}, {current}, {draw(constants)!r})")
    return steps


@st.composite
def valid_specs(draw: st.DrawFn) -> str:
    classic = draw(st.booleans())
    native = not classic and draw(st.booleans())
    keys = draw(st.lists(st.sampled_from(NATIVE if native else FLOATS), min_size=1, max_size=4, unique=True))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    mask = "mask" if not classic and draw(st.booleans()) else None
    inputs: list[dict[str, Any]] = [{"name": n, "dtypes": list(keys)} for n in names]
    if mask:
        inputs.append({"name": mask, "dtypes": "uint1", "proto_dtypes": ["uint8", "uint1"]})
    able = [s for s in CLASSIC_SOCS if not LACKING_DTYPES.get(s, frozenset()) & set(keys)]  # no bf16 on ascend310p
    socs = draw(st.lists(st.sampled_from(able if classic else ARCH35_SOCS), min_size=1, unique=True))
    # A SoC the tiling sees as another runs that SoC's variant, so variants are named by the tiling's SoC.
    shared = not classic or draw(st.booleans())
    variant_of = {s: "main" if shared else f"v_{TILING_SOC_ALIASES.get(s, s)}" for s in socs}
    variants = sorted(set(variant_of.values()))
    platforms = [
        {"soc": soc, "kernel": "classic", "tiling_key": i, "compute_variant": variant_of[soc]}
        if classic else {"soc": soc, "kernel": "arch35_dag", "aicore": {}, "compute_variant": "main"}
        for i, soc in enumerate(socs)
    ]
    for platform in platforms:  # a SoC may support only some columns (per-SoC dtype lists)
        if len(keys) > 1 and draw(st.booleans()):
            columns = st.integers(0, len(keys) - 1)
            platform["combinations"] = draw(st.lists(columns, min_size=1, max_size=len(keys) - 1, unique=True))
    ops = INT_SAFE_OPS if native else FLOAT_OPS
    compute = {"dtype": "native" if native else "float32",
               "variants": {v: draw(recipes(names, ops, "z", mask, native and any(k.startswith("uint") for k in keys)))
                            for v in variants}}
    read = {a.strip() for steps in compute["variants"].values() for s in steps
            for a in s.split("(", 1)[1].rstrip(")").split(",")}
    api_inputs = [{"name": f"in{i}", "tensor": t["name"]} for i, t in enumerate(inputs)]
    broadcast = not mask and len(names) > 1 and draw(st.booleans())
    spec = {
        "op_type": draw(st.from_regex(r"\AFz[A-Z][a-z]{1,6}Grad\Z")),
        "category": draw(st.sampled_from(["activation", "loss", "norm"])),
        "experimental": draw(st.booleans()),
        "brief": "A fuzzed op.",
        "inputs": inputs,
        "outputs": [{"name": "z", "dtypes": list(keys)}],
        "platforms": platforms,
        "constraints": {"last_dim_multiple_of": {"tensor": "z", "multiple": 8}} if mask else {},
        "infershape": {"rule": "elementwise"} if draw(st.booleans()) else {"rule": "same_as_input",
                                                                              "input": names[0]},
        "tiling": {"sch_modes": [0, 1], "workspace_bytes": draw(st.sampled_from([0, 16777216]))},
        "compute": compute,
        "aclnn": {"api": draw(st.from_regex(r"\AFz[A-Z][a-z]{1,6}\Z")), "inputs": api_inputs,
                  "outputs": [{"name": "out", "tensor": "z"}], "promotion": not native and draw(st.booleans()),
                  "broadcast": broadcast},
        "golden": {"reference": "none", "tolerances": {k: {"rtol": 0.001, "atol": 0.001} for k in keys}},
        "tests": {"shapes": [[draw(st.integers(1, 4)), 8 * draw(st.integers(1, 4))]]},
        "docs": {"description": "Fuzzed.", "formula": "z = f(x)"},
    }
    assert read  # every recipe reads something
    buffer = io.StringIO()
    YAML(typ="safe").dump(spec, buffer)
    return buffer.getvalue()


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # examples: conftest profile
@given(valid_specs())
def test_random_valid_specs_render_parse_and_agree(text: str) -> None:
    spec = parse_spec(text, "fuzz.yaml")
    op = render_loaded([LoadedSpec(spec, Path("fuzz.yaml"), text)])[0]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_trees(root, {op.plan.rel_dir: op.files}, force=False)
        op_dir = root / op.plan.rel_dir
        failures = [(i.item, i.reason) for i in syntax_tier(op_dir) + consistency_tier(op_dir, op.plan)
                    if i.status == FAIL]
        assert failures == [], text
