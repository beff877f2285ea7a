"""`license_header_from`: the target repo's headers copied verbatim per file type; the record keeps them, so
gen --check, check and regen need no checkout. The checkout here is synthetic: opgen holds no repo's text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import GELU, RELU, RELU_DIR, copy_spec, snapshot

C_HEADER = "/*\n * Copyright (c) 2030 Example Org.\n *\n *   Licensed under the Example License 9.\n */"
HASH_HEADER = "# ----\n# Copyright (c) 2030 Example Org.\n# Licensed under the Example License 9.\n# ----"
PY_HEADER = "# Copyright 2030 Example Org. (python)\n# Licensed under the Example License 9."
FROM = "license_header_from: {checkout: repo, cpp: src/a.cpp, python: scripts/t.py}"


def _checkout(root: Path, cpp: str = C_HEADER + "\n#include <a.h>\n") -> None:
    (root / "repo/src").mkdir(parents=True)
    (root / "repo/scripts").mkdir()
    (root / "repo/src/a.cpp").write_text(cpp, encoding="utf-8")
    (root / "repo/CMakeLists.txt").write_text(HASH_HEADER + "\ncmake_minimum_required(VERSION 3.16)\n",
                                              encoding="utf-8")
    (root / "repo/scripts/t.py").write_text("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n" + PY_HEADER
                                            + "\nimport os\n", encoding="utf-8")


def _expected_head(rel: str) -> str | None:
    if rel.endswith((".cpp", ".h")):
        return C_HEADER + "\n"
    if rel.endswith("CMakeLists.txt"):
        return HASH_HEADER + "\n"
    if rel.endswith("golden.py"):
        return PY_HEADER + "\n"
    if rel.endswith(("gen_data.py", "compare_data.py")):
        return "#!/usr/bin/env python3\n" + PY_HEADER + "\n"
    return None


def _spec(tmp_path: Path, source: Path = RELU, line: str = FROM) -> Path:
    return copy_spec(source, tmp_path, lambda t: t.replace("\ncategory:", f"\n{line}\ncategory:", 1))


def test_headers_are_copied_verbatim_per_file_type(run, tmp_path: Path) -> None:
    _checkout(tmp_path)
    result = run("gen", _spec(tmp_path), "-o", tmp_path / "out")
    assert result.code == 0, result.err
    files = {rel: data.decode() for rel, data in snapshot(tmp_path / "out" / RELU_DIR).items()}
    headed = {rel for rel in files if _expected_head(rel)}
    assert len(headed) >= 20 and any(r.endswith(".py") for r in headed)
    for rel in headed:
        assert files[rel].startswith(_expected_head(rel) or ""), rel
    assert {rel for rel, text in files.items() if re.search(r"opgen|SPDX|Apache", text)} == set()


def test_the_record_keeps_the_headers_so_nothing_needs_the_checkout(run, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _checkout(tmp_path)
    spec, out = _spec(tmp_path), tmp_path / "out"
    assert run("gen", spec, "-o", out).code == 0
    made = snapshot(out)
    shutil.rmtree(tmp_path / "repo")
    assert run("gen", "--check", "--strict", spec, "-o", out).code == 0
    checked = run("check", out / RELU_DIR, "--tier", "structure", "--tier", "consistency")
    assert checked.code == 0, checked.out + checked.err
    regen = run("regen", spec, "-o", out)
    assert regen.code == 0, regen.err
    assert snapshot(out) == made


def test_a_missing_checkout_is_refused_by_field_and_nothing_written(run, tmp_path: Path) -> None:
    result = run("gen", _spec(tmp_path), "-o", tmp_path / "out")
    assert result.code == 2
    assert re.search(r"relu_grad_v2\.yaml:\d+: license_header_from\.checkout: 'repo' is not a directory .*give the "
                     r"root of the target repo's checkout", result.err), result.err
    assert not (tmp_path / "out").exists()


def test_a_file_without_a_header_is_refused_by_field(run, tmp_path: Path) -> None:
    _checkout(tmp_path, cpp="#include <a.h>\n/* Copyright later */\n")
    result = run("gen", _spec(tmp_path, GELU), "-o", tmp_path / "out")
    assert result.code == 2
    assert "license_header_from.cpp: 'src/a.cpp' opens with no header" in result.err
    assert "name a file of the checkout that has one" in result.err
    assert not (tmp_path / "out").exists()


def test_license_header_from_with_another_header_is_refused(run, tmp_path: Path) -> None:
    _checkout(tmp_path)
    result = run("gen", _spec(tmp_path, line=FROM + "\nlicense_header: x"), "-o", tmp_path / "out")
    assert result.code == 2
    assert "license_header_from: give license_header_from, license_header or license_header_file" in result.err
