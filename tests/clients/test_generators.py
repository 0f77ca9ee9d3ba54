"""The mainstream generators at their default settings, on the exported documents (issue 21).

A session fixture generates, from each ``openapi/<game>.json`` as it is and in parallel:
openapi-generator's ``kotlin`` and ``swift6`` clients (openapi-generator-cli, pinned in
requirements-dev.txt: the PyPI package carries the jar, run by the machine's Java; ``make install``
installs Debian's ``default-jre-headless`` when ``java`` is missing), and the TypeScript types of
openapi-typescript (for openapi-fetch) and the SDK of @hey-api/openapi-ts (both pinned by
``tools/clients/package-lock.json``). About 40 s of the two cores, once per session.

What is checked:

* Kotlin and Swift: no warning about a schema the generator could not name or map; in the
  generated sources, no empty class (a schema whose fields were lost), every action variant
  implementing its union type (Kotlin: else neither a move nor a listing can be decoded), and no
  untyped map (``Map<String, Any>``, ``AnyCodable``) standing for something the document could
  type: an event's ``data``, a result's ``summary``, a replay's ``final_state``. Compiling them
  needs Gradle, Kotlin and Swift toolchains with their libraries, which this machine cannot fetch:
  the check stops at the sources.
* TypeScript: ``tests/clients/ts/play.ts``, a program written against openapi-typescript's types
  and openapi-fetch only, with each game's adapter from the game's own folder
  (``tests/<game>/client.ts``: its table, its human's choices, what its events and result say),
  compiles under ``tsc --strict`` with no error, holds no ``any``, no cast and no non-null
  assertion, and plays a whole game of each game through the front door with node (long-polled
  events, If-Match, a 412 and a 409 read as typed problems, the typed result). A registered game
  without an adapter fails, naming the file to write. The @hey-api/openapi-ts SDK compiles under
  ``tsc --strict`` and types what a client reads.

The findings of issue 21 that the documents still show are marked ``xfail(strict=True)`` with the
reason: each turns into a failure (XPASS) the day the documents are fixed, so the mark must go.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import FrontDoor
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools" / "clients"
NODE_BIN = TOOLS / "node_modules" / ".bin"
OPENAPI_GENERATOR = Path(sys.executable).with_name("openapi-generator-cli")
PROGRAM = Path(__file__).resolve().parent / "ts"
TS_TREE = Path("tests")
"""The TypeScript files compiled together, laid out under this folder as in the repository:
``clients/ts/play.ts``, ``clients/ts/gen/<game>.ts`` (generated), ``<game>/client.ts``."""
GAMES = registry.names()
KOTLIN_MODELS = Path("src/main/kotlin/org/openapitools/client/models")
SWIFT_MODELS = Path("Sources/OpenAPIClient/Models")

# what a generator's log says when a schema lost its name or its mapping
UNMAPPED = re.compile(r"Failed to get the schema name|unnamed|inline_|UNKNOWN_BASE_TYPE|could not be mapped|"
                      r"Unknown type|is not supported", re.IGNORECASE)

pytestmark = [pytest.mark.timeout(600)]

FINDING_UNIONS = ("issue 21: openapi-generator's kotlin client (Moshi) makes a oneOf a plain interface no variant "
                  "implements, and has no polymorphic adapter; the one shape that makes the variants implement it (a "
                  "discriminator on a base they take allOf) makes every other generator type the union as the bare "
                  "base: docs/clients.md gives the Kotlin options that decode it")


def tool(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is missing: run `make install`")
    return path


def java() -> str:
    found = shutil.which("java")
    if found is None:
        pytest.skip("java is missing: `make install` installs default-jre-headless")
    return found


@dataclass
class Run:
    out: Path
    log: str
    returncode: int


def run(args: list[str], out: Path, cwd: Path | None = None) -> Run:
    done = subprocess.run(["nice", *args], capture_output=True, text=True, timeout=300, check=False,
                          cwd=cwd, env={**os.environ, "NO_COLOR": "1"})
    return Run(out, done.stdout + done.stderr, done.returncode)


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Run]:
    """(generator, game) -> its run: kotlin, swift6, openapi-typescript and hey-api, two at a time."""
    java()
    generator, typescript, hey = (tool(OPENAPI_GENERATOR), tool(NODE_BIN / "openapi-typescript"),
                                  tool(NODE_BIN / "openapi-ts"))
    base = tmp_path_factory.mktemp("generated")
    jobs: dict[tuple[str, str], tuple[list[str], Path]] = {}
    for game in GAMES:
        doc = str(ROOT / "openapi" / f"{game}.json")
        for lang in ("kotlin", "swift6"):
            out = base / lang / game
            jobs[lang, game] = [str(generator), "generate", "-g", lang, "-i", doc, "-o", str(out)], out
        out = base / "ts" / TS_TREE / "clients" / "ts" / "gen" / f"{game}.ts"  # play.ts's ./gen/<game>.js
        jobs["openapi-typescript", game] = [str(typescript), doc, "-o", str(out)], out
        out = base / "hey" / game
        jobs["hey-api", game] = [str(hey), "-i", doc, "-o", str(out)], out
    with ThreadPoolExecutor(2) as pool:
        runs = dict(zip(jobs, pool.map(lambda job: run(*job), jobs.values()), strict=True))
    for key, done in runs.items():
        assert done.returncode == 0, f"{key}: {done.log[-3000:]}"
    return runs


# -- openapi-generator: kotlin and swift6 ------------------------------------------------------------------
def warnings(log: str) -> list[str]:
    return [line for line in log.splitlines() if " WARN " in line]


@pytest.mark.parametrize("lang", ["kotlin", "swift6"])
def test_no_schema_is_left_unnamed_or_unmapped(generated: dict[tuple[str, str], Run], lang: str) -> None:
    left = {game: [w for w in warnings(generated[lang, game].log) if UNMAPPED.search(w)] for game in GAMES}
    assert not any(left.values()), left


def kotlin_classes(root: Path) -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted((root / KOTLIN_MODELS).glob("*.kt"))}


def swift_types(root: Path) -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted((root / SWIFT_MODELS).glob("*.swift"))}


def union_variants(game: str, union: str) -> tuple[str, list[str]]:
    """The union's component name (``<Game>Action``, ``<Game>Event``) and its variants', from the
    document."""
    doc = json.loads((ROOT / "openapi" / f"{game}.json").read_text())
    name = f"{game.capitalize()}{union}"
    union = doc["components"]["schemas"][name]
    mapping = union.get("discriminator", {}).get("mapping", {})
    return name, sorted(ref.rsplit("/", 1)[1] for ref in mapping.values())


EMPTY_KOTLIN = re.compile(r"^(?:data )?class (\w+) \(\s*\)", re.MULTILINE)
EMPTY_SWIFT = re.compile(r"public (?:struct|final class) (\w+): [^{]*\{\s*public enum CodingKeys: [^{]*\{\s*\}")


@pytest.mark.parametrize("game", GAMES)
def test_kotlin_has_no_empty_class(generated: dict[tuple[str, str], Run], game: str) -> None:
    empty = [m.group(1) for text in kotlin_classes(generated["kotlin", game].out).values()
             for m in EMPTY_KOTLIN.finditer(text)]
    assert not empty, f"{game}: empty Kotlin classes (their fields are lost): {empty}"


@pytest.mark.parametrize("game", GAMES)
def test_swift_has_no_empty_type(generated: dict[tuple[str, str], Run], game: str) -> None:
    empty = [m.group(1) for text in swift_types(generated["swift6", game].out).values()
             for m in EMPTY_SWIFT.finditer(text)]
    assert not empty, f"{game}: empty Swift types (their fields are lost): {empty}"


@pytest.mark.parametrize("union", ["Action", "Event"])
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.xfail(strict=True, reason=FINDING_UNIONS)
def test_kotlin_variants_implement_their_union(generated: dict[tuple[str, str], Run], game: str, union: str) -> None:
    classes = kotlin_classes(generated["kotlin", game].out)
    union, variants = union_variants(game, union)
    assert variants, f"{game}: {union} has no discriminator mapping"
    header = re.compile(r"^(?:data )?class (\w+) \(.*?^\)\s*:\s*([\w, .]+?)\s*\{", re.MULTILINE | re.DOTALL)
    parents = {m.group(1): {p.strip() for p in m.group(2).split(",")} for text in classes.values()
               for m in header.finditer(text)}
    lost = [v for v in variants if union not in parents.get(v, set())]
    assert not lost, f"{game}: these variants do not implement {union}: {lost}"


@pytest.mark.parametrize("union", ["Action", "Event"])
@pytest.mark.parametrize("game", GAMES)
def test_swift_unions_are_discriminated_enums(generated: dict[tuple[str, str], Run], game: str, union: str) -> None:
    types = swift_types(generated["swift6", game].out)
    union, variants = union_variants(game, union)
    text = types.get(union, "")
    assert re.search(rf"public enum {union}: [^{{]*Codable", text), f"{game}: {union} is not an enum"
    missing = [v for v in variants if not re.search(rf"case \w+\({v}\)", text)]
    assert not missing, f"{game}: {union} lacks cases for {missing}"


UNTYPED_KOTLIN = re.compile(r"val `?(\w+)`?: (?:kotlin\.collections\.List<)?kotlin\.collections\.Map<kotlin\.String, "
                            r"kotlin\.Any>")
UNTYPED_SWIFT = re.compile(r"public var (\w+): \[?\[String: JSONValue\]")
# the free-form members the documents keep, with why: a problem's extension members (RFC 9457 lets
# a problem carry more than its type documents; the documented ones are typed beside them); a
# 422's `errors`, marshmallow's messages keyed by the field's path (a list of messages, or a map
# of the same shape for a nested field), and `rule_error`, Ludic's alone in the 422 all games share
# (its `POST /rules/check` types the same error as `RuleError`); a replay's `final_state`, the
# engine's own stored form (what the seed and the actions rebuild; typing it would freeze each
# engine's storage format: a client reads the game through the result, the events and the views)
UNTYPED_ALLOWED: dict[str, set[str]] = {"*": {"additionalProperties"}, "ValidationProblem": {"errors", "ruleError"},
                                        **{f"{g.capitalize()}Replay": {"finalState"} for g in GAMES}}


@pytest.mark.parametrize("lang", ["kotlin", "swift6"])
def test_no_untyped_map_where_the_document_could_type_it(generated: dict[tuple[str, str], Run], lang: str) -> None:
    pattern, read = (UNTYPED_KOTLIN, kotlin_classes) if lang == "kotlin" else (UNTYPED_SWIFT, swift_types)
    found = {game: sorted(f"{name}.{m.group(1)}" for name, text in read(generated[lang, game].out).items()
                          for m in pattern.finditer(text)
                          if m.group(1) not in UNTYPED_ALLOWED.get(name, set()) | UNTYPED_ALLOWED["*"])
             for game in GAMES}
    assert not any(found.values()), found


# -- TypeScript ------------------------------------------------------------------------------------------
ANY = re.compile(r"\bany\b")
# `x as T` (not `as const`), `<T>x`, a non-null assertion `x!`, and the comments that silence tsc
CAST = re.compile(r"\bas\s+(?!const\b)[A-Za-z_{(\[]|(?<!\w)<[A-Z]\w*>\s*[\w(]|\w[\])]?!(?=[.;,)\[\s])|@ts-")


def strip_comments(source: str) -> str:
    """The code without its comments and import lines (whose `as` renames)."""
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.DOTALL)
    source = re.sub(r"^import [^;]*;", "", source, flags=re.MULTILINE)
    return re.sub(r"//[^\n]*", "", source)


def adapter(game: str) -> Path:
    """The game's TypeScript adapter, ``tests/<game>/client.ts``; a game without one fails."""
    path = ROOT / "tests" / game / "client.ts"
    if not path.exists():
        pytest.fail(f"{game}: no TypeScript adapter: write tests/{game}/client.ts (copy tests/pig/client.ts: the "
                    "table a human creates, what it plays, what the events and the result say)")
    return path


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_typescript_adapter(game: str) -> None:
    assert f'>("{game}", ' in adapter(game).read_text(), f'tests/{game}/client.ts: no register<...>("{game}", ...)'


@pytest.mark.parametrize("name", ["play.ts", "docs/clients.md", *(f"tests/{game}/client.ts" for game in GAMES)])
def test_the_typescript_code_holds_no_any_and_no_cast(name: str) -> None:
    source = {"play.ts": lambda: (PROGRAM / name).read_text(), "docs/clients.md": docs_loop}.get(
        name, lambda: adapter(name.split("/")[1]).read_text())  # tests/<game>/client.ts
    code = strip_comments(source())
    assert not ANY.findall(code), f"{name}: `any`"
    casts = [code[m.start() - 30:m.end() + 10] for m in CAST.finditer(code)]
    assert not casts, f"{name}: a cast, a non-null assertion or a @ts- comment: {casts}"


DOCS_LOOP = str(TS_TREE / "clients" / "ts" / "docs_loop.ts")
"""The TypeScript block of docs/clients.md, compiled beside play.ts (it imports ./gen/ludix.js)."""


@dataclass
class Compiled:
    root: Path
    errors: list[str]


def docs_loop() -> str:
    """The TypeScript block of docs/clients.md."""
    blocks = (ROOT / "docs" / "clients.md").read_text().split("```ts\n")
    assert len(blocks) == 2, "docs/clients.md: one ts block expected"
    return blocks[1].split("```", 1)[0]


@pytest.fixture(scope="session")
def program(generated: dict[tuple[str, str], Run]) -> Compiled:
    """play.ts, the games' adapters and the loop of docs/clients.md beside the generated types,
    compiled by ``tsc --strict`` (emitted even with errors, so the games below run either way)."""
    root = generated["openapi-typescript", GAMES[0]].out.parents[4]  # <base>/ts
    files = [root / TS_TREE / "clients" / "ts" / "play.ts", root / DOCS_LOOP]
    shutil.copy(PROGRAM / "play.ts", files[0])
    files[1].write_text(docs_loop())
    for game in GAMES:
        if (ROOT / "tests" / game / "client.ts").exists():  # else its own test fails, naming the file
            files.append(root / TS_TREE / game / "client.ts")
            files[-1].parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / "tests" / game / "client.ts", files[-1])
    config = json.loads((PROGRAM / "tsconfig.json").read_text())
    config["files"] = [str(f.relative_to(root)) for f in files]
    config["compilerOptions"]["rootDir"] = str(TS_TREE)
    (root / "tsconfig.json").write_text(json.dumps(config))
    (root / "package.json").write_text('{"type": "module"}\n')
    (root / "node_modules").symlink_to(TOOLS / "node_modules")
    done = run([str(NODE_BIN / "tsc"), "-p", str(root)], root, cwd=root)
    assert (root / "dist" / "clients" / "ts" / "play.js").exists(), done.log[-3000:]
    return Compiled(root, [line for line in done.log.splitlines() if "error TS" in line])


def test_the_typescript_program_compiles_strict(program: Compiled) -> None:
    errors = [e for e in program.errors if not e.startswith(DOCS_LOOP)]
    assert not errors, "\n".join(errors)


def test_the_typescript_loop_of_docs_clients_md_compiles_strict(program: Compiled) -> None:
    errors = [e for e in program.errors if e.startswith(DOCS_LOOP)]
    assert not errors, "\n".join(errors)


def test_hey_api_sdk_compiles_strict(generated: dict[tuple[str, str], Run], tmp_path: Path) -> None:
    root = generated["hey-api", GAMES[0]].out.parent
    # the SDK's imports have no file extension: a bundler's resolution (the generator's own default)
    config = {"compilerOptions": {"target": "es2022", "module": "esnext", "moduleResolution": "bundler",
                                  "strict": True, "noEmit": True, "lib": ["es2023", "dom", "dom.iterable"],
                                  "types": []},
              "include": [f"{game}/**/*.ts" for game in GAMES]}
    (root / "tsconfig.json").write_text(json.dumps(config))
    if not (root / "node_modules").exists():
        (root / "node_modules").symlink_to(TOOLS / "node_modules")
    done = run([str(NODE_BIN / "tsc"), "-p", str(root)], root, cwd=root)
    assert done.returncode == 0, done.log[-4000:]


def test_hey_api_types_events_and_results(generated: dict[tuple[str, str], Run]) -> None:
    loose = {}
    for game in GAMES:
        types = (generated["hey-api", game].out / "types.gen.ts").read_text()
        loose[game] = [m.group(0) for m in re.finditer(r"(data|summary|options)\??: \{\s*\[key: string\]: "
                                                       r"unknown;?\s*\}", types)]  # final_state: see UNTYPED_ALLOWED
    assert not any(loose.values()), loose


PLAYED: dict[str, dict[str, Any]] = {}
"""What each TypeScript game saw (the tests after it read it)."""


@pytest.mark.integration
@pytest.mark.parametrize("game", GAMES)
def test_a_typescript_client_plays_a_whole_game(game: str, program: Compiled, front_door: FrontDoor,
                                                 worker: Path) -> None:
    adapter(game)
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run([node, str(program.root / "dist" / "clients" / "ts" / "play.js"), game, front_door.url],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    print(game, seen)
    PLAYED[game] = seen
    assert seen["moves"] > 0 and seen["winners"] and len(seen["scores"]) >= 2, seen
    assert seen["stale"], f"{game}: no 412 was tried"
    assert seen["conflict"].endswith("/illegal-action"), f"{game}: no typed 409 for an action no longer legal"
    assert seen["game_over"].endswith("/game-over"), seen
    # one request a move: every move answered with `next` was followed by a move from that answer,
    # without reading the game or listing the actions again
    assert seen["from_answer"] == seen["next_given"], seen
    assert seen["listings"] + seen["from_answer"] >= seen["moves"], seen


@pytest.mark.integration
def test_the_typescript_client_played_from_the_moves_answers() -> None:
    """The server gave `next` (a seat acting again: Ludix's throws, Pig's rolls...) and the client
    played on from it, in the games above together."""
    if len(PLAYED) < len(GAMES):
        pytest.skip("the games above did not all run")
    assert sum(seen["from_answer"] for seen in PLAYED.values()) > 0, PLAYED


@pytest.mark.integration
def test_the_game_over_409_says_the_status() -> None:
    if len(PLAYED) < len(GAMES):
        pytest.skip("the games above did not all run")
    assert {game: seen["game_over_status"] for game, seen in PLAYED.items()} == dict.fromkeys(GAMES, "finished")
