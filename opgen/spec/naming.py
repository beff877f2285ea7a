"""Name rules: every spec name must stay a distinct, legal identifier in every file the tree prints it into.

Checked against C++ and Python keywords, the identifiers the blueprints emit themselves (the plan's
reserved set), and collisions after case conversion (x1 and x_1 both become `x1Gm`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..plan.registry.reserved import (
    CPP_KEYWORDS,
    CPP_NAMES,
    DAG_FILL_SUFFIX,
    DAG_VALUE_PREFIX,
    OP_TYPE_NAMES,
    PY_KEYWORDS,
    PY_NAMES,
    cpp_forms,
    upper_camel,
)
from .issues import SpecIssue
from .models import MAX_NAME_LENGTH, SNAKE_PATTERN, WINDOWS_DEVICE_NAMES, OpSpec, camel_to_snake
from .system_headers import SHADOWED_HEADERS

Loc = tuple[str | int, ...]
TAKEN_PY = PY_KEYWORDS | PY_NAMES


def name_issues(spec: OpSpec) -> list[SpecIssue]:
    return [*_op_names(spec), *_tensor_names(spec), *_aclnn_names(spec), *_attr_names(spec), *_recipe_names(spec)]


def _taken(name: str, forms: Iterable[str], python: bool) -> str | None:
    """Why `name` cannot be used, or None."""
    for form in forms:
        if form in CPP_KEYWORDS or (python and form in PY_KEYWORDS):
            return f"{name!r} becomes `{form}`, a C++ or Python keyword"
        if form in CPP_NAMES or (python and form in PY_NAMES):
            return f"{name!r} becomes `{form}`, a name the generated code already uses"
    return None


def _op_names(spec: OpSpec) -> list[SpecIssue]:
    field: Loc = ("name",) if spec.name else ("op_type",)
    snake = spec.snake_name
    fix = "pick another op_type" if spec.name is None else "pick another name"
    issues = []
    if spec.name is None:
        if len(snake) > MAX_NAME_LENGTH:
            issues.append(SpecIssue(field, f"the derived dir and file name {snake!r} has {len(snake)} chars, more "
                                    f"than {MAX_NAME_LENGTH}; shorten op_type or set a shorter name:"))
        elif not SNAKE_PATTERN.match(snake):
            issues.append(SpecIssue(field, f"the derived name {snake!r} is not snake_case; set name: explicitly"))
        elif snake in WINDOWS_DEVICE_NAMES:
            issues.append(SpecIssue(field, f"the derived dir name {snake!r} is a reserved device name on Windows; "
                                    f"{fix}"))
    why = _taken(snake, (snake,), python=True)
    if why:
        issues.append(SpecIssue(field, f"the kernel entry and golden are named after the op: {why}; {fix}"))
    if spec.op_type in OP_TYPE_NAMES:
        issues.append(SpecIssue(("op_type",), f"{spec.op_type!r} is a class or function the generated code already "
                                "uses in the op's namespaces; pick another op_type"))
    if snake in SHADOWED_HEADERS:
        issues.append(SpecIssue(field, f"{snake}.h is a system or CANN header, and the op's own {snake}.h (op_api/ "
                                f"with an aclnn API, op_kernel/ for a classic kernel) would be included in its "
                                f"place; {fix}"))
    api_stem = camel_to_snake(spec.aclnn.api) if spec.aclnn else ""
    if f"aclnn_{api_stem}" in SHADOWED_HEADERS:
        issues.append(SpecIssue(("aclnn", "api"), f"the API's header aclnn_{api_stem}.h would be included instead of "
                                f"CANN's <aclnn_{api_stem}.h>; pick another API name"))
    if len(api_stem) > MAX_NAME_LENGTH:
        issues.append(SpecIssue(("aclnn", "api"), f"the file stem aclnn_{api_stem} is too long ({len(api_stem)} chars "
                                f"after aclnn_, at most {MAX_NAME_LENGTH}); shorten the API name"))
    return issues


def _distinct(named: Sequence[tuple[Loc, str, tuple[str, ...]]], python: bool, what: str) -> list[SpecIssue]:
    """Each name legal, and no two names sharing a generated identifier."""
    issues = []
    owners: dict[str, tuple[Loc, str]] = {}
    for loc, name, forms in named:
        why = _taken(name, forms, python)
        if why:
            issues.append(SpecIssue(loc, f"{why}; rename the {what}"))
            continue
        for form in forms:
            if form in owners and owners[form][1] != name:
                other_loc, other = owners[form]
                issues.append(SpecIssue(loc, f"{name!r} and {other!r} ({_dotted(other_loc)}) both become `{form}` in "
                                        f"the generated code; rename one"))
                break
            owners.setdefault(form, (loc, name))
    return issues


def _tensor_names(spec: OpSpec) -> list[SpecIssue]:
    named = [((role, i, "name"), t.name, cpp_forms(t.name))
             for role, items in (("inputs", spec.inputs), ("outputs", spec.outputs)) for i, t in enumerate(items)]
    return _distinct(named, python=True, what="tensor")


def _aclnn_names(spec: OpSpec) -> list[SpecIssue]:
    if spec.aclnn is None:
        return []
    a = spec.aclnn
    named = [(("aclnn", role, j, "name"), name, cpp_forms(name))
             for role, names in (("inputs", [p.name for p in a.inputs]), ("scalars", [s.name for s in a.scalars]),
                                 ("outputs", [p.name for p in a.outputs]))
             for j, name in enumerate(names)]
    return _distinct(named, python=False, what="API parameter")


def _attr_names(spec: OpSpec) -> list[SpecIssue]:
    return _distinct([(("attrs", i, "name"), a.name, (a.name,)) for i, a in enumerate(spec.attrs)], python=True,
                     what="attr")


def _recipe_names(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    outputs = {t.name for t in spec.outputs}
    for variant, steps in spec.compute.variants.items():
        if f"_{variant}" in PY_NAMES:
            issues.append(SpecIssue(("compute", "variants", variant), f"golden.py names this variant's function "
                                    f"`_{variant}`, a name it already uses; rename the variant"))
        named = []
        for j, step in enumerate(steps):
            forms = [f"{DAG_VALUE_PREFIX}{upper_camel(step.out)}"]
            if step.op == "select":
                forms.append(forms[0] + DAG_FILL_SUFFIX)
            named.append((("compute", "variants", variant, j), step.out, tuple(forms)))
            if step.out not in outputs and step.out in TAKEN_PY:  # outputs are checked as tensors
                issues.append(SpecIssue(("compute", "variants", variant, j), f"{step}: golden.py would assign "
                                        f"`{step.out}`, a Python keyword or a name it already uses; rename the value"))
        issues.extend(_distinct(named, python=False, what="value"))
    return issues


def _dotted(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out
