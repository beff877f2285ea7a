"""The JSON Schema of the spec, for editors and for `schemas/opspec.schema.json`."""

from __future__ import annotations

import json

from .models import OpSpec


def spec_json_schema() -> str:
    schema = OpSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "opgen op spec"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
