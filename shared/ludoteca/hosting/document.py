"""What a service's OpenAPI document says beyond its routes and schemas: where to send requests.

The exported files (``openapi/<game>.json``, ``make openapi``) list every way in; the document a
service serves at ``/openapi.json`` names the one it was fetched through, so a client reading it
(Swagger UI's "Try it out" at ``/<game>/docs``, a generator pointed at the URL) calls the routes
where they are: ``/<game>/games`` through the front door, which strips ``/<game>`` and sends
``X-Forwarded-Prefix: /<game>`` (``ProxyFix`` turns it into the request's script root), and
``/games`` straight to the service.
"""

from __future__ import annotations

import re
from typing import Any

import flask
from ludoteca.hosting.problems import ProblemApi

#: A prefix worth naming in ``servers``: one or more plain path segments (anything else sent as
#: ``X-Forwarded-Prefix`` is ignored: the document then says ``/``).
PREFIX = re.compile(r"(?:/[A-Za-z0-9._~-]{1,64}){1,8}")


def exported_servers(game: str) -> list[dict[str, Any]]:
    """The ``servers`` of the exported file: the front door first (relative: the host that
    serves the document), then one service on its own."""
    return [
        {"url": f"/{game}",
         "description": f"Through the front door, on the host that serves this document: `make run` "
                        f"serves it at http://127.0.0.1:8000/{game}/openapi.json"},
        {"url": "http://{host}:{port}",
         "description": "Straight to one service, without the front door (no prefix)",
         "variables": {"host": {"default": "127.0.0.1", "description": "The service's host"},
                       "port": {"default": "8000", "description": "The port its gunicorn binds"}}},
    ]


def served_servers(script_root: str) -> list[dict[str, Any]]:
    """The ``servers`` of the document served to this request: its prefix, relative (``/``
    straight to the service)."""
    if PREFIX.fullmatch(script_root):
        return [{"url": script_root, "description": "Through the front door (the prefix this document came by)"}]
    return [{"url": "/", "description": "This service (the document was fetched straight from it)"}]


class DocumentedApi(ProblemApi):
    """The Api of a game service: problem+json errors, and a served document whose ``servers``
    follow the prefix the request came by."""

    def _openapi_json(self) -> flask.Response:
        spec: dict[str, Any] = self.spec.to_dict()
        spec["servers"] = served_servers(flask.request.script_root)
        return flask.current_app.response_class(flask.json.dumps(spec, indent=2, sort_keys=False),
                                                mimetype="application/json")
