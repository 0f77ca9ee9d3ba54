"""What a service's OpenAPI document says beyond its routes and schemas: where to send requests,
how nullable and enumerated properties read to a generator, that public operations need no
token, and the examples the engine makes (:mod:`ludoteca.adapters.hosting.examples`).

The exported files (``openapi/<game>.json``, ``make openapi``) list every way in; the document a
service serves at ``/openapi.json`` names the one it was fetched through, so a client reading it
(Swagger UI's "Try it out" at ``/<game>/docs``, a generator pointed at the URL) calls the routes
where they are: ``/<game>/games`` through the front door, which strips ``/<game>`` and sends
``X-Forwarded-Prefix: /<game>`` (``ProxyFix`` turns it into the request's script root), and
``/games`` straight to the service.
"""

from __future__ import annotations

import copy
import json
import re
from types import SimpleNamespace
from typing import Any

import flask
import marshmallow as ma
from apispec import APISpec, BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from ludoteca.adapters.hosting.examples import operation_examples
from ludoteca.adapters.hosting.problems import ProblemApi
from ludoteca.adapters.hosting.schemas import action_ref_to_property
from ludoteca.core.engine import GameDefinition
from ludoteca.service_layer.fields import ENUM_NAME

NULL: dict[str, Any] = {"type": "object", "nullable": True, "enum": [None]}
"""The null alternative of a nullable ``$ref`` (OpenAPI 3.0 has no null type; ``nullable`` alone
beside a ``$ref`` means nothing): ``anyOf: [{$ref}, NULL]`` reads as "that schema or null" to a
validator and to a generator (openapi-python-client: ``Result | None``, one class), where
apispec's own ``anyOf: [{type: object, nullable: true}, {$ref}]`` reads as "any object". (The
``type`` is there for the validators that refuse ``nullable`` without one; ``enum: [null]``
admits null only.)"""

#: A prefix worth naming in ``servers``: one or more plain path segments (anything else sent as
#: ``X-Forwarded-Prefix`` is ignored: the document then says ``/``).
PREFIX = re.compile(r"(?:/[A-Za-z0-9._~-]{1,64}){1,8}")


def public_server(game: str) -> dict[str, Any]:
    """The game's public base URL, one variable: what a generated client (Kotlin's, Swift's,
    TypeScript's) takes as its default base path, so the default must reach the game from outside:
    the front door's origin and the game's prefix (a relative URL or a service's own port does not,
    from a phone)."""
    return {"url": "{base}",
            "description": "The game's public base URL: the front door's origin and the game's prefix",
            "variables": {"base": {"default": f"http://127.0.0.1:8000/{game}",
                                   "description": f"`make run`: http://127.0.0.1:8000/{game}; a deployment: its own "
                                                  f"origin, e.g. https://games.example.org/{game}"}}}


def exported_servers(game: str) -> list[dict[str, Any]]:
    """The ``servers`` of the exported file: the public base URL (a variable, defaulting to
    ``make run``'s front door), then the front door of the host serving the file (relative)."""
    return [
        public_server(game),
        {"url": f"/{game}",
         "description": f"Through the front door, on the host that serves this document: `make run` "
                        f"serves it at http://127.0.0.1:8000/{game}/openapi.json"},
    ]


def served_servers(script_root: str, game: str) -> list[dict[str, Any]]:
    """The ``servers`` of the document served to this request: its prefix, relative (``/``
    straight to the service), then the public base URL (:func:`public_server`)."""
    if PREFIX.fullmatch(script_root):
        here = {"url": script_root, "description": "Through the front door (the prefix this document came by)"}
    else:
        here = {"url": "/", "description": "This service (the document was fetched straight from it)"}
    return [here, public_server(game)]


def install_property_rules(api: Any) -> None:
    """Replace apispec's ``field2nullable`` (the last of its attribute functions) by
    :func:`_nullable_and_enums`: nullable ``$ref``s as ``anyOf`` the schema or :data:`NULL`, and the
    fields made with ``named_enum`` (:mod:`ludoteca.service_layer.fields`) as a ``$ref`` to their
    enum's component schema."""
    converter = api.ma_plugin.converter
    spec = converter.spec
    functions = converter.attribute_functions
    index = next(i for i, f in enumerate(functions) if getattr(f, "__name__", "") == "field2nullable")

    def nullable_and_enums(field: ma.fields.Field[Any], ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return _nullable_and_enums(spec, field, ret)

    functions[index] = nullable_and_enums
    converter.add_attribute_function(default_in_words)


def query_parameters(schema: type[ma.Schema]) -> list[dict[str, Any]]:
    """``schema``'s fields as OpenAPI query parameters, written by the documents' own rules
    (:func:`install_property_rules`): for a route whose hand-written ``parameters`` (a header)
    replace the ones flask-smorest would make from its query schema, so the query is still
    declared once, by the schema."""
    plugin = MarshmallowPlugin()
    APISpec("parameters", "1", "3.0.3", plugins=[plugin])
    install_property_rules(SimpleNamespace(ma_plugin=plugin))
    assert plugin.converter is not None  # made by the spec's init
    return list(plugin.converter.schema2parameters(schema, location="query"))


def default_in_words(self: Any, field: ma.fields.Field[Any], ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A property's ``default`` said in its description instead: openapi-typescript (and others)
    read a ``default`` as "always present", which makes an optional request field required
    (issue 21: 36 of them: `name`, `seat`, every option). The server applies the default."""
    if "default" not in ret:
        return {}
    default = ret.pop("default")
    if default is None:
        return {}
    words = f"Default: `{json.dumps(default)}`."
    text = ret.get("description", "").rstrip()
    if "default" not in text.lower():
        ret["description"] = f"{text}{'' if text.endswith('.') else '.'} {words}" if text else words
    return {}


def _nullable_and_enums(spec: Any, field: ma.fields.Field[Any], ret: dict[str, Any]) -> dict[str, Any]:
    name = field.metadata.get(ENUM_NAME)
    if name is not None:
        schema = {"type": ret.pop("type"), "enum": [v for v in ret.pop("enum") if v is not None]}
        if name not in spec.components.schemas:
            spec.components.schema(name, schema)
        ref = {"$ref": f"#/components/schemas/{name}"}
        if field.allow_none or ret:  # siblings of a $ref mean nothing in OpenAPI 3.0
            ret["allOf"] = [ref]
        else:
            ret.update(ref)
    if not field.allow_none:
        return {}
    if "$ref" in ret:
        return {"anyOf": [{"$ref": ret.pop("$ref")}, dict(NULL)]}
    if "allOf" in ret:
        return {"anyOf": [*ret.pop("allOf"), dict(NULL)]}
    return {"nullable": True}


class PublicOperations(BasePlugin):
    """An operation that names no security scheme is public: it says so (``security: []``)."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            if method in ("get", "post", "put", "patch", "delete") and isinstance(operation, dict):
                operation.setdefault("security", [])


def document_public_operations(api: Any) -> None:
    plugin = PublicOperations()
    plugin.init_spec(api.spec)
    api.spec.plugins.append(plugin)


class DocumentedApi(ProblemApi):
    """The Api of a game service: problem+json errors, the property rules above (installed
    before the first schema is resolved: the problem responses), public operations marked, and a
    served document whose ``servers`` follow the prefix the request came by."""

    def _register_responses(self) -> None:
        install_property_rules(self)
        self.ma_plugin.converter.add_attribute_function(action_ref_to_property)
        document_public_operations(self)
        super()._register_responses()

    def _register_pagination_header(self) -> None:
        """None: no route pages with flask-smorest's pagination (its schema would be an unused
        component)."""

    definition: GameDefinition | None = None
    """The game whose engine makes the document's examples (set by ``create_app``)."""

    def document(self, script_root: str | None = None) -> dict[str, Any]:
        """The whole document: the exported one, or (``script_root``: the request's prefix) the
        one served to a request. Both carry the engine's examples (:mod:`~ludoteca.adapters.hosting.examples`)."""
        spec: dict[str, Any] = self.spec.to_dict()
        drop_unused_problems(spec)
        if self.definition is not None:
            add_examples(spec, _examples(self.definition))
        if script_root is not None and self.definition is not None:
            spec["servers"] = served_servers(script_root, self.definition.name)
        return spec

    def _openapi_json(self) -> flask.Response:
        return flask.current_app.response_class(
            flask.json.dumps(self.document(flask.request.script_root), indent=2, sort_keys=False),
            mimetype="application/json")


def drop_unused_problems(spec: dict[str, Any]) -> None:
    """Remove the problem schemas no operation refers to: apispec registers a response's schema
    when the response is declared, lazy or not, so every special problem (412's, 409's) is in
    every document, used or not (the players service answers no 412: an unused component)."""
    schemas = spec.get("components", {}).get("schemas", {})
    for name in [n for n in schemas if n.endswith("Problem")]:
        others = {k: v for k, v in schemas.items() if k != name}
        if f'"#/components/schemas/{name}"' not in json.dumps({**spec, "components": {**spec["components"],
                                                                                       "schemas": others}}):
            del schemas[name]


_EXAMPLES: dict[str, dict[str, dict[str, Any]]] = {}
"""Each game's examples, made once per process (a fixed seed: always the same)."""


def _examples(definition: GameDefinition) -> dict[str, dict[str, Any]]:
    if definition.name not in _EXAMPLES:
        _EXAMPLES[definition.name] = operation_examples(definition)
    return copy.deepcopy(_EXAMPLES[definition.name])


def add_examples(spec: dict[str, Any], examples: dict[str, dict[str, Any]]) -> None:
    """Put each operation's example request body and main (2xx) answer in place; an example's
    ``summary`` goes into the answer's description."""
    for item in spec["paths"].values():
        for method, operation in item.items():
            example = examples.get(operation.get("operationId", "")) if method != "parameters" else None
            if example is None:
                continue
            if "request" in example:
                operation["requestBody"]["content"]["application/json"]["example"] = example["request"]
            if "response" in example:
                status = min(code for code in operation["responses"] if code.startswith("2"))
                response = operation["responses"][status]
                response["content"]["application/json"]["example"] = example["response"]
                if "summary" in example:  # said in the answer's description: openapi-generator's tools
                    # log "Failed to get the schema name: null" for a named `examples` entry (issue 21)
                    response["description"] = f"{response['description']}. Example: {example['summary']}"
