"""A string attr choosing the math: each of its values picks the compute variant of that name.

Upstream GeluGradV2's `approximate` ("none" | "tanh"): one DAG per value, the tiling reading the string and
setting a TPL argument the kernel branches on. Without such an attr each platform names its variant.
"""

from __future__ import annotations

from .models import AttrSpec, OpSpec, PlatformSpec


def choice_attr(spec: OpSpec) -> AttrSpec | None:
    """The string attr whose values pick the compute variant (the spec check allows one)."""
    return next((a for a in spec.attrs if a.type == "string" and a.values), None)


def platform_variants(spec: OpSpec, platform: PlatformSpec) -> tuple[str, ...]:
    """The compute variants a platform's kernel runs: every value of the choice attr, else its own."""
    choice = choice_attr(spec)
    return choice.values if choice else (platform.compute_variant,)
