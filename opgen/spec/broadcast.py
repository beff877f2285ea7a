"""What `infershape.rule: broadcast` asks of the rest of a spec.

Only the arch35 DAG kernel family broadcasts (`Vec::CopyInBrc` + atvoss `BroadcastSch`, as upstream
softplus_grad and leaky_relu_grad); no upstream classic activation-grad kernel does, so a classic platform
keeps same shapes and lets the aclnn broadcast before the l0 op.
"""

from __future__ import annotations

from .issues import SpecIssue
from .models import OpSpec

CLASSIC_REFUSAL = ("the classic and classic_arch35 kernels do not broadcast (they read every input as long as the "
                   "output; no upstream classic activation-grad kernel broadcasts); use kernel arch35_dag, or "
                   "infershape rule elementwise and let the aclnn broadcast (aclnn.broadcast: true)")


def broadcast_issues(spec: OpSpec) -> list[SpecIssue]:
    if spec.infershape.rule != "broadcast":
        return []
    issues = [SpecIssue(("platforms", i, "kernel"), f"infershape rule broadcast: {CLASSIC_REFUSAL}")
              for i, p in enumerate(spec.platforms) if p.kernel in ("classic", "classic_arch35")]
    if spec.constraints.same_shape:
        issues.append(SpecIssue(("constraints", "same_shape"), "contradicts infershape rule broadcast (the "
                                "inputs may broadcast); remove it, or use infershape rule elementwise"))
    inputs = {t.name for t in spec.inputs}
    issues += [SpecIssue(("constraints", "broadcast", j), f"{name!r} is not an input; only inputs broadcast")
               for j, name in enumerate(spec.constraints.broadcast) if name not in inputs
               and name in {t.name for t in spec.outputs}]
    return issues
