"""Class mode's storage: a class (a short code, its lesson, the step the teacher has the class on,
the step whose answer the teacher has revealed) and the students' predictions, in a real database
that every server process shares.

SQLite in the cache directory by default (one server process, or several on one machine: SQLite
locks the file), and PostgreSQL when ``DPVIZ_CLASS_DB`` holds a ``postgresql://`` URL (several
server processes or machines serving one class). No accounts and no names:

- a **student** is a random token their browser keeps in a cookie (``webui/identity.py``), so a
  reload or a reconnection to another server process is the same student; a prediction is a
  number or one of the question's choices, never free text, one per student and step (an upsert:
  however often it is sent again, one row);
- a **teacher** is whoever holds the class's secret: 256 random bits, given once to the browser
  that started the class (a cookie), stored here only as its SHA-256, compared in constant time;
- a class expires a day after it starts (:data:`LIFETIME`).

**Faults.** A database that restarts or is briefly out of reach (PostgreSQL), or a file another
process holds locked (SQLite), is retried with exponential backoff for a few seconds before
:class:`StoreUnavailable` is raised. What counts as passing is decided by the driver's error
class and SQLSTATE (:func:`transient`), never by the exception's name: connection exceptions
(SQLSTATE class 08), operator intervention on shutdown or start (57P01, 57P02, 57P03),
serialization failures and deadlocks (40001, 40P01), too many connections (53300), a connection
the client lost (psycopg's ``OperationalError``/``InterfaceError`` without a SQLSTATE), and
SQLite's SQLITE_BUSY and SQLITE_LOCKED. Every write is idempotent, so a retried write never
duplicates a row.

**Limits** (a hosted demo's visitors are strangers): class starts per client address, joins and
predictions per student and per address (:data:`LIMITS`, counted in the store, so across
processes), each refused with one sentence (:class:`LimitError`); at most :data:`MAX_CLASSES`
live classes, and when the store is full the class idle longest gives way (idle: no teacher or
student activity for :data:`IDLE` seconds), so a flood of classes cannot lock a teacher out.
Client addresses are kept only as truncated salted hashes.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from dpviz.errors import InputError
from dpviz.storage import cache_dir

LIFETIME = 24 * 3600
"""Seconds a class lives after it starts."""
IDLE = 15 * 60
"""A class with no activity for this many seconds may give way when the store is full."""
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Code letters, without the ones a student mistakes for each other (0/O, 1/I/L)."""
CODE_LENGTH = 6
MAX_CLASSES = 10_000
"""Live classes a store holds at most (a hosted demo's bound on what visitors can make it keep)."""
SECRET_BYTES = 32
"""The teacher's secret: 256 random bits (URL-safe base64, 43 characters)."""
MAX_TOKEN = 64
"""Longest student token or secret accepted (longer ones are cut before any use)."""
MAX_CHOICE = 100
"""Longest choice text stored."""
PATIENCE = 8.0
"""Seconds a call retries a database that is restarting or locked before giving up."""
FIRST_BACKOFF, MAX_BACKOFF = 0.05, 1.0


@dataclass(frozen=True)
class Limit:
    """At most ``count`` actions of one kind per key in ``seconds``; ``sentence`` says so."""

    count: int
    seconds: float
    sentence: str


LIMITS = {
    "start": Limit(
        10,
        3600,
        "This address has started 10 classes in the last hour, as many as this server allows: use one of "
        "them, or start another in an hour.",
    ),
    "join": Limit(30, 600, "You have joined 30 times in ten minutes: wait a few minutes, then join again."),
    "join-address": Limit(
        1000, 600, "This address has joined 1,000 times in ten minutes: wait a few minutes, then join again."
    ),
    "predict": Limit(60, 600, "You have sent 60 predictions in ten minutes: wait a few minutes before the next one."),
    "predict-address": Limit(3000, 600, "This address has sent 3,000 predictions in ten minutes: wait a few minutes."),
}
"""The limits, by kind; the key is the student's token or the client's address (hashed)."""

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS dpviz_class_v2 (
        code TEXT PRIMARY KEY, lesson TEXT NOT NULL, step INTEGER NOT NULL, revealed INTEGER NOT NULL,
        teacher_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL,
        active DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS dpviz_class_v2_active ON dpviz_class_v2 (active)",
    """CREATE TABLE IF NOT EXISTS dpviz_prediction_v2 (
        code TEXT NOT NULL, step INTEGER NOT NULL, student TEXT NOT NULL, number DOUBLE PRECISION, choice TEXT,
        at DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, step, student))""",
    """CREATE TABLE IF NOT EXISTS dpviz_rate_v2 (bucket TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS dpviz_rate_v2_bucket ON dpviz_rate_v2 (bucket, at)",
)


class ClassError(InputError):
    """A class code that is not (or no longer) a class, or a move only its teacher may make."""


class LimitError(ClassError):
    """More of one kind of action than :data:`LIMITS` allows; the message says which and until when."""


class StoreUnavailable(ClassError):
    """The class database did not answer within :data:`PATIENCE` (a restart, an outage, a lock)."""


@dataclass(frozen=True)
class ClassInfo:
    """A class as stored: its code, lesson, the step it is on (from 1), the last step whose answer
    its teacher revealed (0: none) and when it expires."""

    code: str
    lesson: str
    step: int
    expires: float
    revealed: int = 0


def normal_code(text: str) -> str:
    """A code as typed (any case, spaces or dashes) in its stored form; ClassError when it cannot be one."""
    code = "".join(ch for ch in str(text)[:40].upper() if ch.isalnum())[:20]
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        raise ClassError(
            f"A class code is {CODE_LENGTH} letters and digits, such as K7P2QX; {str(text)[:20]!r} is not one."
        )
    return code


def secret_hash(secret: str) -> str:
    """What the store keeps of a teacher's secret: its SHA-256, hex."""
    return hashlib.sha256(str(secret)[:MAX_TOKEN].encode()).hexdigest()


def _client_key(kind: str, who: str) -> str:
    """A rate bucket's key: the kind and a truncated hash of the student token or address."""
    salt = os.environ.get("DPVIZ_CLASS_SALT", "dpviz-class-limits")
    return f"{kind}:{hashlib.sha256(f'{salt}|{who}'.encode()).hexdigest()[:24]}"


# SQLSTATEs that say "try again": the server is going down or starting, the connection failed, a
# transaction lost a race; https://www.postgresql.org/docs/current/errcodes-appendix.html
_TRANSIENT_SQLSTATE_CLASSES = ("08",)
_TRANSIENT_SQLSTATES = {"57P01", "57P02", "57P03", "40001", "40P01", "53300"}
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6


def transient(err: BaseException) -> bool:
    """Whether ``err`` is a database fault that passes (retry, on a new connection), by its driver
    error class and SQLSTATE: see the module's docstring. Anything else (a bad statement, a
    constraint) is a bug and is raised at once."""
    if isinstance(err, sqlite3.OperationalError):
        code = getattr(err, "sqlite_errorcode", None)
        return code is not None and code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is in requirements.txt
        return False
    if not isinstance(err, psycopg.Error):
        return False
    state = getattr(err, "sqlstate", None)
    if state:
        return state[:2] in _TRANSIENT_SQLSTATE_CLASSES or state in _TRANSIENT_SQLSTATES
    return isinstance(err, (psycopg.OperationalError, psycopg.InterfaceError))


class Store:
    """One database of classes; :func:`store` gives the process's."""

    def __init__(self, url: str | None = None, patience: float = PATIENCE):
        self.url = url
        self.patience = patience
        self._lock = threading.Lock()
        self._conn: Any = None
        self.kind = "postgresql" if url else "sqlite"
        self.retries = 0
        """Database calls retried after a passing fault (since this store was made)."""

    # --- connection, retries ------------------------------------------------------------------

    def _connect(self) -> Any:
        if self._conn is None:
            if self.url:
                import psycopg

                conn = psycopg.connect(self.url, autocommit=True, connect_timeout=3)
                try:  # one process at a time creates the tables (CREATE ... IF NOT EXISTS races otherwise)
                    conn.execute("SELECT pg_advisory_lock(730411)")
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.execute("SELECT pg_advisory_unlock(730411)")
                except BaseException:
                    conn.close()
                    raise
            else:
                path = cache_dir() / "classes.sqlite"
                path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(path, timeout=2, check_same_thread=False, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                for statement in _SCHEMA:
                    conn.execute(statement)
            self._conn = conn
        return self._conn

    def _run(self, sql: str, args: tuple = (), fetch: bool = False, patience: float | None = None) -> list[tuple]:
        """Run one statement, retrying a passing fault with exponential backoff (on a new connection)
        for ``patience`` seconds (default: the store's); StoreUnavailable after that."""
        if self.kind == "postgresql":
            sql = sql.replace("?", "%s")
        deadline = time.monotonic() + (self.patience if patience is None else patience)
        backoff = FIRST_BACKOFF
        while True:
            with self._lock:
                try:
                    cur = self._connect().execute(sql, args)
                    return list(cur.fetchall()) if fetch else []
                except Exception as err:  # noqa: BLE001 - classified by transient(); anything else re-raised
                    if not transient(err):
                        raise
                    self.close()
                    self.retries += 1
                    if time.monotonic() + backoff > deadline:
                        raise StoreUnavailable(
                            "The class server is not answering right now (it may be restarting); dpviz keeps trying."
                        ) from None
            time.sleep(backoff)  # not holding the lock: the process's other sessions go on
            backoff = min(backoff * 2, MAX_BACKOFF)

    def close(self) -> None:
        """Close the connection (the next call opens one again)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - a connection that is already gone
                pass

    # --- limits -----------------------------------------------------------------------------

    def _count(self, kind: str, who: str, now: float) -> None:
        """Count one action of ``kind`` by ``who``; LimitError if it is one too many."""
        if not who:
            return
        limit = LIMITS[kind]
        bucket = _client_key(kind, who)
        (n,) = self._run(
            "SELECT COUNT(*) FROM dpviz_rate_v2 WHERE bucket = ? AND at > ?", (bucket, now - limit.seconds), fetch=True
        )[0]
        if n >= limit.count:
            raise LimitError(limit.sentence)
        self._run("INSERT INTO dpviz_rate_v2 (bucket, at) VALUES (?, ?)", (bucket, now))

    def _tidy(self, now: float) -> None:
        """Delete expired classes, their predictions, and counts older than every limit's window."""
        self._run(
            "DELETE FROM dpviz_prediction_v2 WHERE code IN (SELECT code FROM dpviz_class_v2 WHERE expires < ?)", (now,)
        )
        self._run("DELETE FROM dpviz_class_v2 WHERE expires < ?", (now,))
        oldest = max(limit.seconds for limit in LIMITS.values())
        self._run("DELETE FROM dpviz_rate_v2 WHERE at < ?", (now - oldest,))

    def _make_room(self, now: float) -> None:
        """When the store is full, the class idle longest gives way (if it has been idle :data:`IDLE`)."""
        (count,) = self._run("SELECT COUNT(*) FROM dpviz_class_v2", fetch=True)[0]
        if count < MAX_CLASSES:
            return
        extra = count - MAX_CLASSES + 1
        idle = self._run(
            "SELECT code FROM dpviz_class_v2 WHERE active < ? ORDER BY active LIMIT ?", (now - IDLE, extra), fetch=True
        )
        if len(idle) < extra:
            raise ClassError(
                "This server holds as many classes as it may and every one is in use; try again in a few minutes."
            )
        for (code,) in idle:
            self._run("DELETE FROM dpviz_prediction_v2 WHERE code = ?", (code,))
            self._run("DELETE FROM dpviz_class_v2 WHERE code = ?", (code,))

    def _touch(self, code: str, now: float) -> None:
        """Mark the class active (written at most once a minute)."""
        self._run("UPDATE dpviz_class_v2 SET active = ? WHERE code = ? AND active < ?", (now, code, now - 60))

    # --- classes ----------------------------------------------------------------------------

    def start(self, lesson: str, client: str = "", now: float | None = None) -> tuple[str, str]:
        """A new class of ``lesson`` on step 1: its code and the teacher's secret (kept nowhere
        but in the teacher's browser; the store keeps its hash). ``client``: the address that asks
        (counted against :data:`LIMITS` ``start``)."""
        now = time.time() if now is None else now
        self._tidy(now)
        self._count("start", client, now)
        self._make_room(now)
        secret = secrets.token_urlsafe(SECRET_BYTES)
        for _ in range(20):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            if not self._run("SELECT 1 FROM dpviz_class_v2 WHERE code = ?", (code,), fetch=True):
                self._run(
                    "INSERT INTO dpviz_class_v2 (code, lesson, step, revealed, teacher_hash, created, expires, active) "
                    "VALUES (?, ?, 1, 0, ?, ?, ?, ?)",
                    (code, str(lesson)[:64], secret_hash(secret), now, now + LIFETIME, now),
                )
                return code, secret
        raise ClassError("Could not find a free class code; try again.")

    def get(self, code: str, now: float | None = None, patience: float | None = None) -> ClassInfo:
        """The class with this code; ClassError when there is none or it has expired."""
        code = normal_code(code)
        now = time.time() if now is None else now
        rows = self._run(
            "SELECT code, lesson, step, expires, revealed FROM dpviz_class_v2 WHERE code = ?",
            (code,),
            fetch=True,
            patience=patience,
        )
        if not rows or rows[0][3] < now:
            raise ClassError(f"There is no class {code} (a class lasts a day): check the code with your teacher.")
        r = rows[0]
        return ClassInfo(r[0], r[1], int(r[2]), float(r[3]), int(r[4]))

    def is_teacher(self, code: str, secret: str | None) -> bool:
        """Whether ``secret`` is this class's teacher's."""
        if not secret:
            return False
        rows = self._run("SELECT teacher_hash FROM dpviz_class_v2 WHERE code = ?", (normal_code(code),), fetch=True)
        return bool(rows) and secrets.compare_digest(rows[0][0], secret_hash(secret))

    def _as_teacher(self, code: str, secret: str | None) -> ClassInfo:
        info = self.get(code)
        if not self.is_teacher(info.code, secret):
            raise ClassError("Only the teacher who started this class can move it.")
        return info

    def move(self, code: str, secret: str | None, step: int) -> None:
        """Move the class to ``step`` (its teacher only)."""
        info = self._as_teacher(code, secret)
        now = time.time()
        self._run("UPDATE dpviz_class_v2 SET step = ?, active = ? WHERE code = ?", (int(step), now, info.code))

    def reveal(self, code: str, secret: str | None, step: int) -> None:
        """Show the answer of ``step`` on the class's projector (its teacher only)."""
        info = self._as_teacher(code, secret)
        self._run("UPDATE dpviz_class_v2 SET revealed = ? WHERE code = ?", (int(step), info.code))

    def join(self, code: str, student: str, client: str = "") -> ClassInfo:
        """A student joins (or comes back to) a class: counted against the join limits."""
        info = self.get(code)
        now = time.time()
        self._count("join", str(student)[:MAX_TOKEN], now)
        self._count("join-address", client, now)
        self._touch(info.code, now)
        return info

    def predict(self, code: str, student: str, step: int, value: float | str, client: str = "") -> None:
        """Store a student's prediction for a step (a finite number or a choice's text): one row
        per student and step, however often it is sent (a retried or repeated call replaces it)."""
        info = self.get(code)
        student = str(student)[:MAX_TOKEN]
        if not student:
            raise ClassError("A prediction needs a student.")
        number = choice = None
        if isinstance(value, str):
            choice = value[:MAX_CHOICE]
        else:
            number = float(value)
            if not math.isfinite(number):
                raise ClassError("A prediction is a finite number.")
        now = time.time()
        self._count("predict", student, now)
        self._count("predict-address", client, now)
        self._run(
            "INSERT INTO dpviz_prediction_v2 (code, step, student, number, choice, at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (code, step, student) DO UPDATE SET number = excluded.number, choice = excluded.choice, "
            "at = excluded.at",
            (info.code, int(step), student, number, choice, now),
        )
        self._touch(info.code, now)

    def predictions(self, code: str, step: int, patience: float | None = None) -> list[float | str]:
        """Every student's prediction for a step (numbers, or choices), in no particular order."""
        info = self.get(code, patience=patience)
        rows = self._run(
            "SELECT number, choice FROM dpviz_prediction_v2 WHERE code = ? AND step = ?",
            (info.code, int(step)),
            fetch=True,
            patience=patience,
        )
        return [choice if choice is not None else float(number) for number, choice in rows]

    def prediction_of(self, code: str, student: str, step: int) -> float | str | None:
        """One student's prediction for a step, if any."""
        rows = self._run(
            "SELECT number, choice FROM dpviz_prediction_v2 WHERE code = ? AND step = ? AND student = ?",
            (normal_code(code), int(step), str(student)[:MAX_TOKEN]),
            fetch=True,
        )
        if not rows:
            return None
        number, choice = rows[0]
        return choice if choice is not None else float(number)


_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()


def store() -> Store:
    """This process's class store: PostgreSQL at ``$DPVIZ_CLASS_DB``, else SQLite in the cache directory."""
    url = os.environ.get("DPVIZ_CLASS_DB", "").strip() or None
    if url and not url.startswith(("postgresql://", "postgres://")):
        raise ClassError("DPVIZ_CLASS_DB must be a postgresql:// URL (or unset, for SQLite in the cache directory).")

    key = url or str(cache_dir())
    with _STORES_LOCK:
        if key not in _STORES:
            _STORES[key] = Store(url)
        return _STORES[key]


def retrying(call: Callable[[], Any]) -> Any:
    """``call()``, or None if the store stayed unavailable (for a view that polls again anyway)."""
    try:
        return call()
    except StoreUnavailable:
        return None
