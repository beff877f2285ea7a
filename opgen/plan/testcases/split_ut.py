"""The unit tests of a split kernel (arch35_split): none written yet, so the tree's test CMake lists no case for it.

Upstream's glu_grad UTs (a tiling key per shape mode, the odd split refused, the kernel per mode) are what these
become; until then `opgen check`'s kernel tier is what runs this family's kernel.
"""

from __future__ import annotations

from .kernel_ut import KernelUtPlan
from .ophost_tests import OphostUtPlan


def split_ut_plans(op_type: str, rel_dir: str) -> tuple[KernelUtPlan, OphostUtPlan]:
    kernel = KernelUtPlan(socs=(), flags="", includes=(), declarations=(), tiling_struct=f"{op_type}TilingData",
                          data_dir=f"{rel_dir}/tests/ut/op_kernel", golden_rel=f"{rel_dir}/tests/assets/golden.py",
                          workspace_bytes=0, gen_data_inputs=(), outputs=(), tolerances=(), cases=())
    ophost = OphostUtPlan(infershape_suite=f"{op_type}Infershape", infershape_cases=(), tiling_suites=(),
                          tiling_header="", attrs_struct_header="", compile_info=f"{op_type}CompileInfo")
    return kernel, ophost
