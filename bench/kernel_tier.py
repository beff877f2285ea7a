"""Measure the kernel tier's cost per op (compile level): cold (empty compile cache) and warm (unchanged op).

OPGEN_CANN_SRC=/tmp/cann_src python bench/kernel_tier.py [--jobs 2] [--keep-intrinsics]

Cold runs with a fresh XDG cache dir, so the intrinsic declarations are derived again too, unless
--keep-intrinsics copies the current derived declarations in first (the cost a user sees after the first op).
Warm is the same call again: every variant is a cache hit. Goal: warm well under 3 minutes per op on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opgen.cann_sources import cache_root, resolve_sources  # noqa: E402
from opgen.check.kernel.tier import kernel_tier  # noqa: E402
from opgen.plan import build_plan  # noqa: E402
from opgen.spec.load import load_spec  # noqa: E402

OPS = {
    "gelu_grad": ("experimental/activation/gelu_grad", "gelu_grad.yaml"),
    "relu_grad_v2": ("activation/relu_grad_v2", "relu_grad_v2.yaml"),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep-intrinsics", action="store_true")
    args = parser.parse_args()
    sources = resolve_sources()
    if sources is None:
        sys.exit("set OPGEN_CANN_SRC (README 'Getting the CANN sources')")
    user_cache = cache_root()
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as scratch:
        os.environ["XDG_CACHE_HOME"] = scratch
        os.environ.pop("OPGEN_CACHE", None)  # it would win over XDG_CACHE_HOME
        if args.keep_intrinsics and (user_cache / "kernel-intrinsics").is_dir():
            shutil.copytree(user_cache / "kernel-intrinsics", Path(scratch) / "opgen" / "kernel-intrinsics")
        print(f"{'op':<14}{'variants':>9}{'cold s':>9}{'warm s':>9}{'warm/cold':>11}")
        for name, (rel, spec_name) in OPS.items():
            op_dir = ROOT / "generated_samples" / rel
            plan = build_plan(load_spec(ROOT / "schemas" / spec_name).spec, spec_name)
            times, rows = [], 0
            for _ in ("cold", "warm"):
                start = time.perf_counter()
                items = kernel_tier(op_dir, plan, sources, jobs=args.jobs)
                times.append(time.perf_counter() - start)
                rows = len(items)
                bad = [i for i in items if i.status == "fail"]
                if bad:
                    print(f"  {name}: {len(bad)} failing rows, e.g. {bad[0].item}: {bad[0].reason}")
            print(f"{name:<14}{rows:>9}{times[0]:>9.1f}{times[1]:>9.1f}{times[1] / times[0]:>11.3f}")


if __name__ == "__main__":
    main()
