"""The Dockerfile, read by dockerfile-parse (Docker itself is not on these machines): a builder and a
slim runtime stage on a base image pinned by version, the pinned requirements.txt installed once,
the bots' tables and compiled code built at build time (every step of ``make policy``), a non-root
user in the final stage, no secrets, the probes documented, and every path it copies present in
the build context (and not left out by .dockerignore). The entry point and the probe script run
here for real."""

from __future__ import annotations

import http.server
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from dockerfile_parse import DockerfileParser
from ludoteca.entrypoints.devstack import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dockerfile() -> DockerfileParser:
    return DockerfileParser(path=str(ROOT / "Dockerfile"), env_replace=True)


def stages(parser: DockerfileParser) -> list[list[dict]]:
    """The instructions of each stage (ARGs before the first FROM left out)."""
    out: list[list[dict]] = []
    for step in parser.structure:
        if step["instruction"] == "FROM":
            out.append([])
        if out and step["instruction"] != "COMMENT":
            out[-1].append(step)
    return out


def values(stage: list[dict], instruction: str) -> list[str]:
    return [s["value"] for s in stage if s["instruction"] == instruction]


def run_text(stage: list[dict]) -> str:
    return "\n".join(re.sub(r"\s+", " ", v) for v in values(stage, "RUN"))


def dockerignore() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _pattern(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it: ``*`` and ``?`` stop at ``/``, ``**`` does not."""
    out = ""
    for part in re.split(r"(\*\*/?|\*|\?)", pattern.strip("/")):
        out += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
    return re.compile(out)


def ignored(rel: str, patterns: list[str]) -> bool:
    """Whether .dockerignore leaves ``rel`` (or a folder above it) out of the build context: the
    last pattern matching it or a folder above it decides (a ``!`` pattern brings it back)."""
    parts = Path(rel).parts
    out = False
    for pattern in patterns:
        regex = _pattern(pattern.removeprefix("!"))
        if any(regex.fullmatch("/".join(parts[:i])) for i in range(1, len(parts) + 1)):
            out = not pattern.startswith("!")
    return out


def test_a_builder_and_a_runtime_stage_on_a_base_image_pinned_by_version(dockerfile: DockerfileParser) -> None:
    froms = [s["value"] for s in dockerfile.structure if s["instruction"] == "FROM"]
    assert len(froms) >= 2
    assert [f.split()[-1] for f in froms] == ["builder", "runtime"]
    for image in dockerfile.parent_images:
        name, _, tag = image.partition(":")
        assert name == "python"
        # a full version (3.11.14), a variant, never a moving tag such as "3", "slim" or "latest"
        assert re.fullmatch(r"3\.11\.\d+-slim(-\w+)?(@sha256:[0-9a-f]{64})?", tag), image
    runtime = stages(dockerfile)[-1]
    assert not values(runtime, "RUN") or "pip install" not in run_text(runtime)  # nothing installed at the end
    assert {v.split()[0] for v in values(runtime, "COPY")} == {"--from=builder"}


def test_the_final_stage_runs_as_a_fixed_non_root_user(dockerfile: DockerfileParser) -> None:
    runtime = stages(dockerfile)[-1]
    user = values(runtime, "USER")[-1]
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) >= 1000 and (not gid or int(gid) >= 1000), user
    created = run_text(runtime)
    assert f"--uid {uid}" in created and f"--gid {gid or uid}" in created
    # USER comes after every RUN of the stage (nothing runs as root after it, nothing is left to)
    steps = [s["instruction"] for s in runtime]
    assert max(i for i, s in enumerate(steps) if s == "RUN") < steps.index("USER")


def test_the_pinned_requirements_are_installed_once_in_the_builder(dockerfile: DockerfileParser) -> None:
    builder = stages(dockerfile)[0]
    assert any(v.split()[0] == "requirements.txt" for v in values(builder, "COPY"))
    text = run_text(builder)
    assert "pip install -r requirements.txt" in text
    assert "python -m venv /opt/venv" in text
    assert "--no-cache-dir" in text or "PIP_NO_CACHE_DIR=1" in " ".join(values(builder, "ENV"))
    # every pin of requirements.txt is exact, so the image is what the tests ran on
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-e "):
            assert re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[\w.]+", line), line


def test_the_bots_tables_and_compiled_code_are_built_into_the_image(dockerfile: DockerfileParser) -> None:
    builder, runtime = stages(dockerfile)[0], stages(dockerfile)[-1]
    text = run_text(builder)
    recipe = re.search(r"^policy:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe is not None
    # `make policy` and the image build every registered game's tables the same way: its warm_up,
    # for each name the registry gives (no list of the games in either)
    for source in (recipe.group(1), text):
        assert "registry.names()" in source and "-m ludoteca.entrypoints.devstack --warm-up" in source, source
    assert "compileall" in text
    env = dockerfile.envs  # the last stage's
    assert env["LUDOTECA_CACHE"] == "/opt/ludoteca/cache"
    assert any("LUDOTECA_CACHE=/opt/ludoteca/cache" in v for v in values(builder, "ENV"))
    assert any("NUMBA_CACHE_DIR=/opt/ludoteca/numba" in v for v in values(builder, "ENV"))
    # at run time numba's cache is under /tmp (writable), seeded from the built one
    assert env["NUMBA_CACHE_DIR"].startswith("/tmp/") and env["LUDOTECA_NUMBA_SEED"] == "/opt/ludoteca/numba"
    assert "--from=builder /opt/ludoteca /opt/ludoteca" in values(runtime, "COPY")
    assert values(runtime, "ENTRYPOINT") == ['["/app/deploy/entrypoint.sh"]']


def test_no_secret_goes_into_the_image(dockerfile: DockerfileParser) -> None:
    text = (ROOT / "Dockerfile").read_text()
    for step in dockerfile.structure:
        if step["instruction"] in ("ENV", "ARG", "LABEL"):
            assert not re.search(r"(PASSWORD|SECRET|TOKEN|API_KEY|PRIVATE)", step["value"], re.I), step
    assert not re.search(r"\w+://[^/\s:@]+:[^/\s@]+@", text)  # no URL with credentials
    assert "REDIS_URL" not in text and "BROKER_URL" not in text  # given at run time
    patterns = dockerignore()
    for secret in (".env", ".env.local", "server.pem", "tls.key", ".git/config", ".venv/bin/python",
                   "var/redis/appendonly.aof"):
        assert ignored(secret, patterns), secret


def test_the_probes_are_documented_rather_than_one_healthcheck_for_every_role(dockerfile: DockerfileParser) -> None:
    runtime = stages(dockerfile)[-1]
    assert values(runtime, "HEALTHCHECK") == ["NONE"]
    text = (ROOT / "Dockerfile").read_text()
    for probe in ("/healthz", "/readyz", "inspect ping", "deploy/probe.py"):
        assert probe in text
    assert (ROOT / "deploy" / "probe.py").is_file()


def test_every_copied_path_is_in_the_build_context(dockerfile: DockerfileParser) -> None:
    patterns = dockerignore()
    copies = [v for stage in stages(dockerfile) for v in values(stage, "COPY") if not v.startswith("--from=")]
    assert copies
    for value in copies:
        *sources, _ = shlex.split(value)
        for source in sources:
            path = ROOT / source
            assert path.exists(), source
            assert not ignored(source.rstrip("/"), patterns), source
            if path.is_dir():  # what the image needs inside it is not left out either
                for needed in path.rglob("*.py"):
                    rel = needed.relative_to(ROOT).as_posix()
                    if "__pycache__" not in rel:
                        assert not ignored(rel, patterns), rel
    entrypoint = ROOT / "deploy" / "entrypoint.sh"
    assert os.access(entrypoint, os.X_OK)
    subprocess.run(["sh", "-n", str(entrypoint)], check=True)
    # the data files the games read at run time are in the context
    for data in ("services/ludic/ludic/data/vexer_rules.json", "services/speculation/speculation/data/joker_book.json"):
        assert (ROOT / data).is_file() and not ignored(data, patterns)


def test_the_dockerignore_check_can_fail() -> None:
    assert ignored("tests/deploy/x.py", ["tests"]) and ignored("a/__pycache__/b.pyc", ["**/__pycache__"])
    assert not ignored("services/ludix/ludix/engine.py", ["tests", "*.md"])
    assert not ignored("keep.md", ["*.md", "!keep.md"])
    assert ignored("README.md", ["*.md"]) and not ignored("services/ludic/RULES.md", ["*.md"])
    assert ignored("a/b/c.pyc", ["**/*.pyc"]) and ignored("c.pyc", ["**/*.pyc"])


def test_the_entrypoint_seeds_numbas_cache_and_runs_the_command(tmp_path: Path) -> None:
    seed = tmp_path / "seed" / "ludor_0123"
    seed.mkdir(parents=True)
    (seed / "rollouts.f-1.py311.nbi").write_bytes(b"index")
    cache = tmp_path / "tmp" / "numba"
    done = subprocess.run([str(ROOT / "deploy" / "entrypoint.sh"), sys.executable, "-c",
                           "import os, sys; print(os.environ['NUMBA_CACHE_DIR'], sys.argv[1:])", "a b"],
                          env={**os.environ, "LUDOTECA_NUMBA_SEED": str(tmp_path / "seed"),
                               "NUMBA_CACHE_DIR": str(cache)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{cache} ['a b']"
    assert (cache / "ludor_0123" / "rollouts.f-1.py311.nbi").read_bytes() == b"index"
    # without a seed it only runs the command, with its exit status
    done = subprocess.run([str(ROOT / "deploy" / "entrypoint.sh"), "sh", "-c", "exit 3"],
                          env={k: v for k, v in os.environ.items() if k != "LUDOTECA_NUMBA_SEED"}, timeout=60)
    assert done.returncode == 3


def test_the_entrypoint_raises_the_open_files_soft_limit() -> None:
    """Issue 20, finding 5: every role of the image starts with its soft limit at the hard one."""
    if subprocess.run(["prlimit", "--version"], capture_output=True, check=False).returncode != 0:
        pytest.skip("prlimit (util-linux) is not installed")
    done = subprocess.run(["prlimit", "--nofile=1024:4096", "--", str(ROOT / "deploy" / "entrypoint.sh"),
                           "sh", "-c", "ulimit -S -n"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "4096", (done.stdout, done.stderr)


class _Status(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/readyz" else 503)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Status)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def probe(*args: str, env: dict[str, str] | None = None) -> int:
    return subprocess.run([sys.executable, str(ROOT / "deploy" / "probe.py"), *args, "--timeout", "2"],
                          env={**os.environ, **(env or {})}, capture_output=True, timeout=60).returncode


def test_the_probe_script_tells_healthy_from_not(http_server: int, redis_url: str) -> None:
    assert probe(f"http://127.0.0.1:{http_server}/readyz") == 0
    assert probe(f"http://127.0.0.1:{http_server}/other") == 1  # 503
    assert probe(f"http://127.0.0.1:{free_port()}/readyz") == 1  # nobody there
    assert probe("--redis", env={"REDIS_URL": redis_url, "BROKER_URL": redis_url}) == 0
    dead = f"redis://127.0.0.1:{free_port()}/0"
    assert probe("--redis", env={"REDIS_URL": redis_url, "BROKER_URL": dead}) == 1


def test_every_run_step_is_valid_shell_and_the_process_is_in_exec_form(dockerfile: DockerfileParser) -> None:
    for step in dockerfile.structure:
        if step["instruction"] == "RUN":
            done = subprocess.run(["sh", "-n", "-c", step["value"]], capture_output=True, text=True, timeout=30)
            assert done.returncode == 0, (step["value"], done.stderr)
    runtime = stages(dockerfile)[-1]
    entrypoint, = (json.loads(v) for v in values(runtime, "ENTRYPOINT"))
    command, = (json.loads(v) for v in values(runtime, "CMD"))
    assert entrypoint == ["/app/deploy/entrypoint.sh"]  # exec form: the process gets the signals
    assert command[0] == "gunicorn" and command[-1] == "ludoteca.entrypoints.wsgi:make_app()"
