"""The JSON column every model uses: Django's `JSONField`, whose stored text is read back by orjson.

Every row a list page renders decodes its JSON columns (a buyer's billing details, a transaction's several), and
the standard library's decoder is about five times slower at it. orjson reads only what it reads exactly as the
standard library does; everything else goes to Django's own reading: a custom `decoder`, text orjson refuses (`NaN`,
an unpaired surrogate, a number beyond a double), and text with a run of 19 digits or more, since orjson turns an
integer beyond 64 bits into a float where the standard library keeps it exact.
"""

from typing import Any

import orjson
from django.db import models

# Any integer of 18 digits or fewer fits in 64 bits; a run of 19 may not (a string holding one takes the slow road
# for nothing, which is only slower). Found by turning every digit into "0" and looking for the run: a regular
# expression scanning for it costs four times what orjson's whole reading does.
_DIGITS_AS_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19


class JSONField(models.JSONField):
    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None:
            return None  # SQL's NULL, as Django reads it: most of a transaction's dozen JSON columns on most rows
        if isinstance(value, str) and self.decoder is None:
            text = value.encode("utf-8", "surrogatepass")  # a lone surrogate is invalid UTF-8: orjson refuses it
            if _LONG_NUMBER not in text.translate(_DIGITS_AS_ZEROS):
                try:
                    return orjson.loads(text)
                except orjson.JSONDecodeError:
                    pass  # Django's reading decides: it keeps what is not JSON (a key's bare text on SQLite) as it is
        return super().from_db_value(value, expression, connection)

    def deconstruct(self) -> tuple[Any, ...]:
        # The column, its lookups and its migrations are Django's field's; only reading differs.
        name, _, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs
