"""docs/operations.md names every environment variable the code reads (the shared library, the
services, deploy/), every variable the image sets, and the probes the manifests use."""

from __future__ import annotations

import re
from pathlib import Path

from dockerfile_parse import DockerfileParser
from ludoteca.entrypoints.frontdoor import read_procfile

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "operations.md").read_text()
READ = re.compile(r"""(?:environ\.get|env\.get|getenv|environ\[)\(?\s*["']([A-Z][A-Z0-9_]+)["']""")
# a WSGI environ's request keys (RFC 3875's meta-variables, the HTTP_ headers) are read the same
# way (ludoteca.adapters.hosting.hotroutes) but are no environment variables
CGI = {"REQUEST_METHOD", "QUERY_STRING", "PATH_INFO", "SCRIPT_NAME", "CONTENT_LENGTH", "CONTENT_TYPE",
       "REMOTE_ADDR", "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL"}


def variables_read() -> set[str]:
    sources = [*ROOT.glob("shared/ludoteca/**/*.py"), *ROOT.glob("services/*/*/**/*.py"), *ROOT.glob("deploy/*.py")]
    found = {name for path in sources for name in READ.findall(path.read_text())
             if name not in CGI and not name.startswith("HTTP_")}
    commands = "\n".join(read_procfile(ROOT / "deploy" / "Procfile").values())
    return found | set(re.findall(r"\$([A-Z][A-Z0-9_]+)", commands))


def test_the_search_finds_the_variables() -> None:
    found = variables_read()
    assert {"REDIS_URL", "BROKER_URL", "LUDOTECA_GAME", "GUNICORN_WORKERS", "LUDOTECA_SWEEP_GRACE", "QUEUES"} <= found


def test_every_variable_is_documented() -> None:
    image = set(DockerfileParser(path=str(ROOT / "Dockerfile")).envs) - {"PATH", "HOME", "PYTHONUNBUFFERED",
                                                                        "PYTHONDONTWRITEBYTECODE"}
    missing = sorted(v for v in variables_read() | image if f"`{v}`" not in DOC)
    assert missing == []


def test_the_probes_metrics_and_logs_sections_say_what_exists() -> None:
    for heading in ("## Probes", "## Metrics", "### What to alert on", "## Logs",
                    "## Redis: persistence, backups, production", "## Upgrades", "## Docker Compose",
                    "## Kubernetes"):
        assert heading in DOC
    for fact in ("/healthz", "/readyz", "inspect ping", "deploy/probe.py --redis", "multiprocess mode",
                 "child_exit", "X-Request-Id", "`request_id`", "BGREWRITEAOF", "BGSAVE",
                 "does not support Redis Cluster"):
        assert fact in DOC, fact


def test_every_metric_family_is_documented() -> None:
    from ludoteca.adapters import observe
    from prometheus_client.metrics import MetricWrapperBase

    families = [m for m in vars(observe).values() if isinstance(m, MetricWrapperBase)]
    assert len(families) >= 10
    for family in families:
        name = family._name + ("_total" if family._type == "counter" else "")
        assert f"`{name}`" in DOC, name
