"""A plugin entry's own settings, decoded by the rule every aiperf plugin
follows (Go's sdk.DecodeConfig): the host's Configure call carries them as
one JSON object, before Init; an unknown key, a value of the wrong type or
anything but an object is refused with a message naming the setting. A
plugin (or one of its categories) without settings refuses any."""

import json

from .errors import PluginError

# JSON type names, as Go's decoder reports them ("string is not a bool").
_JSON_TYPES = ((bool, "bool"), (str, "string"), ((int, float), "number"), (list, "array"), (dict, "object"))


def _json_type(value):
    for types, name in _JSON_TYPES:
        if isinstance(value, types):
            return name
    return "null"


def _fits(value, kind):
    if kind is bool:
        return isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, kind)


def _object(config_json):
    """config_json (bytes) -> dict; empty input and null hold no settings."""
    text = bytes(config_json).decode("utf-8", errors="replace").strip()
    if not text or text == "null":
        return {}
    try:
        value = json.loads(text)
    except ValueError as e:
        raise PluginError(f"settings are not a JSON object: {e}") from None
    if not isinstance(value, dict):
        raise PluginError(f"settings are not a JSON object: got a JSON {_json_type(value)}")
    return value


def decode(config_json, defaults, types):
    """Returns defaults updated with the settings in config_json. types maps
    every known key to its Python type (bool, int, float, str)."""
    out = dict(defaults)
    for key, value in _object(config_json).items():
        if key not in types:
            raise PluginError(f'unknown setting "{key}"')
        kind = types[key]
        if not _fits(value, kind):
            raise PluginError(f'setting "{key}": {_json_type(value)} is not a {kind.__name__}')
        out[key] = kind(value)
    return out


def refuse_any(config_json, label):
    """For a plugin entry without settings: empty settings pass, any key is
    refused naming the entry (category.name)."""
    keys = sorted(_object(config_json))
    if keys:
        got = ", ".join(f'"{k}"' for k in keys)
        raise PluginError(f"plugin {label} takes no settings (got {got})")
