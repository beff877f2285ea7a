"""Consistency tier, aclnn value rules: what the docs say a scalar below its bound does (refused with
ACLNN_ERR_PARAM_INVALID, or taken as the bound; always, or while a bool flag is true) is what the wrapper does;
and a char* the docs say is one of some values (nullptr refused) is refused by the wrapper when null and when none
of exactly those values.

A dropped check, a flipped comparison, a forgotten flag, a value dropped from or added to a string's list, or a
check function nothing calls all compile, and the wrapper then hands the kernel the value the docs promise it
never gets (a string the tiling refuses, or a null it reads) or refuses valid calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..plan import RenderPlan
from .items import CheckItem, skipped, verdict
from .readers import MD_CELL, Source, read_source

LABEL = "aclnn scalar rules == docs"
# the docs' phrase (opgen/plan/aclnn/aclnn_rules.py prints it): "[when F is true, ]below M it is refused (...)"
_RULE = re.compile(r"(?:when (\w+) is true, )?below (-?[\d.]+(?:e[+-]?\d+)?) it is (refused|taken as)")
# a char*'s values (ValuesRule.docs_text): 'nullptr is refused (...); one of "none", "tanh", any other value is refused'
_VALUES = re.compile(r'one of ((?:"\w+", )*"\w+"), any other value is refused')
# an axis scalar (AXIS_RULE of plan/aclnn/aclnn_attrs.py): "an axis of self: from -rank to rank - 1 ..."
_AXIS = re.compile(r"an axis of (\w+): from -rank to rank - 1")
_ROW = re.compile(rf"(?m)^\|\s*(\w+)\s*\|{MD_CELL}\|({MD_CELL})\|")
_IF = re.compile(r"\bif\s*\(((?:[^(){};]|\([^(){};]*\))*)\)\s*\{([^{}]*)\}")
_FUNCTION = re.compile(r"(?m)^[A-Za-z_][\w\s*&:<>]*?\b(\w+)\s*\([^;{]*\)\s*\{")
_SPACE = re.compile(r"\s+")


def _shown(value: float) -> str:
    """A bound as the docs print it, every digit kept (a `%g` would show 0.1234567891 as 0.123457)."""
    return repr(value).removesuffix(".0")


@dataclass(frozen=True)
class DocRule:
    scalar: str
    minimum: float
    clamp: bool
    when: str  # "" for always
    at: str  # docs file:line

    @property
    def said(self) -> str:
        flag = f" while {self.when} is true" if self.when else ""
        effect = f"is taken as {_shown(self.minimum)}" if self.clamp else "is refused"
        return f"the docs ({self.at}) say {self.scalar} below {_shown(self.minimum)} {effect}{flag}"


def read_doc_rules(text: str, rel: str, names: list[str]) -> list[DocRule]:
    """The rule each API scalar's row of the docs' parameter table states."""
    found = []
    for row in _ROW.finditer(text):
        rule = _RULE.search(row.group(2))
        if row.group(1) in names and rule:
            found.append(DocRule(row.group(1), float(rule.group(2)), rule.group(3) == "taken as", rule.group(1) or "",
                                 f"{rel}:{text.count(chr(10), 0, row.start()) + 1}"))
    return found


@dataclass(frozen=True)
class DocValues:
    scalar: str
    values: tuple[str, ...]
    at: str  # docs file:line

    @property
    def said(self) -> str:
        return f"the docs ({self.at}) say {self.scalar} is one of {_quoted(self.values)}, nullptr refused"


def _quoted(values: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f'"{v}"' for v in values)


def read_doc_values(text: str, rel: str, names: list[str]) -> list[DocValues]:
    """The values each char* parameter's row of the docs' parameter table lists."""
    found = []
    for row in _ROW.finditer(text):
        listed = _VALUES.search(row.group(2))
        if row.group(1) in names and listed:
            found.append(DocValues(row.group(1), tuple(re.findall(r'"(\w+)"', listed.group(1))),
                                   f"{rel}:{text.count(chr(10), 0, row.start()) + 1}"))
    return found


def _number(literal: str) -> float | None:
    text = re.sub(r"^static_cast<\w+>\((.*)\)$", r"\1", literal.strip()).rstrip("fF")
    try:
        return float(text)
    except ValueError:
        return None


def _terms(condition: str) -> list[str]:
    return [_SPACE.sub(" ", t).strip() for t in condition.split("&&")]


def _matches(condition: str, value: str, rule: DocRule, nullable: str) -> bool:
    """`[flag && ][x != nullptr && ]value < bound` with the docs' bound and flag, in any order."""
    bound, flags = None, set()
    for term in _terms(condition):
        below = re.fullmatch(rf"{value}\s*<\s*(.+)", term)
        if below:
            bound = _number(below.group(1))
        elif term != f"{nullable} != nullptr":
            flags.add(term)
    return bound == rule.minimum and flags == ({rule.when} if rule.when else set())


def _called(src: Source, pos: int) -> str:
    """The function around `pos`, "" when something calls it (or it is the API itself), else its name."""
    heads = list(_FUNCTION.finditer(src.code, 0, pos))
    name = heads[-1].group(1) if heads else ""
    if not name or name.endswith("GetWorkspaceSize") or len(re.findall(rf"\b{name}\s*\(", src.code)) > 1:
        return ""
    return name


def _refusal(src: Source, rule: DocRule) -> str | None:
    """The problem with the wrapper's refusal of a value below the bound, None when it is there and called."""
    value = rf"{rule.scalar}(?:\s*->\s*To\w+\(\))?"
    shown = []
    for m in _IF.finditer(src.code):
        if not re.search(rf"\b{rule.scalar}\b", m.group(1)) or not re.search(
                r"\breturn\s+(?:false|ACLNN_ERR_PARAM_INVALID)\b", m.group(2)):
            continue
        if _matches(m.group(1), value, rule, rule.scalar):
            caller = _called(src, m.start())
            return f"{src.at(m.start())}: {caller} refuses {rule.scalar}, but nothing calls {caller}; " \
                   f"{rule.said}" if caller else None
        shown.append(f"{src.at(m.start())}: `if ({_SPACE.sub(' ', m.group(1)).strip()})` refuses {rule.scalar}")
    return f"{'; '.join(shown)}; {rule.said}" if shown else f"{src.rel}: nothing refuses {rule.scalar}; {rule.said}"


def _clamp(src: Source, rule: DocRule, op_type: str) -> str | None:
    """The problem with the clamp of the variable carrying the scalar to the l0 op, None when it is there."""
    call = re.search(rf"\bl0op::{op_type}\s*\(([^;]*)\)\s*;", src.code)
    if call is None:
        return f"{src.rel}: no l0op::{op_type}(...) call; {rule.said}"
    args = [a.strip() for a in call.group(1).split(",")]
    reads = re.compile(rf"\b(\w+)\s*=(?!=)[^;]*\b{rule.scalar}\b[^;]*;")
    decl = next((m for m in reads.finditer(src.code, 0, call.start()) if m.group(1) in args), None)
    if decl is None:
        return f"{src.at(call.start())}: no variable the l0 call takes is read from {rule.scalar}; {rule.said}"
    var = decl.group(1)
    for m in _IF.finditer(src.code, decl.end(), call.start()):
        sets = re.fullmatch(rf"\s*{var}\s*=\s*([^;]+);\s*", m.group(2))
        if sets and _number(sets.group(1)) == rule.minimum and _matches(m.group(1), var, rule, ""):
            return None
    return f"{src.at(call.start())}: {var} reaches l0op::{op_type} without `if ({var} < {_shown(rule.minimum)}) " \
           f"{{ {var} = {_shown(rule.minimum)}; }}`; {rule.said}"


def _refuses(body: str, code: str) -> bool:
    return re.search(rf"\breturn\s+(?:false|{code})\b", body) is not None


def _compared(condition: str, name: str) -> list[str] | None:
    """The strings `strcmp(name, "a") != 0 && name != "b"` lets through (a, b); None when the condition is no such
    conjunction over `name` (and an empty list when it compares no string)."""
    values = []
    for term in _terms(condition):
        m = re.fullmatch(rf'(?:strcmp\(\s*{name}\s*,\s*"(\w*)"\s*\)\s*!=\s*0|{name}\s*!=\s*"(\w*)")', term)
        if m is None:
            return None
        values.append(m.group(1) if m.group(1) is not None else m.group(2))
    return values


def _mentions_string(condition: str, name: str) -> bool:
    return re.search(rf'strcmp\(\s*{name}\s*,|\b{name}\s*[!=]=\s*"', condition) is not None


def _string_refusals(src: Source, doc: DocValues) -> list[str]:
    """The problems with the wrapper's refusals of a null string and of one none of the docs' values."""
    name, problems = doc.scalar, []
    nulls = [m for m in _IF.finditer(src.code) if _refuses(m.group(2), "ACLNN_ERR_PARAM_NULLPTR") and re.fullmatch(
        rf"\s*(?:{name}\s*==\s*nullptr|nullptr\s*==\s*{name}|!\s*{name})\s*", m.group(1))]
    nulls += list(re.finditer(rf"\bOP_CHECK_NULL\(\s*{name}\s*,", src.code))
    if not nulls:
        problems.append(f"{src.rel}: nothing refuses a null {name}; {doc.said}")
    elif all(_called(src, m.start()) for m in nulls):
        caller = _called(src, nulls[0].start())
        problems.append(f"{src.at(nulls[0].start())}: {caller} refuses a null {name}, but nothing calls {caller}; "
                        f"{doc.said}")
    checks = [m for m in _IF.finditer(src.code) if _refuses(m.group(2), "ACLNN_ERR_PARAM_INVALID")
              and _mentions_string(m.group(1), name)]
    if not checks:
        return [*problems, f"{src.rel}: nothing refuses {name} outside {_quoted(doc.values)}; {doc.said}"]
    for m in checks:
        taken, shown = _compared(m.group(1), name), _SPACE.sub(" ", m.group(1)).strip()
        caller = _called(src, m.start())
        if taken is None:
            problems.append(f"{src.at(m.start())}: `if ({shown})` refuses {name}, not as `{name}` none of the "
                            f"values; {doc.said}")
        elif sorted(taken) != sorted(doc.values):
            problems.append(f"{src.at(m.start())}: {name} may be {_quoted(taken) or 'nothing'}; {doc.said}")
        elif caller:
            problems.append(f"{src.at(m.start())}: {caller} refuses {name} outside {_quoted(taken)}, but nothing "
                            f"calls {caller}; {doc.said}")
    return problems


def _axis_refusal(src: Source, name: str, tensor: str, docs: str) -> str:
    """The docs say `name` is an axis of `tensor`: a called check refuses a value below -rank or from rank up."""
    said = f"the docs ({docs}) say {name} is an axis of {tensor}"
    pattern = re.compile(rf"\s*{name}\s*<\s*-\s*rank\s*\|\|\s*{name}\s*>=\s*rank\s*")
    checks = [m for m in _IF.finditer(src.code) if pattern.fullmatch(m.group(1))
              and re.search(r"\breturn\s+(?:false|ACLNN_ERR_PARAM_INVALID)\b", m.group(2))]
    if not checks:
        return f"{src.rel}: nothing refuses {name} outside [-rank, rank - 1]; {said}"
    caller = _called(src, checks[0].start())
    return f"{src.at(checks[0].start())}: {caller} refuses {name}, but nothing calls {caller}; {said}" if caller else ""


def _undocumented(src: Source, scalars: list[str], docs: str) -> list[str]:
    """Refusals of a scalar below a bound the docs do not state: callers cannot know the call fails."""
    problems = []
    for m in _IF.finditer(src.code):
        refuses = re.search(r"\breturn\s+(?:false|ACLNN_ERR_PARAM_INVALID)\b", m.group(2))
        for name in scalars:
            if refuses and any(re.fullmatch(rf"{name}(?:\s*->\s*To\w+\(\))?\s*<.*", t) for t in _terms(m.group(1))):
                problems.append(f"{src.at(m.start())}: `if ({_SPACE.sub(' ', m.group(1)).strip()})` refuses {name}, "
                                f"the docs ({docs}) state no bound for it")
            elif refuses and _mentions_string(m.group(1), name):
                problems.append(f"{src.at(m.start())}: `if ({_SPACE.sub(' ', m.group(1)).strip()})` refuses {name}, "
                                f"the docs ({docs}) list no values for it")
    return problems


def rules_item(op_dir: Path, plan: RenderPlan, scalars: list[str]) -> CheckItem:
    """Each rule the docs' parameter table states is in the wrapper: a called refusal, or a clamp before the l0
    call, with the docs' bound and flag; a called refusal of a null string and of one none of the docs' values."""
    assert plan.aclnn is not None
    rels = (f"{plan.aclnn_parts.sources}/{plan.aclnn.file_stem}.cpp", f"{plan.aclnn_parts.docs}/"
            f"{plan.aclnn.function}.md")
    wrapper, docs = read_source(op_dir, rels[0]), op_dir / rels[1]
    if wrapper is None or not docs.is_file():
        return skipped(LABEL, f"{', '.join(r for r in rels if not (op_dir / r).is_file())} missing (see structure)")
    text = docs.read_text(encoding="utf-8")
    rules, strings = read_doc_rules(text, rels[1], scalars), read_doc_values(text, rels[1], scalars)
    axes = {row.group(1): axis.group(1) for row in _ROW.finditer(text)
            if row.group(1) in scalars and (axis := _AXIS.search(row.group(2)))}
    problems = [p for r in rules if (p := _clamp(wrapper, r, plan.op_type) if r.clamp else _refusal(wrapper, r))]
    problems += [p for d in strings for p in _string_refusals(wrapper, d)]
    problems += [p for name, tensor in axes.items() if (p := _axis_refusal(wrapper, name, tensor, rels[1]))]
    stated = {r.scalar for r in rules} | {d.scalar for d in strings} | set(axes)
    problems += _undocumented(wrapper, [s for s in scalars if s not in stated], rels[1])
    seen = [f"{r.scalar} >= {_shown(r.minimum)}{f' while {r.when}' if r.when else ''} "
            f"({'clamped' if r.clamp else 'refused'})" for r in rules]
    seen += [f"{d.scalar} one of {_quoted(d.values)} (others and nullptr refused)" for d in strings]
    seen += [f"{name} an axis of {tensor} (others refused)" for name, tensor in axes.items()]
    return verdict(LABEL, problems, "; ".join(seen) or "no scalar rules")
