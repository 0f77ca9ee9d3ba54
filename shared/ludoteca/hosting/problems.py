"""RFC 9457 problem details: the one renderer for every error, and an Api that documents it."""

from __future__ import annotations

import http
import logging
from typing import Any

import marshmallow as ma
import redis
from flask import Flask, Response, current_app, has_request_context, request
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from ludoteca import jsontext, observe
from ludoteca.errors import LudotecaError
from ludoteca.hosting.accesslog import request_id
from ludoteca.store import store_unavailable
from redis.exceptions import RedisClusterException
from werkzeug.exceptions import HTTPException

PROBLEM_JSON = "application/problem+json"
RESERVED = ("type", "title", "status", "detail", "instance", "request_id")
TYPE_BASE = "https://ludoteca.dev/problems/"
log = logging.getLogger("ludoteca.errors")


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details, with Ludoteca's extension members."""

    type = ma.fields.String(required=True, metadata={"description": "URI naming the kind of problem"})
    title = ma.fields.String(required=True, metadata={"description": "Short summary of the kind"})
    status = ma.fields.Integer(required=True, metadata={"description": "HTTP status code"})
    detail = ma.fields.String(metadata={"description": "What went wrong with this request"})
    instance = ma.fields.String(metadata={"description": "The request path"})
    request_id = ma.fields.String(metadata={
        "description": "The request's id, as in the response's `X-Request-Id` header and the access log (the "
                       "request's own `X-Request-Id` when it is a sane token, else generated)"})
    errors = ma.fields.Dict(metadata={"description": "Field errors: field name to messages (422); nested "
                                                    "fields map to objects of the same shape"})
    legal = ma.fields.List(ma.fields.Dict(), metadata={"description": "The caller's legal actions (409)"})
    legal_count = ma.fields.Integer(metadata={
        "description": "How many legal actions the caller has, instead of `legal` when they are too many to "
                       "list in an error (409; `GET /games/{id}/actions` lists them)"})
    templates = ma.fields.List(ma.fields.Dict(), metadata={
        "description": "The caller's free-text actions, with placeholders (409, beside `legal`)"})
    to_act = ma.fields.List(ma.fields.Integer(), metadata={"description": "Seats the game waits on (409 not "
                                                                          "your turn)"})
    open_seats = ma.fields.List(ma.fields.Integer(), metadata={"description": "Seats still open (409 on join)"})
    game_status = ma.fields.String(validate=ma.validate.OneOf(["waiting_for_players", "active", "finished"]),
                                   metadata={"description": "The game's status (409 when it does not allow this)"})
    current_version = ma.fields.Integer(metadata={"description": "The game's version now (412)"})
    rule_error = ma.fields.Dict(metadata={
        "description": "Ludic: why a rule was refused (422), as `/rules/check` reports it: message, reason, "
                       "line, column, expected"})


def problem_response(status: int, slug: str, title: str, detail: str | None = None,
                     extra: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> Response:
    body: dict[str, Any] = {"type": TYPE_BASE + slug, "title": title, "status": status}
    if detail:
        body["detail"] = detail
    if has_request_context():
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


def render_ludoteca_error(err: LudotecaError) -> Response:
    headers = {"Retry-After": str(err.retry_after)} if err.retry_after is not None else None
    return problem_response(err.status, err.slug, err.title, err.detail, err.extra, headers)


def render_redis_error(err: redis.RedisError | RedisClusterException) -> Response:
    """Redis down, hung, loading or refusing writes: 503 with ``Retry-After``, never a 500.
    (A Redis Cluster client raises ``RedisClusterException``, not a ``RedisError``, when no node
    answers: :func:`~ludoteca.store.store_unavailable` tells which of those are outages.)"""
    unavailable = store_unavailable(err)
    if unavailable is None:
        return render_unexpected(err)
    log.warning("the game store is unavailable: %s: %s", type(err).__name__, err)
    if has_request_context():
        rule = request.url_rule
        observe.count_redis_error(current_app.name.rpartition(".")[2],
                                  f"{request.method} {rule.rule if rule is not None else 'unmatched'}", err)
    return render_ludoteca_error(unavailable)


def render_http_exception(err: HTTPException) -> Response:
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
    return problem_response(status, _slug(status), title, detail, extra, headers)


def render_unexpected(err: Exception) -> Response:
    log.exception("unhandled error", exc_info=err)
    return problem_response(500, "internal-error", "Internal Server Error",
                            "Something went wrong on our side; the request changed nothing we know of.")


def install_error_handlers(app: Flask) -> None:
    app.register_error_handler(LudotecaError, render_ludoteca_error)
    app.register_error_handler(redis.RedisError, render_redis_error)
    app.register_error_handler(RedisClusterException, render_redis_error)
    app.register_error_handler(HTTPException, render_http_exception)
    app.register_error_handler(Exception, render_unexpected)


class ProblemApi(Api):
    """flask-smorest Api whose documented error responses are problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _register_error_handlers(self) -> None:
        install_error_handlers(self._app)

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
                prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)
