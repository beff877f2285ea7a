"""Measure opgen's speed on this machine and print a table with ratios to a copy-and-rename baseline.

python bench/run.py [--repeat N]

Each cold-process figure is the median of N runs of a fresh `python -m opgen ...` process, the way a
user or a pre-commit hook runs it. The baseline does what ops-nn's own generator does (copy an
existing op dir and rename names in paths and contents), also as a fresh process.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
SAMPLE_OP = ROOT / "generated_samples" / "experimental" / "activation" / "gelu_grad"
BATCH = 50

BASELINE = """
import re, shutil, sys
from pathlib import Path
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".opgen"))
for path in sorted(dst.rglob("*"), reverse=True):
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("gelu_grad", "swish_grad").replace("GeluGrad", "SwishGrad"), encoding="utf-8")
    if "gelu_grad" in path.name:
        path.rename(path.with_name(path.name.replace("gelu_grad", "swish_grad")))
"""


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds, and CPU seconds (user + system, its children included): on a busy machine the CPU
    figure stays close to what the command costs on an idle one, the wall figure does not."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_of(repeat: int, make_command, cwd: Path) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    runs = [timed(make_command(i), cwd) for i in range(repeat)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def batch_specs(target: Path) -> list[Path]:
    """50 valid specs varied from the samples: names, dtype subsets, SoC sets."""
    gelu = (SCHEMAS / "gelu_grad.yaml").read_text(encoding="utf-8")
    relu = (SCHEMAS / "relu_grad_v2.yaml").read_text(encoding="utf-8")
    variants = []
    for i in range(BATCH):
        if i % 2:
            text = relu.replace("ReluGradV2", f"BenchRelu{i}").replace("api: BenchRelu", "api: BenchRelu")
            if i % 4 == 1:  # one SoC only
                text = re.sub(r"  - soc: ascend350\n    kernel: arch35_dag\n    aicore: \{\}\n", "", text)
        else:
            text = gelu.replace("GeluGrad", f"BenchGelu{i}").replace("GeluBackward", f"BenchGelu{i}Backward")
            if i % 4 == 0:  # float32 and float16 only
                text = text.replace("[float32, float16, bfloat16]", "[float32, float16]")
        path = target / f"bench_{i}.yaml"
        path.write_text(text, encoding="utf-8")
        variants.append(path)
    return variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    load_before = os.getloadavg()[0]
    rows: list[tuple[str, tuple[float, float], str]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        new = median_of(args.repeat, lambda i: [python, "-m", "opgen", "new", f"BenchNew{i}", "--schemas",
                                                str(tmp / "s"), "-o", str(tmp / "new")], tmp)
        rows.append(("opgen new (cold process, full tree + record)", new, "target <= 0.6 s"))
        baseline = median_of(args.repeat, lambda i: [python, "-c", BASELINE, str(SAMPLE_OP),
                                                     str(tmp / "copy" / f"op{i}")], tmp)
        rows.append(("baseline: copy-and-rename a tree (cold process)", baseline, ""))
        specs = batch_specs(tmp)
        wall, cpu = timed([python, "-m", "opgen", "gen", *map(str, specs), "-o", str(tmp / "batch")], tmp)
        batch = (wall / BATCH, cpu / BATCH)
        rows.append((f"opgen gen of {BATCH} specs in one process, per op", batch, "target <= 0.10 s"))
        check = median_of(args.repeat, lambda i: [python, "-m", "opgen", "gen", "--check",
                                                  str(SCHEMAS / "relu_grad_v2.yaml"), str(SCHEMAS / "gelu_grad.yaml"),
                                                  "-o", str(ROOT / "generated_samples")], tmp)
        rows.append(("opgen gen --check on both samples", check, ""))
        try:
            op_check = median_of(args.repeat, lambda i: [python, "-m", "opgen", "check", str(SAMPLE_OP)], tmp)
            rows.append(("opgen check (offline tiers) on one op", op_check, "target <= 5 s"))
        except subprocess.CalledProcessError as error:
            nan = float("nan")
            rows.append(("opgen check (offline tiers) on one op", (nan, nan), f"failed: exit {error.returncode}"))
        helper = median_of(args.repeat, lambda i: [python, "-m", "opgen", "--help"], tmp)
        rows.append(("opgen --help", helper, "target <= 0.2 s"))
        shutil.rmtree(tmp / "batch", ignore_errors=True)
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'seconds':>8}  {'x baseline':>10}  {'cpu s':>7}  {'x baseline':>10}  note")
    for name, (wall, cpu), note in rows:
        ratios = f"{wall / baseline[0]:10.2f}  {cpu:7.3f}  {cpu / baseline[1]:10.2f}"
        print(f"{name:<{width}}  {wall:8.3f}  {ratios}  {note}")
    # figures from a busy machine are slow: say how busy it was
    print(f"load average (1 min) before / after: {load_before:.1f} / {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
