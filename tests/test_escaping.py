"""Spec text never becomes code: hostile text in every free-text field, then every generated file is scanned.

C++ is parsed with tree-sitter (the text may only sit in comments and string literals), Python is tokenized
(no injected name, no changed encoding), CMake text sits after `#`, Markdown has no raw HTML, no broken
table row and no early end of a math block, JSON and CSV parse with the expected shape.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
import tree_sitter_cpp
from conftest import GELU, RELU, SCHEMAS, copy_spec
from ruamel.yaml import YAML
from tree_sitter import Language, Node, Parser

from opgen.generate import render_loaded
from opgen.plan.registry.text import SpecText, cpp_comment, hash_comment, md_inline, md_math
from opgen.spec.load import LoadedSpec, load_spec, parse_spec

# each attack carries a marker word `injected...`: it must never appear outside comments and strings
ATTACKS = (  # the first is line 1 of golden.py's license header, where PEP 263 reads an encoding
    "-*- coding: utf-7 -*- +AAo-injected_f = 5",
    "x */ int injected_a = 1; /*",
    "ends in a splice \\",
    "trigraph splice ??/",
    "two\nint injected_b = 2;\r\nint injected_c = 3;\u2028int injected_d = 4;\x85int injected_e;",
    "<script>injected_g()</script> <img src=x onerror=injected_h>",
    "cell | injected_i | more",
    "$$ injected_j $$ <b>injected_k</b>",
    "\"\"\" injected_l = 1 '''",
    "{{ injected_m }} {% if injected_n %}",
    "# injected_o heading",
    "```\ninjected_p = 1\n```",
)
HOSTILE = " ".join(ATTACKS)
MARKER = re.compile(r"injected_[a-z]")
CPP_TEXT_NODES = {"comment", "string_literal", "raw_string_literal", "char_literal", "system_lib_string"}


def _hostile_spec(source: Path, license_lines: str | None = HOSTILE) -> str:
    yaml = YAML(typ="safe")
    data = yaml.load(source.read_text(encoding="utf-8"))
    data["brief"] = HOSTILE
    if license_lines is not None:
        data["license_header"] = "\n".join(ATTACKS)
    for tensor in [*data["inputs"], *data["outputs"]]:
        tensor["doc"] = HOSTILE
    data["docs"]["description"] = HOSTILE
    data["docs"]["formula"] = HOSTILE
    data["docs"]["notes"] = list(ATTACKS)
    data["docs"]["products"] = [{"name": attack, "supported": True} for attack in ATTACKS]
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    return buffer.getvalue()


def _render(text: str) -> dict[str, bytes]:
    return render_loaded([LoadedSpec(parse_spec(text, "hostile.yaml"), Path("hostile.yaml"), text)])[0].files


def _cpp_code_leaves(node: Node) -> Iterator[Node]:
    if node.type in CPP_TEXT_NODES:
        return
    if node.child_count == 0:
        yield node
    for child in node.children:
        yield from _cpp_code_leaves(child)


def _problems(path: str, data: bytes) -> list[str]:
    text = data.decode("utf-8")
    found = []
    if path.endswith((".cpp", ".h")):
        tree = Parser(Language(tree_sitter_cpp.language())).parse(data)
        found += [f"code token {leaf.text!r}" for leaf in _cpp_code_leaves(tree.root_node)
                  if leaf.text and MARKER.search(leaf.text.decode())]
        found += [f"line {i} ends in a splice" for i, line in enumerate(text.splitlines(), 1)
                  if line.rstrip().endswith("\\") and "//" in line]
        found += [f"line {i}: '*/' closes a comment early" for i, line in enumerate(text.splitlines(), 1)
                  if MARKER.search(line) and "*/" in line.split("injected", 1)[0]]
    elif path.endswith(".py"):
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        found += [] if encoding == "utf-8" else [f"encoding changed to {encoding}"]
        tokens = tokenize.tokenize(io.BytesIO(data).readline)
        found += [f"code token {t.string!r}" for t in tokens if t.type == tokenize.NAME and MARKER.search(t.string)]
    elif path.endswith("CMakeLists.txt"):
        for i, line in enumerate(text.splitlines(), 1):
            if MARKER.search(line) and not line.lstrip().startswith("# "):
                found.append(f"line {i} is not a comment: {line!r}")
    elif path.endswith(".md"):
        found += _markdown_problems(text)
    elif path.endswith(".json"):
        json.loads(text)
    elif path.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(text)))
        found += [f"row {i} has {len(r)} cells" for i, r in enumerate(rows) if len(r) != len(rows[0])]
    return found


def _markdown_problems(text: str) -> list[str]:
    found = []
    if re.search(r"<\s*(script|img|b)\b", text, re.IGNORECASE):
        found.append("raw HTML")
    lines = text.splitlines()
    fences = [i for i, line in enumerate(lines) if line.strip() == "$$"]
    found += [] if len(fences) % 2 == 0 else ["a $$ block is not closed"]
    for start, end in zip(fences[::2], fences[1::2], strict=True):
        body = "\n".join(lines[start + 1:end])
        found += [f"math line {start + 2} holds an unescaped $"] if re.search(r"(?<!\\)\$", body) else []
    header_cells = 0
    for i, line in enumerate(lines, 1):
        if not line.startswith("|"):
            header_cells = 0
            continue
        cells = len(re.findall(r"(?<!\\)\|", line))
        header_cells = header_cells or cells
        found += [f"table row {i} has {cells} bars, header {header_cells}"] if cells != header_cells else []
    found += [f"line {i} starts a block: {line!r}" for i, line in enumerate(lines, 1)
              if MARKER.search(line) and re.match(r"^(#|```|~~~|>)", line)]
    return found


@pytest.mark.parametrize("source", [RELU, GELU], ids=["arch35", "classic"])
def test_hostile_text_in_every_field_never_becomes_code(source: Path) -> None:
    files = _render(_hostile_spec(source))
    carriers = [p for p, data in files.items() if MARKER.search(data.decode("utf-8")) and "/.opgen/" not in f"/{p}"]
    kinds = {Path(p).suffix or Path(p).name for p in carriers}
    assert {".cpp", ".h", ".py", ".md", ".txt"} <= kinds, kinds  # the text reached every file type
    problems = {path: found for path, data in files.items() if not path.startswith(".opgen/")
                if (found := _problems(path, data))}
    assert problems == {}


def test_hostile_text_tree_passes_the_syntax_tier(tmp_path: Path) -> None:
    from opgen.check.syntax_tier import syntax_tier

    for rel, data in _render(_hostile_spec(GELU)).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    assert [(i.item, i.reason) for i in syntax_tier(tmp_path) if i.status == "fail"] == []


def test_the_scan_finds_unescaped_text() -> None:
    """The scanners are not blind: raw attack text placed as a blueprint would is reported in every file type."""
    raw = "x */ int injected_a = 1; /*"
    assert _problems("k.h", f"/**\n * {raw}\n */\nint b;\n".encode())
    assert _problems("k.cpp", b"// ends \\\nint injected_b = 1;\n")
    assert _problems("golden.py", b"# -*- coding: utf-7 -*-\n+AAo-injected_f = 5\n")
    assert _problems("golden.py", b"# a\ninjected_b = 2\n")
    assert _problems("CMakeLists.txt", b"# a\ninjected_b()\n")
    assert _problems("README.md", b"<script>injected_g()</script>\n")
    assert _problems("README.md", b"| a | b |\n| x | cell | injected_i |\n")
    assert _problems("README.md", b"$$\n$$ injected_j $$\n$$\n")
    assert _problems("README.md", b"# injected_o heading\n")


def test_each_escape_keeps_the_words() -> None:
    assert cpp_comment("a */ b /* c \\") == "a * / b / * c"
    assert hash_comment("# -*- coding: utf-8 -*-\nx") == "# -*- coding : utf-8 -*- x"
    assert md_inline("a <b> | c & d") == "a &lt;b&gt; \\| c &amp; d"
    assert md_inline("- item") == "\\- item"
    assert md_math("x < y $$ z") == "x \\lt  y \\$\\$ z"
    with pytest.raises(TypeError, match="unescaped"):
        str(SpecText("brief"))


def test_samples_keep_their_text() -> None:
    """Ordinary text passes through unchanged: the formulas' LaTeX (`&`, `\\\\`) and the product names."""
    spec = load_spec(RELU).spec
    assert md_math(spec.docs.formula) == spec.docs.formula
    assert all(md_inline(p.name) == p.name for p in spec.docs.products)


@pytest.mark.parametrize("escape", ["cpp_comment", "hash_comment", "md_inline", "md_math"])
def test_without_an_escape_the_scan_fails(monkeypatch: pytest.MonkeyPatch, escape: str) -> None:
    """Injected fault: one escape turned into the identity lets attack text through, and the scan says so."""
    import opgen.plan.registry.text

    monkeypatch.setattr(opgen.plan.registry.text, escape, lambda text: text)
    files = _render(_hostile_spec(GELU))
    assert any(_problems(path, data) for path, data in files.items() if not path.startswith(".opgen/"))


def test_a_pipe_in_an_attr_doc_keeps_the_tables_and_check_reads_them(run, tmp_path: Path) -> None:
    """`a | b` in the doc of an attr an aclnn scalar sets: the docs' table row escapes it, and the consistency
    tier, reading which parameter sets the attr and what it refuses, still finds the row's cells."""
    spec = copy_spec(SCHEMAS / "leaky_relu_grad.yaml", tmp_path, lambda text: text.replace(
        "doc: The slope for negative features.}", "doc: The slope a | b for negative features.}"))
    out = tmp_path / "out"
    assert run("gen", spec, "-o", out).code == 0
    docs = (out / "activation/leaky_relu_grad/docs/aclnnLeakyReluBackward.md").read_text(encoding="utf-8")
    assert "| negativeSlope | input | The slope a \\| b for negative features. It sets attr negative_slope" in docs
    checked = run("check", out / "activation/leaky_relu_grad", "--spec", spec)
    assert checked.code == 0, checked.out
