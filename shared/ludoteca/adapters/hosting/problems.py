"""RFC 9457 problem details: the one renderer for every error, and an Api that documents it."""

from __future__ import annotations

import errno
import http
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import marshmallow as ma
import redis
from flask import Flask, Response, current_app, has_request_context, request
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from ludoteca.adapters import observe
from ludoteca.adapters.hosting.accesslog import request_id
from ludoteca.adapters.store import store_unavailable
from ludoteca.core import jsontext
from ludoteca.core.errors import LudotecaError
from redis.exceptions import RedisClusterException
from werkzeug.exceptions import HTTPException

PROBLEM_JSON = "application/problem+json"
RESERVED = ("type", "title", "status", "detail", "instance", "request_id")
TYPE_BASE = "https://ludoteca.dev/problems/"
log = logging.getLogger("ludoteca.core.errors")


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details. Problems of some statuses carry extension members (documented
    per status below). The document says nothing of other members (``EXCLUDE``: no
    ``additionalProperties``), which JSON Schema admits all the same: an explicit
    ``additionalProperties: true`` made TypeScript's generated problems carry an index signature,
    through which no member can be told apart (a 412's ``current_version`` typed ``unknown``;
    issue 21). The server only writes problems, never loads one."""

    class Meta:
        unknown = ma.EXCLUDE

    type = ma.fields.String(required=True, metadata={"description": "URI naming the kind of problem"})
    title = ma.fields.String(required=True, metadata={"description": "Short summary of the kind"})
    status = ma.fields.Integer(required=True, metadata={"description": "HTTP status code"})
    detail = ma.fields.String(metadata={"description": "What went wrong with this request"})
    instance = ma.fields.String(metadata={"description": "The request path"})
    request_id = ma.fields.String(metadata={
        "description": "The request's id, as in the response's `X-Request-Id` header and the access log (the "
                       "request's own `X-Request-Id` when it is a sane token, else generated)"})


class ValidationProblemSchema(ProblemSchema):
    """422: the request's fields are not valid (or an ``Idempotency-Key`` was reused)."""

    errors = ma.fields.Dict(metadata={"description": "Field errors: field name to messages; nested "
                                                    "fields map to objects of the same shape"})
    rule_error = ma.fields.Dict(metadata={
        "description": "Ludic: why a rule was refused, as `/rules/check` reports it: message, reason, "
                       "line, column, expected"})


class PreconditionFailedProblemSchema(ProblemSchema):
    """412: ``If-Match`` named a version the game has moved on from."""

    current_version = ma.fields.Integer(metadata={"description": "The game's version now: GET the game "
                                                                "again before choosing a move"})


#: The problem schema of each status that has extension members (the others: ProblemSchema).
#: 409's is per game (its `legal` actions are the game's): ``GameSchemas.conflict``.
PROBLEM_SCHEMAS: dict[int, type[ProblemSchema]] = {412: PreconditionFailedProblemSchema,
                                                   422: ValidationProblemSchema}


@dataclass(frozen=True)
class At:
    """Where a problem happened, for a renderer called outside Flask's request context (the hot
    routes, :mod:`ludoteca.adapters.hosting.hotroutes`): what the request context would say."""

    path: str
    request_id: str
    game: str
    operation: str
    """The metrics' operation label: the method and the route's rule (``POST /games/<string:game_id>/actions``)."""


def problem_response(status: int, slug: str, title: str, detail: str | None = None,
                     extra: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
                     at: At | None = None) -> Response:
    body: dict[str, Any] = {"type": TYPE_BASE + slug, "title": title, "status": status}
    if detail:
        body["detail"] = detail
    if at is not None:
        body["instance"] = at.path
        body["request_id"] = at.request_id
    elif has_request_context():
        body["instance"] = request.path
        body["request_id"] = request_id()
    if extra:  # extension members never override the standard ones
        body.update({k: v for k, v in extra.items() if k not in RESERVED})
    return Response(jsontext.dumps(body), status=status, headers=headers, mimetype=PROBLEM_JSON)


def _slug(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase.lower().replace(" ", "-").replace("'", "")
    except ValueError:
        return "error"


def render_ludoteca_error(err: LudotecaError, at: At | None = None) -> Response:
    headers = {"Retry-After": str(err.retry_after)} if err.retry_after is not None else None
    return problem_response(err.status, err.slug, err.title, err.detail, err.extra, headers, at)


def render_redis_error(err: redis.RedisError | RedisClusterException, at: At | None = None) -> Response:
    """Redis down, hung, loading or refusing writes: 503 with ``Retry-After``, never a 500.
    (A Redis Cluster client raises ``RedisClusterException``, not a ``RedisError``, when no node
    answers: :func:`~ludoteca.adapters.store.store_unavailable` tells which of those are outages.)"""
    unavailable = store_unavailable(err)
    if unavailable is None:
        return render_unexpected(err, at)
    log.warning("the game store is unavailable: %s: %s", type(err).__name__, err)
    if at is not None:
        observe.count_redis_error(at.game, at.operation, err)
    elif has_request_context():
        rule = request.url_rule
        observe.count_redis_error(current_app.name.rpartition(".")[2],
                                  f"{request.method} {rule.rule if rule is not None else 'unmatched'}", err)
    return render_ludoteca_error(unavailable, at)


def render_http_exception(err: HTTPException, at: At | None = None) -> Response:
    status = err.code or 500
    data = getattr(err, "data", None) or {}
    extra: dict[str, Any] = {}
    detail = err.description
    messages = data.get("messages") or data.get("errors")
    if messages:
        # webargs validation: {"json": {...}} or {"query": {...}}; flatten one level
        flat: dict[str, Any] = {}
        for location, errs in messages.items():
            if isinstance(errs, dict):
                flat.update(errs)
            else:
                flat[location] = errs
        extra["errors"] = flat
        detail = "The request's fields are not valid." if status == 422 else "The request is malformed."
    if status == 400 and "Failed to decode JSON" in (detail or ""):
        detail = "The request body is not valid JSON."
    headers = {}
    if status == 405:
        allow = err.get_headers()
        headers = {k: v for k, v in allow if k.lower() == "allow"}
    title = http.HTTPStatus(status).phrase if status in http.HTTPStatus._value2member_map_ else "Error"
    return problem_response(status, _slug(status), title, detail, extra, headers, at)


OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def render_os_error(err: OSError, at: At | None = None) -> Response:
    """Out of file descriptors or buffers (EMFILE, ENFILE, ENOBUFS, ENOMEM): the server is
    overloaded, not broken: 503 with ``Retry-After``, never a 500. The workers size their
    connections so that EMFILE is not reached (:mod:`ludoteca.entrypoints.admission`); this is
    the answer if it is anyway. Any other OSError is unexpected."""
    if err.errno not in OUT_OF_RESOURCES:
        return render_unexpected(err, at)
    log.warning("out of resources: %s", err)
    return problem_response(503, "service-unavailable", "Service Unavailable",
                            "The server is out of resources for the moment; try again shortly.",
                            headers={"Retry-After": "1"}, at=at)


def render_unexpected(err: Exception, at: At | None = None) -> Response:
    log.exception("unhandled error", exc_info=err)
    return problem_response(500, "internal-error", "Internal Server Error",
                            "Something went wrong on our side; the request changed nothing we know of.", at=at)


ERRORS: dict[type[Exception], Callable[..., Response]] = {
    LudotecaError: render_ludoteca_error,
    redis.RedisError: render_redis_error,
    RedisClusterException: render_redis_error,
    HTTPException: render_http_exception,
    OSError: render_os_error,
    Exception: render_unexpected,
}
"""The one error table: each exception class and its renderer (Flask's error handlers, and
:func:`render_error` outside them)."""


def render_error(err: Exception, at: At) -> Response:
    """The problem an error becomes, picked from :data:`ERRORS` as Flask picks its error handler
    (the nearest class in the error's MRO), for code that runs outside Flask's request context."""
    for cls in type(err).__mro__:
        renderer = ERRORS.get(cls)
        if renderer is not None:
            return renderer(err, at)
    return render_unexpected(err, at)  # pragma: no cover - every Exception has one


def install_error_handlers(app: Flask) -> None:
    for cls, renderer in ERRORS.items():
        app.register_error_handler(cls, renderer)


class ProblemApi(Api):
    """flask-smorest Api whose documented error responses are problem+json (``conflict``: the
    409 problem's schema, the game's own)."""

    ERROR_SCHEMA = ProblemSchema

    def __init__(self, app: Flask, conflict: type[ProblemSchema] = ProblemSchema) -> None:
        self.schemas: dict[int, type[ProblemSchema]] = {**PROBLEM_SCHEMAS, 409: conflict}
        super().__init__(app)

    def _register_error_handlers(self) -> None:
        install_error_handlers(self._app)

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.schemas.get(status, self.ERROR_SCHEMA)
                prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)
