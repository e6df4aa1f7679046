"""The server's PostgreSQL backend (`DATABASES["default"]["ENGINE"]` for a `postgres://` DATABASE_URL): Django's own,
with the costs it pays on every request and need not taken out (docs/performance.md).

- `timestamps`: `timestamptz` values read by psycopg's compiled loader on a session in UTC.
- `compiler`: a one-row `INSERT` built once per model and columns, its values bound each time.
- `preparing`: statements sent unprepared for a block (searches and filters, the desk, scheduled jobs, reports), each
  planned for its own values.
- `base`: the backend Django loads, and psycopg's cache of parsed statements made wide enough for a transaction's row.
"""
