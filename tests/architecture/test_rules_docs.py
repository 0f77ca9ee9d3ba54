"""Every game's rules document (``services/<game>/RULES.md``) names, in its section headings, the
test classes that check each rule section; the named classes exist in ``tests/<game>/`` and the
named test files exist, so the document stays true when tests move or are renamed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted(p.parent.name for p in ROOT.glob("services/*/RULES.md"))
HEADING = re.compile(r"^(#{2,3}) (.*)$", re.MULTILINE)
NUMBERED = re.compile(r"^\d+\. ")
CLASS = re.compile(r"`(Test\w+)`")
TEST_FILE = re.compile(r"`(tests/[\w/]+\.py)`")
UNTESTED = {("ludic", "13. Communication")}
"""Numbered sections with no behaviour to test (the service has no chat)."""


def headings(text: str) -> list[tuple[str, str]]:
    return [(level, title) for level, title in HEADING.findall(text)]


def classes_in_tests(game: str) -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests" / game).glob("test_*.py"):
        tree = ast.parse(path.read_text())
        names |= {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    return names


def test_every_installed_game_has_its_rules_document() -> None:
    missing = [game for game in registry.names() if game not in GAMES]
    assert GAMES and not missing, f"no services/<game>/RULES.md for {missing}"


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_section_names_existing_classes_in_tests(game: str) -> None:
    text = (ROOT / "services" / game / "RULES.md").read_text()
    known = classes_in_tests(game)
    missing_classes, unnamed = [], []
    for level, title in headings(text):
        named = CLASS.findall(title)
        missing_classes += [(title, name) for name in named if name not in known]
        section = title.split(" (")[0]
        if level == "##" and NUMBERED.match(title) and not named and (game, section) not in UNTESTED:
            unnamed.append(title)
    assert missing_classes == []
    assert unnamed == []


@pytest.mark.parametrize("game", GAMES)
def test_every_named_test_file_exists(game: str) -> None:
    text = (ROOT / "services" / game / "RULES.md").read_text()
    assert [f for f in TEST_FILE.findall(text) if not (ROOT / f).is_file()] == []


def test_the_parser_reads_a_heading_and_finds_a_missing_class() -> None:
    found = headings("# Title\n\n## 1. Setup (`TestSetup`, `TestNowhere`)\ntext\n### Sub\n")
    assert found == [("##", "1. Setup (`TestSetup`, `TestNowhere`)"), ("###", "Sub")]
    assert CLASS.findall(found[0][1]) == ["TestSetup", "TestNowhere"]
    assert "TestSetup" in classes_in_tests("ludix") and "TestNowhere" not in classes_in_tests("ludix")
