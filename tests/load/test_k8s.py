"""deploy/k8s/optional/load.yaml: what ``python -m loadtest.k8s`` writes now, every object valid
against the Kubernetes API's schemas (kubernetes-validate, strict), and wired: the workers find
the master through its Service, the master plays against the stack's front door, every pod as
locked down as the stack's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from dockerfile_parse import DockerfileParser
from kubernetes_validate.utils import latest_version
from ludoteca.entrypoints.manifests import APP_UID, FRONT_DOOR_PORT, IMAGE

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from loadtest import k8s  # noqa: E402

DOCS: list[dict[str, Any]] = list(yaml.safe_load_all((ROOT / k8s.OUTPUT).read_text()))


def test_the_committed_file_is_what_the_generator_writes() -> None:
    """Run `python -m loadtest.k8s` when this fails."""
    assert (ROOT / k8s.OUTPUT).read_text() == k8s.manifest()
    assert k8s.objects() == DOCS
    assert k8s.main(["--root", str(ROOT), "--check"]) == 0


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: f"{d['kind']}/{d['metadata']['name']}")
def test_every_object_is_valid_for_kubernetes(doc: dict[str, Any]) -> None:
    kubernetes_validate.validate(doc, latest_version(), strict=True)


def test_a_master_and_its_workers_against_the_front_door() -> None:
    jobs = {d["metadata"]["name"]: d for d in DOCS if d["kind"] == "Job"}
    service = next(d for d in DOCS if d["kind"] == "Service")
    master, worker = jobs[k8s.MASTER], jobs[k8s.WORKER]
    pod_labels = master["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert service["spec"]["ports"][0]["port"] == k8s.MASTER_PORT
    (m,) = master["spec"]["template"]["spec"]["containers"]
    (w,) = worker["spec"]["template"]["spec"]["containers"]
    assert m["command"][:5] == w["command"][:5] == ["python", "-m", "locust", "-f", "loadtest/locustfile.py"]
    assert (ROOT / m["command"][4]).exists()
    args = m["command"]
    assert args[args.index("--host") + 1] == f"http://front-door:{FRONT_DOOR_PORT}"
    assert int(args[args.index("--expect-workers") + 1]) == worker["spec"]["parallelism"] == k8s.WORKERS
    wargs = w["command"]
    assert wargs[wargs.index("--master-host") + 1] == service["metadata"]["name"]
    assert wargs[wargs.index("--master-port") + 1] == str(k8s.MASTER_PORT)
    for job in (master, worker):
        spec = job["spec"]["template"]["spec"]
        assert spec["securityContext"]["runAsNonRoot"] and spec["restartPolicy"] == "Never"
        for c in spec["containers"]:
            assert c["securityContext"]["readOnlyRootFilesystem"] and c["resources"]["limits"]


def test_the_load_image_is_the_stacks_with_locust_and_the_kit() -> None:
    """loadtest/Dockerfile builds :data:`loadtest.k8s.LOAD_IMAGE` from the stack's image
    (manifests.IMAGE), with locust at requirements-dev.txt's pin and loadtest/ in /app, run as the
    stack's user."""
    parsed = DockerfileParser(path=str(ROOT / "loadtest" / "Dockerfile"))
    assert parsed.baseimage == IMAGE and k8s.LOAD_IMAGE != IMAGE
    steps = [(i["instruction"], i["value"]) for i in parsed.structure]
    assert ("COPY", "loadtest/ /app/loadtest/") in steps
    assert any(op == "RUN" and "^locust==" in v and "requirements-dev.txt" in v for op, v in steps)
    assert steps[-2:] == [("USER", f"{APP_UID}:{APP_UID}"), ("WORKDIR", "/app")]
    assert any(line.startswith("locust==") for line in (ROOT / "requirements-dev.txt").read_text().splitlines())
