"""Recipe ops a kernel family has no single call for, rewritten as the steps it has.

classic (AscendC): tanh, sigmoid, erf and sign are adv_api calls (with a shared temp buffer); neg, log1p and
softplus become basic steps. arch35 (atvoss Vec::): only erf is a node; the others become basic steps, sign
by comparisons and selects. arch35_b16 is arch35 where every tensor is 16-bit: erf too becomes basic steps, the
Pade form AscendC::Erf takes by default, as upstream's 16-bit kernels call it. The golden and the emulator run the
lowered steps, as the kernel does (erf as math.erf: the Pade form is within float32's rounding of it).
"""

from __future__ import annotations

from collections.abc import Callable

from ...spec.recipe import Step

NATIVE: dict[str, frozenset[str]] = {
    "classic": frozenset({"tanh", "sigmoid", "erf", "sign"}),
    "arch35": frozenset({"erf"}),
    "arch35_b16": frozenset(),
    "split": frozenset(),  # a split kernel's loop is registers only: no DAG node to leave a step to
}
Fresh = Callable[[str], str]


def lower(steps: tuple[Step, ...], dialect: str) -> tuple[Step, ...]:
    """The steps with every op the kernel family's dialect lacks expanded; each temp a fresh name (`<out>_<part>`)."""
    taken = {s.out for s in steps} | {a for s in steps for a in s.tensor_args}

    def fresh(hint: str) -> str:
        name = hint
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    lowered: list[Step] = []
    for step in steps:
        if step.op in _EXPANSIONS and step.op not in NATIVE[dialect]:
            lowered.extend(_EXPANSIONS[step.op](step, fresh))
        else:
            lowered.append(step)
    return tuple(lowered)


def _neg(step: Step, fresh: Fresh) -> list[Step]:
    return [Step(step.out, "muls", (step.args[0], -1.0))]


def _log1p(step: Step, fresh: Fresh) -> list[Step]:
    """log(w) * a / (w - 1) with w = 1 + a (exact where w - 1 is, Goldberg's trick), a where w == 1 and plain
    log(w) from w >= 2**24 on (the factor is 1 there; a = inf would make it inf / inf)."""
    a = step.args[0]
    w, log, d, q, p, exact, p1, small = (fresh(f"{step.out}_{n}") for n in
                                         ("w", "log", "d", "q", "p", "exact", "p1", "small"))
    return [Step(w, "adds", (a, 1.0)), Step(log, "log", (w,)), Step(d, "adds", (w, -1.0)), Step(q, "div", (a, d)),
            Step(p, "mul", (log, q)), Step(exact, "eq", (d, 0.0)), Step(p1, "select", (exact, a, p)),
            Step(small, "lt", (w, 16777216.0)), Step(step.out, "select", (small, p1, log))]


def _softplus(step: Step, fresh: Fresh) -> list[Step]:
    """relu(a) + log1p(exp(-|a|)): no overflow for large a, no cancellation for very negative a."""
    a = step.args[0]
    pos, mag, neg, exp, log = (fresh(f"{step.out}_{p}") for p in ("pos", "abs", "neg", "exp", "log"))
    return [Step(pos, "relu", (a,)), Step(mag, "abs", (a,)), Step(neg, "muls", (mag, -1.0)), Step(exp, "exp", (neg,)),
            *_log1p(Step(log, "log1p", (exp,)), fresh), Step(step.out, "add", (pos, log))]


def _tanh(step: Step, fresh: Fresh) -> list[Step]:
    """1 - 2 / (exp(2a) + 1) (exp overflowing gives 1, underflowing -1); below |a| = 1/16, where that loses
    digits to cancellation, a * (1 - a**2 / 3)."""
    a = step.args[0]
    parts = ("2x", "exp", "1p", "inv", "m2", "far", "abs", "near", "sq", "t3", "f", "taylor")
    twice, exp, one_plus, inv, scaled, far, mag, near, sq, third, factor, taylor = (
        fresh(f"{step.out}_{p}") for p in parts)
    return [Step(twice, "muls", (a, 2.0)), Step(exp, "exp", (twice,)), Step(one_plus, "adds", (exp, 1.0)),
            Step(inv, "reciprocal", (one_plus,)), Step(scaled, "muls", (inv, -2.0)), Step(far, "adds", (scaled, 1.0)),
            Step(mag, "abs", (a,)), Step(near, "lt", (mag, 0.0625)), Step(sq, "mul", (a, a)),
            Step(third, "muls", (sq, -1.0 / 3.0)), Step(factor, "adds", (third, 1.0)), Step(taylor, "mul", (a, factor)),
            Step(step.out, "select", (near, taylor, far))]


def _sigmoid(step: Step, fresh: Fresh) -> list[Step]:
    """1 / (1 + exp(-a))."""
    neg, exp, one_plus = (fresh(f"{step.out}_{p}") for p in ("neg", "exp", "1p"))
    return [Step(neg, "muls", (step.args[0], -1.0)), Step(exp, "exp", (neg,)), Step(one_plus, "adds", (exp, 1.0)),
            Step(step.out, "reciprocal", (one_plus,))]


def _sign(step: Step, fresh: Fresh) -> list[Step]:
    """a > 0 ? 1 : (a < 0 ? -1 : 0): NaN and -0 give 0, as AscendC's Sign and torch.sign do."""
    a = step.args[0]
    pos, neg, one, minus, low = (fresh(f"{step.out}_{p}") for p in ("gt0", "lt0", "one", "m1", "lo"))
    return [Step(pos, "gt", (a, 0.0)), Step(neg, "lt", (a, 0.0)), Step(one, "fill", (1.0,)),
            Step(minus, "fill", (-1.0,)), Step(low, "select", (neg, minus, 0.0)),
            Step(step.out, "select", (pos, one, low))]


# asc-devkit impl/adv_api/detail/math/erf/erf_3510_impl.h (ErfPadeCompute): x clipped to [-3.92, 3.92], then
# erf(x) = P(x) / Q(x) with P odd of degree 11 and Q even of degree 10, both Horner chains in x^2
ERF_CLIP = 3.92
ERF_P = (0.053443748819, 7.5517016694, 101.62808918, 1393.8061484, 5063.7915060, 29639.384698)
ERF_Q = (31.212858877, 398.56963806, 3023.1248150, 13243.365831, 26267.224157)


def _erf_pade(step: Step, fresh: Fresh) -> list[Step]:
    """AscendC::Erf's Pade form, a register chain: P(x) / Q(x) over the clipped x (see ERF_P, ERF_Q)."""
    hi, x, sq = (fresh(f"{step.out}_{p}") for p in ("hi", "x", "sq"))
    steps = [Step(hi, "mins", (step.args[0], ERF_CLIP)), Step(x, "maxs", (hi, -ERF_CLIP)), Step(sq, "mul", (x, x))]
    p = fresh(f"{step.out}_p5")
    steps.append(Step(p, "muls", (sq, ERF_P[0])))
    for k, coefficient in enumerate(ERF_P[1:]):
        added, times = fresh(f"{step.out}_p{4 - k}"), fresh(f"{step.out}_p{4 - k}x")
        steps += [Step(added, "adds", (p, coefficient)), Step(times, "mul", (added, sq if k < 4 else x))]
        p = times
    q = sq
    for k, coefficient in enumerate(ERF_Q):
        added = fresh(f"{step.out}_q{4 - k}")
        steps.append(Step(added, "adds", (q, coefficient)))
        q = added
        if k < len(ERF_Q) - 1:
            q = fresh(f"{step.out}_q{4 - k}x")
            steps.append(Step(q, "mul", (added, sq)))
    return [*steps, Step(step.out, "div", (p, q))]


_EXPANSIONS: dict[str, Callable[[Step, Fresh], list[Step]]] = {
    "neg": _neg, "log1p": _log1p, "softplus": _softplus, "tanh": _tanh, "sigmoid": _sigmoid, "sign": _sign,
    "erf": _erf_pade,
}
