"""The README and docs/: the README stays a five-minute read that links every docs page; every link and
anchor resolves; every `opgen` command they show parses with opgen's own argument parser, and those that run
offline in a moment (version, help, schema, gen --check of the committed samples) run and succeed."""

from __future__ import annotations

import glob
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from conftest import ROOT
from typer._click.exceptions import MissingParameter, UsageError  # typer 0.29 carries its own click (pinned)

from opgen.commands import app

DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.DOTALL)
_SPAN = re.compile(r"`(opgen [^`]+)`")
# placeholders of the syntax lines (`opgen gen SPEC... [-o ROOT]`) and the values they stand for
_PLACEHOLDERS = {"SPEC": "schemas/gelu_grad.yaml", "OP_DIR": "generated_samples/activation/relu_grad_v2",
                 "OP_TYPE": "SwishGrad", "DIR": "/tmp/x", "ROOT": "/tmp/x", "FILE": "/tmp/x.json", "C": "activation",
                 "PATH": "/tmp/x", "SOC": "ascend950", "TOOLKIT": "/tmp/x", "NAME": "structure", "N": "2",
                 "OP_DIR/": "generated_samples/activation/relu_grad_v2"}


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.MULTILINE)}


def test_the_readme_is_a_five_minute_read_linking_every_docs_page() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    assert DOCS and all(f"(docs/{page.name})" in text for page in DOCS)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in _LINK.findall(_FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading with that anchor")
    assert broken == []


def _commands() -> list[tuple[str, str]]:
    """(page, command) for every `opgen ...` shown: in code spans and in shell blocks."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in _FENCE.findall(text):
            for line in block.splitlines():
                line = line.split("#", 1)[0].strip()
                line = re.sub(r"^(\S*/)?(\.venv/bin/)?(?=opgen )", "", line.split("&& ")[-1])
                if line.startswith("opgen "):
                    found.append((page.name, line))
        found += [(page.name, span) for span in _SPAN.findall(_FENCE.sub("", text))]
    return sorted(set(found))


def _concrete(command: str) -> list[str]:
    """The words of a command, syntax marks resolved: [optional] parts kept, `a|b` the first, `X...` once."""
    command = command.replace("\\|", "|").replace("--stage ...", "--stage pkg")
    command = re.sub(r"<[^>]+>", "generated_samples/activation/relu_grad_v2", command)
    command = re.sub(r"\[([^\]|]*?)\s+\|[^\]]*\]", r"[\1]", command)  # [A x | B y]: A x
    command = re.sub(r"\[([^\]]*)\]", r"\1", command)
    command = re.sub(r"(\S+)\|\S+", r"\1", command)
    words = []
    for word in shlex.split(command)[1:]:
        word = word.removesuffix("...")
        if word in ("...", ""):
            continue
        words.append(_PLACEHOLDERS.get(word, word))
    return [w.replace("--experimental/--no-experimental", "--experimental") for w in words]


COMMANDS = _commands()


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) >= 20


@pytest.mark.parametrize(("page", "command"), COMMANDS)
def test_every_command_parses_with_opgen_s_own_parser(page: str, command: str) -> None:
    words = _concrete(command)
    group = typer.main.get_command(app)
    if not words or words[0].startswith("-"):
        assert set(words) <= {"--help", "--version"}, command
        return
    parent = group.make_context("opgen", [words[0]], resilient_parsing=True)
    sub = group.get_command(parent, words[0])  # type: ignore[attr-defined]
    assert sub is not None, f"{page}: no command {words[0]!r} in {command!r}"
    if "--help" in words:
        return
    rest = words[1:]
    try:
        sub.make_context(words[0], rest, parent=parent)
    except MissingParameter:  # a bare mention such as `opgen check`: only the arguments are missing
        assert not any(w.startswith("-") for w in rest), f"{page}: {command!r}"
    except UsageError as error:
        pytest.fail(f"{page}: {command!r}: {error.format_message()}")


_OFFLINE = re.compile(r"^opgen (--version|--help|schema|gen --check schemas/\*\.yaml)$")


@pytest.mark.parametrize("command", sorted({c for _, c in COMMANDS if _OFFLINE.match(c)}))
def test_commands_that_run_offline_run(command: str) -> None:
    words = [expanded for word in shlex.split(command)[1:]
             for expanded in (sorted(glob.glob(word, root_dir=ROOT)) if "*" in word else [word])]
    env = {k: v for k, v in os.environ.items() if k != "OPGEN_RECORD_DIR"}  # the samples' own record
    done = subprocess.run([sys.executable, "-m", "opgen", *words], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip()
