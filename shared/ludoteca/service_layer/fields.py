"""The marshmallow fields every game's schemas and the shared options share: strict JSON types
and the named enum (one component schema in the OpenAPI document, one enum class in a generated
client). The hosting layer documents ``enum_name`` (:mod:`ludoteca.adapters.hosting.document`)."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

ENUM_NAME = "enum_name"
"""The metadata key that names a string field's enum component."""


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` only (never ``1``, ``"yes"`` or ``"on"``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if value is True or value is False:
            return value
        raise self.make_error("invalid", input=value)


def strict_integer(**kwargs: Any) -> fields.Integer:
    """A JSON integer only: a float (``2.6e-42``, even ``2.0``), a boolean or a string is refused."""
    return fields.Integer(strict=True, **kwargs)


def named_enum(name: str, choices: list[str], **kwargs: Any) -> fields.String:
    """A string field of a fixed set of values, documented as the component schema ``name``
    (one enum class in a generated client, however many properties use it; a nullable one is
    ``anyOf`` that schema or null)."""
    metadata = {**kwargs.pop("metadata", {}), ENUM_NAME: name}
    return fields.String(validate=validate.OneOf(choices), metadata=metadata, **kwargs)
