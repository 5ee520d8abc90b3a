"""The two kinds of model of the wire contract, and how the server's answers become JSON.

- `Wire`: what the server sends (views, messages, REST answers). Frozen: a view is shared by every
  client of a game and never changed once built. Unknown keys are ignored when a client reads
  one, so a newer server may add a field without breaking an older client.
- `Strict`: what a client sends. Unknown keys are refused; the WebSocket's messages are also read
  in strict mode (`parse_client_message`), where `"seq": true` or `"seq": "0"` is not a number.

A field that is sometimes absent (a cell's `doubled`, the view's `turn` once the game is over) is
left unset rather than set to null, and only the fields that were set are written, by every
writer (`to_json`, `model_dump`, FastAPI's `response_model`): the JSON is exactly what the
interfaces have always read, and the schema says such a field may be missing, never null.

Speed: the server builds and sends a view after every event of every game, from data the engine
has typed already. `Wire.build` makes a model from such trusted values without validating them
(what `model_construct` does, a few times faster: it skips the alias handling these models do not
use), and `to_json` writes a model with orjson, which reads each model's fields directly; both are
several times faster than pydantic's own paths (benchmarks/view.py). Tests check that every view
built this way validates and reads back the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticUndefined

_set = object.__setattr__

#: A field that is left out of the JSON rather than written as null: `int | Absent = absent()`.
Absent = SkipJsonSchema[None]


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def absent(description: str | None = None) -> Any:
    """The default of a field that is sometimes left out (None here; never null in the JSON)."""
    return Field(default=None, description=description, json_schema_extra=_no_default)


class Wire(BaseModel):
    """A server-to-client structure."""

    # The JSON of a model whose class keeps it (`keeps_json`), written once: a game's rules and
    # sheets are sent again with every roll, unchanged.
    __slots__ = ("_json",)
    model_config = ConfigDict(frozen=True, extra="ignore")

    #: Whether `to_json` keeps this model's JSON text for the next time (large, shared parts).
    keeps_json: ClassVar[bool] = False

    #: Every field in declaration order with its default (None for a required one): `build`
    #: fills what it is not given from here, keeping the fields' order.
    _template: ClassVar[dict[str, Any]] = {}
    #: The set of every field's name, shared by the models `build` gives every field (most of
    #: them: a set is 200 bytes, and a game's views keep over a hundred models). Never changed
    #: in place: pydantic copies a model's set before it adds to it (`model_copy`).
    _all_fields: ClassVar[set[str]] = set()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._template = {
            name: None if field.default is PydanticUndefined else field.default
            for name, field in cls.model_fields.items()
        }
        cls._all_fields = set(cls._template)

    @classmethod
    def build(cls, **values: Any) -> Self:
        """A model of trusted, already typed values (no validation): the given fields are set,
        the others take their defaults and stay unset. Values must be what the fields hold
        (models, lists, dicts, tuples, plain scalars), as `model_construct` expects."""
        model = cls.__new__(cls)
        template = cls._template
        if len(values) == len(template):
            _set(model, "__dict__", values)
            _set(model, "__pydantic_fields_set__", cls._all_fields)
        else:
            _set(model, "__dict__", template | values)
            _set(model, "__pydantic_fields_set__", set(values))
        _set(model, "__pydantic_extra__", None)
        _set(model, "__pydantic_private__", None)
        return model

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            # Only reached for a missing attribute: a record's own keys (extra fields), else
            # nothing (these models have no private attributes; pydantic's own fallback for
            # them takes microseconds, and orjson asks each model it writes for one).
            try:
                extra = object.__getattribute__(self, "__pydantic_extra__")
            except AttributeError:
                extra = None
            if extra and name in extra:
                return extra[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # No return annotation on purpose: with one, pydantic would describe what this returns
    # (anything) instead of the model's own fields in the serialization schema.
    @model_serializer(mode="wrap")
    def _set_fields_only(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        # pydantic's own writers (`model_dump`, FastAPI's `response_model`) also leave out the
        # fields that were not set, so every path writes the same JSON.
        data = handler(self)
        given = self.__pydantic_fields_set__
        fields = type(self).__pydantic_fields__
        if not isinstance(data, dict) or given.issuperset(fields):
            return data
        return {name: value for name, value in data.items() if name in given or name not in fields}

    def to_json(self) -> str:
        """The JSON text, with only the fields that were set (orjson: the fast path)."""
        return dumps(self)

    def to_data(self) -> dict[str, Any]:
        """The same as plain JSON data (dicts and lists)."""
        data: dict[str, Any] = self.model_dump(mode="json")
        return data


def _fields(model: Any) -> Any:
    """orjson's hook for the models it meets: their set fields, in declaration order (or the
    JSON text kept from the last time, for the models that keep it)."""
    try:
        keeps = model.keeps_json  # a class attribute of every Wire model
        values = model.__dict__
        given = model.__pydantic_fields_set__
        extra = model.__pydantic_extra__
    except AttributeError:
        raise TypeError(f"{type(model).__name__} is not JSON") from None
    if keeps:
        try:
            return object.__getattribute__(model, "_json")
        except AttributeError:
            # A copy of exactly its size: the bytes orjson returns keep the whole buffer it
            # wrote into (4 KiB at least), and a game keeps some sixty of these.
            written = orjson.dumps(_set_fields(model), default=_fields)
            text = orjson.Fragment(bytes(memoryview(written)))
            _set(model, "_json", text)
            return text
    if extra:  # a record's own keys
        return {name: value for name, value in values.items() if name in given} | extra
    if len(given) == len(values):
        return values
    return {name: value for name, value in values.items() if name in given}


def _set_fields(model: Wire) -> dict[str, Any]:
    values = model.__dict__
    given = model.__pydantic_fields_set__
    extra = model.__pydantic_extra__
    if extra:
        return {name: value for name, value in values.items() if name in given} | extra
    if len(given) == len(values):
        return values
    return {name: value for name, value in values.items() if name in given}


def dumps(value: Any) -> str:
    """JSON text of models (only their set fields) and plain data."""
    return orjson.dumps(value, default=_fields).decode()


class Strict(BaseModel):
    """A client-to-server structure: unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")


def _require_type(schema: dict[str, Any]) -> None:
    schema["required"] = ["type", *schema.get("required", [])]
    schema["properties"]["type"].pop("default", None)


class Tagged(Wire):
    """A message with a `type` tag, written even when the tag was left to its default."""

    model_config = ConfigDict(json_schema_extra=_require_type)

    def model_post_init(self, context: Any, /) -> None:
        self.__pydantic_fields_set__.add("type")

    @classmethod
    def build(cls, **values: Any) -> Self:
        return super().build(type=cls._template["type"], **values)
