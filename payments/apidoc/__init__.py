"""The API document (`/openapi.json`, `/docs/`): drf-spectacular's generator, with what every operation shares
derived from the views, so that a new endpoint is documented by its docstring alone (docs/api-document.md).

- Summary and description: the first line of the action's docstring and the rest; an action a viewset inherits
  (`list`, `retrieve`, `destroy`) takes the `<action>:` section of the viewset's own docstring instead.
- Error responses, in the envelope: 400 (every endpoint refuses unknown query parameters and bad input), 401 when
  it reads a token, 403 when it checks scopes and the merchant account, 404 when its path names an object, 409 when
  it honours `Idempotency-Key`, 429 when the action is rate limited. A docstring line `409: when ...` documents any
  other answer (a business rule) with its reason.
- The `x-gr4vy-merchant-account-id` header wherever the merchant account is resolved.
- Examples for request and response fields by name (`EXAMPLES`), kept only where they fit the field's schema.

text.py reads an operation's docstrings, autoschema.py is the `DEFAULT_SCHEMA_CLASS`, hooks.py the postprocessing hooks.
"""
