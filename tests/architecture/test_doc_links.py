"""Every relative link of the project's Markdown documents leads to a file or folder that exists
(the README, ``docs/``, each game's pages in ``services/<game>/``...): a page moved or renamed
fails here, naming the document and the link. Web addresses and in-page anchors are not followed
(the machine reaches no web site); a link's ``#anchor`` is cut before the path is checked."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
"""An inline Markdown link, ``[text](target "title")``: its target."""
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def documents() -> list[Path]:
    """The Markdown files git knows (tracked or new), outside installed packages."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return sorted(ROOT / name for name in listed if (ROOT / name).is_file())


def local_targets(text: str) -> list[str]:
    """The link targets of ``text`` that are paths in the repository (code blocks skipped)."""
    out = []
    for target in LINK.findall(FENCE.sub("", text)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
            continue  # a web address, mailto:, an anchor in the page, a path of the served site
        out.append(target.split("#", 1)[0])
    return out


def test_the_documents_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in documents()}
    assert "README.md" in names and any(n.startswith("docs/") for n in names), sorted(names)[:20]


@pytest.mark.parametrize("doc", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_somewhere(doc: Path) -> None:
    broken = [t for t in local_targets(doc.read_text()) if t and not (doc.parent / t).exists()]
    assert not broken, f"{doc.relative_to(ROOT)}: links to nothing: {broken}"
