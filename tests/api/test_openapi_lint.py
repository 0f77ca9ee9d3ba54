"""The exported OpenAPI documents (every game's and the players service's) pass spectral's
recommended OpenAPI rules (``spectral:oas``) with no error and no warning; the rules turned off
are in tools/openapi-lint/.spectral.yaml, each with its reason. spectral is pinned by
tools/openapi-lint/package-lock.json and installed by ``make install`` (``npm ci``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ludoteca.entrypoints.frontdoor import platform_services
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
LINT = ROOT / "tools" / "openapi-lint"
SPECTRAL = LINT / "node_modules" / ".bin" / "spectral"


def test_every_document_passes_the_lint() -> None:
    assert SPECTRAL.exists(), "spectral is not installed: run `make install` (npm ci in tools/openapi-lint)"
    documents = [ROOT / "openapi" / f"{name}.json" for name in [*registry.names(), *platform_services()]]
    missing = [d.name for d in documents if not d.exists()]
    assert documents and not missing, f"no document {missing}: run make generate"
    run = subprocess.run([str(SPECTRAL), "lint", "--ruleset", str(LINT / ".spectral.yaml"), "--format", "json",
                          "--quiet", *map(str, documents)],
                         capture_output=True, text=True, timeout=240, cwd=ROOT, check=False)
    assert run.stdout.strip().startswith("["), run.stdout[-2000:] + run.stderr[-2000:]
    problems = json.loads(run.stdout)
    found = [f"{Path(p['source']).name} {'.'.join(map(str, p['path']))}: {p['code']} ({p['message']})"
             for p in problems if p["severity"] <= 1]  # 0 error, 1 warning
    assert not found, "\n".join(found)
    assert run.returncode == 0, run.stderr[-2000:]


def test_the_lint_finds_what_it_should(tmp_path: Path) -> None:
    """A broken document (an operation without operationId, a $ref with a sibling) is refused."""
    doc = json.loads((ROOT / "openapi" / "ludix.json").read_text())
    del doc["paths"]["/stats"]["get"]["operationId"]
    doc["components"]["schemas"]["Stats"]["properties"]["games"] = {"$ref": "#/components/schemas/Result",
                                                                      "description": "sibling"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    run = subprocess.run([str(SPECTRAL), "lint", "--ruleset", str(LINT / ".spectral.yaml"), "--format", "json",
                          "--quiet", str(bad)], capture_output=True, text=True, timeout=240, cwd=ROOT, check=False)
    codes = {p["code"] for p in json.loads(run.stdout)}
    assert {"operation-operationId", "no-$ref-siblings"} <= codes, codes
    assert run.returncode != 0
