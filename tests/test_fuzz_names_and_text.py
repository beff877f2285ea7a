"""Random valid specs with random names and hostile free text render trees that pass the syntax tier
(and, with the CANN sources, the headers tier on a few).

The names are drawn freely; a draw the spec check refuses (a keyword, a reserved or colliding name) is
discarded, so every tree rendered here comes from a spec opgen accepts.
"""

from __future__ import annotations

import io
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from test_fuzz_valid_specs import valid_specs

from opgen.cann_sources import resolve_sources
from opgen.check.headers import headers_tier
from opgen.check.items import FAIL
from opgen.check.syntax_tier import syntax_tier
from opgen.errors import OpgenError
from opgen.generate import RenderedOp, render_loaded
from opgen.spec.load import LoadedSpec, parse_spec
from opgen.write import write_trees

# the profile a run loaded (a fast/deep switch) decides the example count; without one, a modest 30
PROFILE_SET = getattr(settings, "_current_profile", "default") != "default"
COUNT: dict[str, int] = {} if PROFILE_SET else {"max_examples": 30}
SLOW = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture]

snake_names = st.from_regex(r"\A[a-z][a-z0-9]{0,5}(_[a-z0-9]{1,3}){0,2}\Z")
value_names = st.from_regex(r"\A[a-z_][A-Za-z0-9_]{0,6}\Z")
PIECES = [*"ab */\\$<>|#`'\"{}%\n-?=:", "*/", "/*", "??/", "coding: utf-7", "\u2028", "é", "<script>", "$$"]
hostile_text = st.lists(st.sampled_from(PIECES), min_size=1, max_size=20).map("".join)


def _renamed(text: str, names: dict[str, str]) -> str:
    pattern = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, names)) + r")(?![\w])")
    return pattern.sub(lambda m: names[m.group(1)], text)


@st.composite
def hardened_specs(draw: st.DrawFn) -> str:
    data: dict[str, Any] = YAML(typ="safe").load(draw(valid_specs()))
    tensors = [t["name"] for t in data["inputs"] + data["outputs"]]
    values = sorted({s.split("=")[0].strip() for steps in data["compute"]["variants"].values() for s in steps}
                    - set(tensors))
    new_tensors = draw(st.lists(snake_names, min_size=len(tensors), max_size=len(tensors), unique=True))
    new_values = draw(st.lists(value_names.filter(lambda v: v not in new_tensors), min_size=len(values),
                               max_size=len(values), unique=True))
    names = dict(zip(tensors + values, new_tensors + new_values, strict=True))
    for tensor in data["inputs"] + data["outputs"]:
        tensor["doc"] = draw(hostile_text)
    data["brief"] = draw(hostile_text)
    data["license_header"] = draw(hostile_text)
    data["docs"] = {"description": draw(hostile_text), "formula": draw(hostile_text),
                    "notes": draw(st.lists(hostile_text, max_size=2)),
                    "products": [{"name": draw(hostile_text), "supported": draw(st.booleans())}]}
    docs = data.pop("docs")
    for param in data["aclnn"]["inputs"] + data["aclnn"]["outputs"]:
        param["name"] = draw(value_names)
    buffer = io.StringIO()
    YAML(typ="safe").dump(data, buffer)
    text = _renamed(buffer.getvalue(), names)
    buffer = io.StringIO()
    YAML(typ="safe").dump({"docs": docs}, buffer)
    return text + buffer.getvalue()


def _accepted(text: str) -> RenderedOp:
    try:
        spec = parse_spec(text, "fuzz.yaml")
    except OpgenError:
        assume(False)  # a name the spec check refuses: not a valid spec
        raise
    return render_loaded([LoadedSpec(spec, Path("fuzz.yaml"), text)])[0]


@contextmanager
def _written(op: RenderedOp) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        write_trees(Path(tmp), {op.plan.rel_dir: op.files}, force=False)
        yield Path(tmp) / op.plan.rel_dir


@settings(deadline=None, suppress_health_check=SLOW, **COUNT)
@given(hardened_specs())
def test_random_names_and_hostile_text_render_trees_that_parse(text: str) -> None:
    with _written(_accepted(text)) as op_dir:
        failures = [(i.item, i.reason) for i in syntax_tier(op_dir) if i.status == FAIL]
    assert failures == [], text


@settings(deadline=None, suppress_health_check=SLOW, max_examples=3)
@given(hardened_specs())
def test_random_specs_compile_against_the_cann_headers(cann_src: Path, text: str) -> None:
    sources = resolve_sources(cann_src)
    with _written(_accepted(text)) as op_dir:
        failures = [(i.item, i.reason) for i in headers_tier(op_dir, [], sources) if i.status == FAIL]
    assert failures == [], text
