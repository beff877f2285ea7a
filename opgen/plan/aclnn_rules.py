"""Value rules on aclnn scalars (`min`, `on_violation`, `when`): the wrapper statements that refuse or clamp a
value below the bound, and the phrase the docs state the rule in (the consistency tier reads it back).

Upstream states such rules in the wrapper alone: aclnnSoftshrinkBackward refuses a negative lambd
(ACLNN_ERR_PARAM_INVALID with a log), aclnnHardshrinkBackward clamps it to 0 before the l0 call, and
aclnnLeakyReluBackward refuses a negative slope only while its `selfIsResult` flag is true.
"""

from __future__ import annotations

from dataclasses import dataclass

INVALID = "ACLNN_ERR_PARAM_INVALID"
LOG_FORMATS = {"float": "%f", "int": "%ld"}


@dataclass(frozen=True)
class ScalarRule:
    minimum: float  # an int for an int attr
    clamp: bool  # True: the l0 op gets the minimum; False: GetWorkspaceSize returns ACLNN_ERR_PARAM_INVALID
    when: str  # the bool parameter that switches the rule on, "" for always

    @property
    def shown(self) -> str:
        """The bound as the docs and the logs print it: 0, 0.5, -2."""
        return f"{self.minimum:g}"

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
