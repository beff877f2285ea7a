"""The plan's reserved-name set stays true: each name is really emitted, and the samples emit no other.

Names the spec validates against (opgen.plan.registry.reserved) must appear in the rendered samples; and every free
lowercase C++ identifier of the samples is either reserved, a keyword, or derived from a spec name.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest
from conftest import GELU, GELU_DIR, RELU, RELU_DIR, SCHEMAS

from opgen.plan.registry import reserved
from opgen.spec.load import load_spec
from opgen.spec.models import camel_to_snake

_CPP_TEXT = re.compile(r'//[^\n]*|/\*.*?\*/|R"\((?:.|\n)*?\)"|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', re.S)
_DIRECTIVE = re.compile(r"^\s*#\s*(include|define|ifndef|endif|ifdef|if|else)\b[^\n]*", re.M)
_FREE_ID = re.compile(r"(?<![\w.>:])(?<!->)(?<!::)([A-Za-z_]\w*)")  # not a member, not qualified
_ANY_ID = re.compile(r"(?<!\w)([A-Za-z_]\w*)")
# identifiers made from the op name, test dtypes, SoCs or indexes (gelu_grad_test, tiling_float32, tmp0, ...)
_GENERATED = re.compile(r"^(l2_|tiling_|infershape_|tmp\d|tmpBuf\d|const\d|constBuf\d|config[A-Z]|__)")


def _cpp_identifiers(root: Path, free: bool = True) -> set[str]:
    """Identifiers of the C++ code (comments, strings and directives removed); `free`: no members, unqualified."""
    found: set[str] = set()
    for path in root.rglob("*"):
        if path.suffix in (".cpp", ".h") and ".opgen" not in path.parts:
            code = _DIRECTIVE.sub("", _CPP_TEXT.sub(" ", path.read_text(encoding="utf-8")))
            found |= set((_FREE_ID if free else _ANY_ID).findall(code))
    return found


def _py_names(root: Path) -> set[str]:
    found: set[str] = set()
    for path in root.rglob("*.py"):
        if ".opgen" not in path.parts:
            tokens = tokenize.tokenize(io.BytesIO(path.read_bytes()).readline)
            found |= {t.string for t in tokens if t.type == tokenize.NAME}
    return found


@pytest.fixture(scope="module")
def emitted(rendered: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[set[str], set[str], set[str]]:
    """Both samples' names, and EluGradV2's: the infershape that copies one input's shape (`same_as_input`, its
    `inputShape`) is neither main sample's rule."""
    from opgen.generate import render_specs, write_ops

    extra = tmp_path_factory.mktemp("same_as_input")
    write_ops(extra / "out", render_specs([SCHEMAS / "elu_grad_v2.yaml"]), force=False, record_dir=extra / ".opgen")
    roots = (rendered, extra / "out")
    return (set().union(*(_cpp_identifiers(r) for r in roots)), set().union(*(_py_names(r) for r in roots)),
            set().union(*(_cpp_identifiers(r, free=False) for r in roots)))


def test_every_reserved_name_is_emitted(emitted: tuple[set[str], set[str], set[str]]) -> None:
    cpp, py, qualified = emitted
    assert sorted(reserved.CPP_NAMES - cpp) == []
    assert sorted(reserved.PY_NAMES - py) == []
    assert sorted(reserved.OP_TYPE_NAMES - qualified) == []  # l0op::Cast, ge::DataType, OpDef


def test_every_derived_form_is_emitted(emitted: tuple[set[str], set[str], set[str]]) -> None:
    """Each suffix and prefix the plan claims the blueprints add is seen on some spec name."""
    cpp, *_ = emitted
    names = [t.name for s in (RELU, GELU) for t in load_spec(s).spec.tensors]
    apis = [a for a in (load_spec(s).spec.aclnn for s in (RELU, GELU)) if a is not None]
    names += [p.name for a in apis for p in a.inputs + a.outputs]
    for suffix in reserved.NAME_SUFFIXES:
        assert any(reserved.lower_camel(n) + suffix in cpp for n in names), suffix
    for prefix in reserved.NAME_PREFIXES:
        assert any(prefix + reserved.upper_camel(n) in cpp for n in names), prefix
    assert any(i.startswith(reserved.DAG_VALUE_PREFIX) and i.endswith(reserved.DAG_FILL_SUFFIX) for i in cpp)


def _unlisted(op_dir: Path, spec: Path, listed: frozenset[str]) -> list[str]:
    loaded = load_spec(spec).spec
    derived = {form for t in loaded.tensors for form in reserved.cpp_forms(t.name)}
    params = loaded.aclnn.inputs + loaded.aclnn.outputs if loaded.aclnn else ()
    derived |= {form for p in params for form in reserved.cpp_forms(p.name)}
    api = (f"aclnn{loaded.aclnn.api}", camel_to_snake(loaded.aclnn.api)) if loaded.aclnn else ()
    return sorted(
        name for name in _cpp_identifiers(op_dir)
        if name[0].islower() and not name.startswith((loaded.snake_name, *api))
        and not _GENERATED.match(name) and name not in reserved.CPP_KEYWORDS | listed | derived
    )


@pytest.mark.parametrize(("spec", "rel_dir"), [(RELU, RELU_DIR), (GELU, GELU_DIR)], ids=["arch35", "classic"])
def test_samples_emit_no_unlisted_lowercase_identifier(rendered: Path, spec: Path, rel_dir: str) -> None:
    """A new blueprint variable must join the reserved set, or a spec name could collide with it unseen."""
    assert _unlisted(rendered / rel_dir, spec, reserved.CPP_NAMES) == []


def test_a_name_missing_from_the_set_is_found(rendered: Path) -> None:
    """Injected fault: drop `workspace` and `tilingData` from the set; the scan names them."""
    listed = reserved.CPP_NAMES - {"workspace", "tilingData"}
    assert _unlisted(rendered / GELU_DIR, GELU, listed) == ["tilingData", "workspace"]
