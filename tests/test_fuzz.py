"""Whatever a user types into a spec, opgen answers with exit 0 and a complete tree, or exit 2 and one
message; never a traceback, a partial tree or a write outside the output root."""

from __future__ import annotations

import copy
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from conftest import GELU, RELU, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from opgen import cli

SPECS = {path.name: YAML(typ="safe").load(path.read_text(encoding="utf-8")) for path in (RELU, GELU)}

junk = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
    st.text(max_size=40), st.sampled_from(["../../etc", "/abs/path", "a/b", "..", "con", "x" * 300, "名字", " ",
                                           "\x00", "bfloat61", "float32", "uint1", "ascend910b"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.just(list(range(5000))),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


@st.composite
def mutated_specs(draw: st.DrawFn) -> str:
    data = copy.deepcopy(SPECS[draw(st.sampled_from(sorted(SPECS)))])
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(data)))
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["set", "delete", "add"]))
        if action == "set":
            parent[path[-1]] = copy.deepcopy(draw(junk))
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=8))] = copy.deepcopy(draw(junk))
    buffer = io.StringIO()
    YAML(typ="safe").dump(data, buffer)
    return buffer.getvalue()


TEXT_ATTACKS = [
    "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                                                    for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
    "op_type: " + "[" * 2000 + "]" * 2000 + "\n",
    "\top_type: X\n",
    "op_type: GeluGrad\n" * 3,
    "",
    "- just\n- a list\n",
    "op_type: {{ evil }}\n",
]


def _run_in(root: Path, spec_text: str | bytes) -> tuple[int, str]:
    spec = root.parent / "spec.yaml"
    spec.write_bytes(spec_text if isinstance(spec_text, bytes) else spec_text.encode("utf-8", "surrogatepass"))
    argv, sys.argv = sys.argv, ["opgen", "gen", str(spec), "-o", str(root)]
    err = io.StringIO()
    stderr, sys.stderr = sys.stderr, err
    code = 0
    try:
        cli.main()
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.argv, sys.stderr = argv, stderr
    return code, err.getvalue()


def _assert_answered(spec_text: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root = base / "out"
        (root / "keep").mkdir(parents=True)
        (root / "keep" / "file").write_text("x")
        before = snapshot(root)
        code, err = _run_in(root, spec_text)
        assert "Traceback" not in err
        assert sorted(p.name for p in base.iterdir()) == ["out", "spec.yaml"]  # nothing written beside the root
        if code == 2:
            first, *more = err.strip().splitlines()
            assert first.startswith("error:"), err
            assert not more or ("problems in this spec" in first and all(": " in line for line in more)), err
            assert snapshot(root) == before
        else:
            assert code == 0, err
            written = snapshot(root)
            assert before.items() <= written.items()
            assert not [p for p in root.rglob(".opgen*")]  # no staging leftovers, no record in the root
            records = Path(os.environ["OPGEN_RECORD_DIR"])
            assert [p for p in records.rglob("manifest.json") if (p.parent / "pristine").is_dir()]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # examples: conftest profile
@given(mutated_specs())
def test_mutated_specs_are_answered_cleanly(spec_text: str) -> None:
    _assert_answered(spec_text)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # examples: conftest profile
@given(st.binary(max_size=300) | st.text(max_size=300))
def test_arbitrary_bytes_are_answered_cleanly(raw: bytes | str) -> None:
    _assert_answered(raw)


def test_yaml_bombs_and_malformed_text_are_refused() -> None:
    for text in TEXT_ATTACKS:
        _assert_answered(text)


def test_an_interrupted_render_leaves_no_trace(tmp_path: Path) -> None:
    """SIGINT and SIGTERM in the middle of rendering: the output root is as it was."""
    root = tmp_path / "out"
    (root / "keep").mkdir(parents=True)
    (root / "keep" / "file").write_text("x")
    before = snapshot(root)
    scratch = tmp_path / "scratch"  # where this render stages its files
    scratch.mkdir()
    slow_main = (
        "import signal, sys, time, opgen.render as r\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"  # as a terminal leaves it, even in the background
        "def slow(self, paths):\n"
        "    print('rendering', flush=True)\n"
        "    time.sleep(30)\n"
        "r.CppFormatter.submit = slow\n"
        f"r._scratch_dir = lambda: {str(scratch)!r}\n"
        "from opgen.cli import main\n"
        f"sys.argv = ['opgen', 'gen', {str(GELU)!r}, '-o', {str(root)!r}]\n"
        "main()\n"
    )
    for sig in (signal.SIGINT, signal.SIGTERM):
        proc = subprocess.Popen([sys.executable, "-c", slow_main], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "rendering"
        time.sleep(0.2)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert err.strip() == "interrupted: nothing was changed"
        assert snapshot(root) == before
        assert list(scratch.iterdir()) == []
