"""``make generate`` (:mod:`ludoteca.entrypoints.generate`): the committed files derived from the
installed games are what it writes, and it refuses to leave a game out silently."""

from __future__ import annotations

import dataclasses
import fnmatch
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from ludoteca.core.engine import Hosting
from ludoteca.entrypoints import frontdoor, generate
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
GENERATED = [generate.REQUIREMENTS, generate.PROCFILE, generate.COMPOSE, generate.CADDYFILE, generate.INGRESS,
             generate.TABLES, generate.STYLES, generate.README]


def copy_tree(root: Path, to: Path) -> Path:
    """What the generator reads and writes of ``root``, copied to ``to``: the generated files,
    ``deploy/``, the games' pages (``docs/games``) and the ``pyproject.toml`` of each folder of
    ``services/`` whose games are installed (a folder being added by someone else, not installed
    yet, is left out)."""
    for rel in (generate.REQUIREMENTS, generate.COMPOSE, generate.README):
        shutil.copy(root / rel, to / rel)
    shutil.copytree(root / "deploy", to / "deploy")
    shutil.copytree(root / generate.PAGES, to / generate.PAGES)
    shutil.copytree(root / generate.OPENAPI, to / generate.OPENAPI)
    installed = set(registry.names())
    for folder, games in generate.folders(root).items():
        if set(games) <= installed:  # its games installed (a service of the platform declares none)
            (to / "services" / folder).mkdir(parents=True)
            shutil.copy(root / "services" / folder / "pyproject.toml", to / "services" / folder / "pyproject.toml")
    return to


def test_every_generated_file_is_what_make_generate_writes() -> None:
    try:
        stale = generate.generate(ROOT, check=True)
    except generate.GenerateError as err:
        pytest.fail(f"{err} (then: {generate.COMMAND})")
    assert stale == [], f"stale: {', '.join(map(str, stale))}; run {generate.COMMAND}"


def test_a_stale_file_fails_the_check_naming_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_tree(ROOT, tmp_path)
    assert generate.main(["--root", str(root)]) == 0  # up to date with what is installed here
    assert generate.main(["--root", str(root), "--check"]) == 0
    procfile = root / generate.PROCFILE
    procfile.write_text(procfile.read_text().replace("--concurrency 2", "--concurrency 3"))
    (root / generate.OPENAPI / "gone.json").write_text("{}\n")
    capsys.readouterr()
    assert generate.main(["--root", str(root), "--check"]) == 1
    err = capsys.readouterr().err
    assert "deploy/Procfile" in err and "openapi/gone.json" in err and generate.COMMAND in err
    assert generate.main(["--root", str(root)]) == 0
    assert not (root / generate.OPENAPI / "gone.json").exists()
    assert all((root / rel).read_text() == (ROOT / rel).read_text() for rel in GENERATED[1:])


def test_every_game_is_in_every_generated_file() -> None:
    texts = {rel: (ROOT / rel).read_text() for rel in GENERATED}
    for game in registry.names():
        d = registry.game(game)
        port = d.hosting.port
        procfile = texts[generate.PROCFILE]
        assert f"\n{game}: env LUDOTECA_GAME={game} " in procfile and f"127.0.0.1:{port} " in procfile
        assert f"\n  {game}:\n" in texts[generate.COMPOSE] and f"\n  worker-{d.queue}:\n" in texts[generate.COMPOSE]
        assert f"reverse_proxy {game}:{port} " in texts[generate.CADDYFILE]
        assert f"path: /{game}," in texts[generate.INGRESS]
        assert (ROOT / generate.OPENAPI / f"{game}.json").exists()
    folders = [f for f, games in generate.folders(ROOT).items() if set(games) <= set(registry.names())]
    assert all(f"-e ./services/{f}\n" in texts[generate.REQUIREMENTS] for f in folders)


def test_a_game_without_a_port_or_on_a_taken_one_is_refused_by_name() -> None:
    games = [registry.game(g) for g in registry.names()]
    first = games[0]
    with pytest.raises(generate.GenerateError, match=f"^{first.name}: no port"):
        generate.check_ports([dataclasses.replace(first, hosting=Hosting()), *games[1:]])
    twin = dataclasses.replace(first, name="twin")
    with pytest.raises(generate.GenerateError, match=f"twin: port {first.hosting.port} is already {first.name}'s"):
        generate.check_ports([*games, twin])
    door = dataclasses.replace(first, name="door", hosting=Hosting(port=8000))
    with pytest.raises(generate.GenerateError, match="door: port 8000 is already the front door's"):
        generate.check_ports([*games, door])
    assert [d.hosting.port for d in generate.check_ports(games)] == sorted(d.hosting.port for d in games)


def test_a_folder_whose_game_is_not_installed_is_refused_by_name(tmp_path: Path) -> None:
    """A fresh clone with a game folder pip never installed would serve everything but that game:
    the generator says which, and the command that installs it."""
    root = copy_tree(ROOT, tmp_path)
    folder = root / "services" / "nowhere"
    folder.mkdir()
    project = '[project]\nname = "ludoteca-nowhere"\n'
    (folder / "pyproject.toml").write_text(f'{project}\n[project.entry-points."ludoteca.games"]\n'
                                           'nowhere = "nowhere.game:definition"\n')
    with pytest.raises(generate.GenerateError, match=r"services/nowhere: game nowhere not installed; run make install"):
        generate.generate(root, check=True)
    (folder / "pyproject.toml").write_text(project)
    with pytest.raises(generate.GenerateError, match=r"services/nowhere: its pyproject\.toml declares no"):
        generate.generate(root, check=True)


def test_a_service_of_the_platform_is_installed_and_keeps_its_own_document(tmp_path: Path) -> None:
    """A folder of services/ that declares a ``ludoteca.services`` entry (not a game) gets its
    requirements line; its OpenAPI document is its own, never removed as a game's left over."""
    root = copy_tree(ROOT, tmp_path)
    folder = root / "services" / "lobbyist"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "ludoteca-lobbyist"\n\n'
                                           '[project.entry-points."ludoteca.services"]\nlobbyist = "lobbyist:app"\n')
    (root / generate.OPENAPI / "lobbyist.json").write_text("{}\n")
    (root / generate.OPENAPI / "gone.json").write_text("{}\n")
    assert generate.main(["--root", str(root)]) == 0
    assert "-e ./services/lobbyist" in (root / generate.REQUIREMENTS).read_text().splitlines()
    assert (root / generate.OPENAPI / "lobbyist.json").exists() and not (root / generate.OPENAPI / "gone.json").exists()


def test_the_playground_loads_every_games_table_from_its_own_folder() -> None:
    """``tables.js`` is each installed game's ``playground.js`` (its package's), in the registry's
    order, and the page loads it between the shared pieces (games.js) and the page (playground.js);
    the shared files name no game's table."""
    tables = frontdoor.game_tables()
    assert list(tables) == [g for g in registry.names() if g in tables]
    text = (ROOT / generate.TABLES).read_text()
    at = [text.index(path.read_text().rstrip("\n")) for path in tables.values()]
    assert at == sorted(at) and all(f'Playground.register("{g}", ' in text for g in tables)
    scripts = re.findall(r'<script src="/playground/([a-z]+\.js)"', (frontdoor.PLAYGROUND / "index.html").read_text())
    assert scripts.index("games.js") < scripts.index(frontdoor.TABLES) < scripts.index("playground.js")
    shared = (frontdoor.PLAYGROUND / "games.js").read_text()
    assert not any(f'"{g}"' in shared or f"{g.upper()} =" in shared for g in registry.names())


def test_the_playground_styles_every_games_table_from_its_own_folder() -> None:
    """``tables.css`` is each installed game's ``playground.css`` (its package's) as it is, in the
    registry's order, and the page links it right after the shared ``playground.css`` (the games'
    rules after the shared ones, as they were in one sheet); the shared sheet keeps no game's
    section (a ``/* Ludic */`` heading) and no rule of a game's own element (``#ludic-rule``)."""
    styles = frontdoor.game_styles()
    assert styles and list(styles) == [g for g in registry.names() if g in styles]
    text = (ROOT / generate.STYLES).read_text()
    assert text.startswith(frontdoor.STYLES_HEADER)
    at = [text.index(path.read_text().rstrip("\n")) for path in styles.values()]
    assert at == sorted(at)
    sheets = re.findall(r'<link rel="stylesheet" href="/playground/([a-z]+\.css)">',
                        (frontdoor.PLAYGROUND / "index.html").read_text())
    assert sheets == ["playground.css", frontdoor.STYLES]
    shared = (frontdoor.PLAYGROUND / "playground.css").read_text()
    headings = {h.strip().lower() for h in re.findall(r"/\*(.*?)\*/", shared, flags=re.S)}
    games = set(registry.names())
    assert not headings & games, f"a game's section in the shared sheet: move it to its {frontdoor.STYLE}"
    assert not re.search(rf"#(?:{'|'.join(map(re.escape, games))})-", shared)


def test_every_games_playground_files_ship_as_package_data() -> None:
    """A game installed from its wheel (not editable) still has its table and its styles: each
    game's ``playground.js`` and ``playground.css`` match its package's ``package-data``."""
    for files in (frontdoor.game_tables(), frontdoor.game_styles()):
        for name, path in files.items():
            package = path.parent
            project = tomllib.loads((package.parent / "pyproject.toml").read_text())
            patterns = project["tool"]["setuptools"]["package-data"].get(package.name, [])
            assert any(fnmatch.fnmatch(path.name, p) for p in patterns), \
                f"{name}: add {path.name!r} to [tool.setuptools.package-data] {package.name} of its pyproject.toml"


def test_a_table_registered_under_another_name_is_refused_by_name(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's playground.js copied from Pig's and not renamed would register a second Pig table
    (the page keeps the first): the generator names the game and the call to write."""
    copied = tmp_path / "pigling" / frontdoor.TABLE
    copied.parent.mkdir()
    copied.write_text('const PIG = { title: "Pigling" };\n\nPlayground.register("pig", PIG);\n')
    monkeypatch.setattr(frontdoor, "game_tables", lambda: {"pigling": copied})
    with pytest.raises(generate.GenerateError, match=r'^pigling: its pigling/playground\.js registers no table under '
                                                     r'its name: Playground\.register\("pigling", '):
        generate.check_tables()
    copied.write_text(copied.read_text().replace('"pig"', '"pigling"'))
    generate.check_tables()


def test_the_readme_lists_every_game_from_its_page(tmp_path: Path) -> None:
    """README.md's list of the games: a line a game between the markers, in the registry's order,
    its title and its page's first sentence, linked; a game without a page yet gets the first
    line of its description; a README that lost its markers fails naming them."""
    block = (ROOT / generate.README).read_text().split(generate.README_BEGIN)[1].split(generate.README_END)[0]
    items = [line for line in block.splitlines() if line.startswith("- **")]
    games = generate.definitions()
    assert [line.split("**")[1] for line in items] == [d.title for d in games]
    for d in games:
        page = (generate.PAGES / f"{d.name}.md").as_posix()
        assert f"]({page})" in block, page
    text = f"# X\n\n{generate.README_BEGIN}\nold line\n{generate.README_END}\nafter\n"
    (tmp_path / "docs" / "games").mkdir(parents=True)
    first = games[0]
    (tmp_path / "docs" / "games" / f"{first.name}.md").write_text(
        f"# {first.title}\n\nIts first sentence (with a 7.5 inside). The second.\n\n- more\n")
    written = generate.readme(tmp_path, games[:2], text)
    assert "old line" not in written and written.endswith(f"{generate.README_END}\nafter\n")
    assert f"- **{first.title}**: Its first sentence (with a 7.5 inside). [docs/games/{first.name}.md]" in written
    assert f"- **{games[1].title}**: {games[1].description.splitlines()[0].split(': ', 1)[-1]}"[:60] in written
    with pytest.raises(generate.GenerateError, match="markers"):
        generate.readme(tmp_path, games, "# no list here\n")
