"""Value rules on aclnn scalars (`min`, `on_violation`, `when`; a char*'s values): the wrapper statements that
refuse or clamp a value below the bound, or refuse a string none of the values, and the phrase the docs state the
rule in (the consistency tier reads it back).

Upstream states such rules in the wrapper alone: aclnnSoftshrinkBackward refuses a negative lambd
(ACLNN_ERR_PARAM_INVALID with a log), aclnnHardshrinkBackward clamps it to 0 before the l0 call, and
aclnnLeakyReluBackward refuses a negative slope only while its `selfIsResult` flag is true;
aclnnGeluBackwardV2 refuses a null `approximate` (ACLNN_ERR_PARAM_NULLPTR) and one that is not "none" or "tanh".
"""

from __future__ import annotations

from dataclasses import dataclass

INVALID = "ACLNN_ERR_PARAM_INVALID"
NULLPTR = "ACLNN_ERR_PARAM_NULLPTR"
LOG_FORMATS = {"float": "%f", "int": "%ld"}


@dataclass(frozen=True)
class ScalarRule:
    minimum: float  # an int for an int attr
    clamp: bool  # True: the l0 op gets the minimum; False: GetWorkspaceSize returns ACLNN_ERR_PARAM_INVALID
    when: str  # the bool parameter that switches the rule on, "" for always

    @property
    def shown(self) -> str:
        """The bound as the docs and the logs print it, the shortest text that reads back as the spec's value (0,
        0.5, -2, 0.1234567891): the wrapper's literal is spelled from it, so both state the same number."""
        if isinstance(self.minimum, int):
            return str(self.minimum)
        text = repr(float(self.minimum))
        return text.removesuffix(".0")

    def literal(self, single: bool) -> str:
        """The bound as the wrapper's C++ literal, the docs' digits: `0.1234567891f` (`single`: a float32 compare),
        `0.5` (a double compare), `-2` (an int)."""
        if isinstance(self.minimum, int):
            return self.shown
        text = self.shown if any(c in self.shown for c in ".e") else f"{self.shown}.0"
        return f"{text}f" if single else text

    @property
    def docs_text(self) -> str:
        """The docs' statement of the rule, in the words `opgen/check/aclnn_rules.py` reads back."""
        effect = f"it is taken as {self.shown}" if self.clamp else f"it is refused ({INVALID})"
        return f"{self._while}below {self.shown} {effect}"

    @property
    def _while(self) -> str:
        return f"when {self.when} is true, " if self.when else ""

    def flag_text(self, scalar: str) -> str:
        """What the flag's docs row says the rule does."""
        effect = f"is taken as {self.shown}" if self.clamp else f"is refused ({INVALID})"
        return f"{scalar} below {self.shown} {effect}"

    def condition(self, value: str, guard: str = "") -> str:
        """`selfIsResult && negativeSlope->ToFloat() < 0.0f`: the value breaks the rule."""
        return " && ".join(part for part in (self.when, guard, value) if part)

    def check_lines(self, name: str, read: str, bound: str, kind: str, guard: str) -> tuple[str, ...]:
        """CheckScalarValue's refusal, with a log naming the value and the bound, as upstream's."""
        after = f" when {self.when} is true" if self.when else ""
        return (f"if ({self.condition(f'{read} < {bound}', guard)}) {{",
                f'    OP_LOGE({INVALID}, "{name} must be at least {self.shown}{after}, but is {LOG_FORMATS[kind]}.", '
                f"{read});",
                "    return false;", "}")

    def clamp_lines(self, var: str, bound: str) -> tuple[str, ...]:
        """After the conversion: the l0 op gets the bound instead of a value below it."""
        return (f"if ({self.condition(f'{var} < {bound}')}) {{", f"    {var} = {bound};", "}")


@dataclass(frozen=True)
class ValuesRule:
    """A char* parameter's rule: not nullptr, and one of its string attr's values (case-sensitive, as the tiling
    compares), as upstream aclnnGeluBackwardV2 checks approximate is "none" or "tanh"."""

    values: tuple[str, ...]

    @property
    def shown(self) -> str:
        """`"none", "tanh"`: the values as the docs list them (and the check reads them back)."""
        return ", ".join(f'"{v}"' for v in self.values)

    @property
    def docs_text(self) -> str:
        """The docs' statement of the rule, in the words `opgen/check/aclnn_rules.py` reads back."""
        return f"nullptr is refused ({NULLPTR}); one of {self.shown}, any other value is refused ({INVALID})"

    def null_lines(self, name: str) -> tuple[str, ...]:
        """CheckNotNull's refusal of a null string (OP_CHECK_NULL has no char* overload)."""
        return (f"if ({name} == nullptr) {{",
                f'    OP_LOGE({NULLPTR}, "{name} must be one of {", ".join(self.values)}, but is nullptr.");',
                "    return false;", "}")

    def check_lines(self, name: str) -> tuple[str, ...]:
        """CheckScalarValue's refusal of a string that is none of the values, with a log naming it."""
        differs = " && ".join(f'strcmp({name}, "{v}") != 0' for v in self.values)
        return (f"if ({differs}) {{",
                f'    OP_LOGE({INVALID}, "{name} must be one of {", ".join(self.values)}, but is %s.", {name});',
                "    return false;", "}")

    @property
    def outside(self) -> str:
        """A value the wrapper refuses, for the op_api UT: none of the values."""
        return next(v for v in (f"unknown{k or ''}" for k in range(len(self.values) + 1)) if v not in self.values)
