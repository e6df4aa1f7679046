"""What a database error quotes of the data it failed on, kept out of every log line and every error answer.

PostgreSQL adds fields to an error that quote data: `DETAIL` (`Failing row contains (...)`, the whole row with its
card fingerprint, BIN, last 4 and ids; `Key (number_digest)=(...) already exists`) and `CONTEXT` (a bound
parameter's value). psycopg puts them in the exception's text, one `DETAIL:  ...` line after the message, so every
traceback and every `str(error)` carries them. The message itself (`new row for relation "transactions_transaction"
violates check constraint "transaction_amounts_not_negative"`) names the table and the constraint, which is what an
operator needs, and stays. SQLite's messages name only the constraint (`CHECK constraint failed: ...`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

WITHHELD = "[database detail withheld]"

# psycopg's text of an error: the message, then one line per field (`DETAIL:  `, `HINT:  `, `CONTEXT:  `...). A
# field's value can span lines (a row's text column may hold newlines), so a field runs to where a traceback goes on
# (the next chained exception, a new traceback) or to the end of the text.
_FIELD = re.compile(
    r"^(?:DETAIL|HINT|CONTEXT|QUERY|WHERE|STATEMENT|LOCATION):  .*?"
    r"(?=\n\n(?:The above exception was|During handling of the above exception)|\nTraceback \(|\Z)",
    re.MULTILINE | re.DOTALL,
)


def _chain(errors: Iterable[BaseException]) -> Iterator[BaseException]:
    """Each error with every exception it was raised from or while handling, once."""
    seen: set[int] = set()
    pending = list(errors)
    while pending:
        error = pending.pop()
        if id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        pending.extend(cause for cause in (error.__cause__, error.__context__) if cause is not None)


def _database_texts(errors: Iterable[BaseException]) -> Iterator[tuple[str, str]]:
    """(full text, message only) of each psycopg error among `errors` and their chains.

    Exact, whatever the server's language (`DETALLE:`, `DÉTAIL :`): psycopg's `diag` gives the message apart from
    the fields. Django's wrapper of a psycopg error (`django.db.IntegrityError`) has the same text, so replacing
    the text covers both in a traceback.
    """
    for error in _chain(errors):
        primary = getattr(getattr(error, "diag", None), "message_primary", None)
        if not isinstance(primary, str):
            continue
        text = str(error)
        if text != primary:
            yield text, primary


def _escaped(text: str) -> str:
    """`text` as a repr writes it inside its quotes (`%r` of an error, or of arguments that carry one)."""
    return repr(text)[1:-1]


def withhold_database_detail(text: str, errors: Iterable[BaseException] = ()) -> str:
    """`text` with what database errors quote replaced by `WITHHELD`: exactly for the `errors` given (those whose
    text `text` may hold, with their chains), as written or as a repr writes them, and by their English field names
    for any other."""
    for full, primary in _database_texts(errors):
        kept = f"{primary} {WITHHELD}"
        text = text.replace(full, kept).replace(_escaped(full), _escaped(kept))
    return _FIELD.sub(WITHHELD, text)
