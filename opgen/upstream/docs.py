"""The product support table of an op's README.md or docs/*.md: which products a doc says are supported.

Upstream writes it as a table (`| <term>Atlas ...</term> | √ |`) or a list (`- <term>Atlas ...</term>` a colon, `支持`);
opgen's docs as a table with bilingual headers. Product names are normalised (no `<term>`, no spaces around
`/`) so the forms compare."""

from __future__ import annotations

import re

from .models import DocProducts, ProductRow

_SECTION = re.compile(r"^#+\s*(产品支持|Product support)", re.IGNORECASE)
_HEADING = re.compile(r"^#+\s")
_TAG = re.compile(r"</?term>")
# a check mark or 支持 (supported); a multiplication sign, a cross or 不支持 (not supported)
_SUPPORTED = {"\u221a": True, "\u2713": True, "支持": True, "\u00d7": False, "\u2717": False, "x": False,
              "不支持": False}
_LIST_ROW = re.compile("^[-*]\\s*(.+?)\\s*[\uff1a:]\\s*(不支持|支持)\\s*$")  # a full-width or ASCII colon


def product_name(raw: str) -> str:
    """`<term>Ascend 950PR / Ascend 950DT</term>` -> `Ascend 950PR/Ascend 950DT`."""
    name = " ".join(_TAG.sub("", raw).split())
    return re.sub(r"\s*/\s*", "/", name)


def read_products(markdown: str, file: str) -> DocProducts | None:
    """The rows of the doc's product support section, None when it has none."""
    rows: list[ProductRow] = []
    inside = False
    for line in markdown.splitlines():
        if _SECTION.match(line):
            inside = True
            continue
        if inside and _HEADING.match(line):
            break
        if inside:
            row = _row(line.strip())
            if row is not None:
                rows.append(row)
    return DocProducts(file=file, rows=tuple(rows)) if inside else None


def _row(line: str) -> ProductRow | None:
    listed = _LIST_ROW.match(line)
    if listed:
        return ProductRow(product=product_name(listed.group(1)), supported=listed.group(2) == "支持")
    if not line.startswith("|"):
        return None
    cells = [c.strip() for c in line.strip("|").split("|")]
    if len(cells) < 2 or cells[-1] not in _SUPPORTED:
        return None  # the header, the separator, or not a product row
    return ProductRow(product=product_name("|".join(cells[:-1])), supported=_SUPPORTED[cells[-1]])
