"""The test database as a URL, for a process the tests start (a worker, a server)."""

from urllib.parse import quote

from django.db import connection


def database_url() -> str:
    db = connection.settings_dict
    host = quote(db["HOST"] or "127.0.0.1", safe="")
    auth = quote(db["USER"] or "", safe="") + (f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{host}:{db['PORT'] or 5432}/{db['NAME']}"
