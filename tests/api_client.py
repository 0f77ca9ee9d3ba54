"""A thin JSON client over the Flask test client, asserting every error is problem+json."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

PROBLEM = "application/problem+json"


class Api:
    """A thin client: JSON in, (status, JSON, headers) out."""

    def __init__(self, client: FlaskClient) -> None:
        self.c = client

    def call(self, method: str, path: str, token: str | None = None, body: Any = None,
             headers: dict[str, str] | None = None, raw: bytes | str | None = None) -> tuple[int, Any, Any]:
        h = dict(headers or {})
        if token is not None:
            h["Authorization"] = f"Bearer {token}"
        kwargs: dict[str, Any] = {"headers": h}
        if raw is not None:
            kwargs["data"] = raw
            kwargs["content_type"] = "application/json"
        elif body is not None:
            kwargs["json"] = body
        resp = self.c.open(path, method=method, **kwargs)
        data = resp.get_json(silent=True, force=True) if resp.data else None
        if resp.status_code >= 400:
            assert resp.mimetype == PROBLEM, (resp.status_code, resp.data)
            assert data["status"] == resp.status_code and data["title"] and data["type"]
        return resp.status_code, data, resp.headers

    def create(self, seats: list[str], options: dict[str, Any] | None = None, **extra: Any) -> tuple[str, str | None]:
        status, data, _ = self.call("POST", "/games", body={"seats": seats, "options": options or {}, **extra})
        assert status == 201, data
        return data["game"]["id"], data["token"]

    def join(self, game_id: str, **body: Any) -> tuple[int, Any]:
        status, data, _ = self.call("POST", f"/games/{game_id}/players", body=body)
        return status, data

    def view(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        status, data, _ = self.call("GET", f"/games/{game_id}", token)
        assert status == 200, data
        return data

    def actions(self, game_id: str, token: str) -> dict[str, Any]:
        status, data, _ = self.call("GET", f"/games/{game_id}/actions", token)
        assert status == 200, data
        return data

    def play(self, game_id: str, token: str, action: dict[str, Any], **headers: str) -> tuple[int, Any, Any]:
        return self.call("POST", f"/games/{game_id}/actions", token, body=action,
                         headers={k.replace("_", "-"): v for k, v in headers.items()})
