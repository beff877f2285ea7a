"""An attr choosing the math: each value of a string attr picks the compute variant of its name (upstream
GeluGradV2's `approximate`, "none" | "tanh"); a bool attr names the variant each of its values picks
(upstream EluGradV2's `is_result`). One DAG per value, the tiling reading the attr and setting a TPL argument
the kernel branches on. Without such an attr each platform names its variant.
"""

from __future__ import annotations

from .models import AttrSpec, OpSpec, PlatformSpec


def choice_attr(spec: OpSpec) -> AttrSpec | None:
    """The attr whose values pick the compute variant (the spec check allows one)."""
    return next((a for a in spec.attrs if (a.type == "string" and a.values) or (a.type == "bool" and a.variants)),
                None)


def choice_options(attr: AttrSpec) -> tuple[tuple[str | bool, str], ...]:
    """(value, the compute variant it picks) in TPL order: a string attr's values, or false then true."""
    if attr.type == "bool":
        return tuple((value, attr.variants[value]) for value in (False, True) if value in attr.variants)
    return tuple((value, value) for value in attr.values)


def choice_label(name: str, value: str | bool) -> str:
    """What names a value's test cases, ST rows and DAG: a string value itself, a bool's `<attr>_true|false`."""
    return value if isinstance(value, str) else f"{name}_{'true' if value else 'false'}"


def platform_variants(spec: OpSpec, platform: PlatformSpec) -> tuple[str, ...]:
    """The compute variants a platform's kernel runs: every variant the choice attr picks, else its own."""
    choice = choice_attr(spec)
    return tuple(v for _, v in choice_options(choice)) if choice else (platform.compute_variant,)
