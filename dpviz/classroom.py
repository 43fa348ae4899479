"""Class mode's storage: a class (a short code, its lesson, the step the teacher has the class
on) and the students' predictions, in a real database.

SQLite in the cache directory by default (one server process, or several on one machine: SQLite
locks the file), and PostgreSQL when ``DPVIZ_CLASS_DB`` holds a ``postgresql://`` URL (several
server processes or machines serving one class). No accounts and no names: a student is a random
token their browser session holds; a prediction is a number or one of the question's choices,
never free text; a class expires a day after it starts (:data:`LIFETIME`), and expired classes
are deleted when the next one starts.
"""

from __future__ import annotations

import math
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any

from dpviz.errors import InputError

LIFETIME = 24 * 3600
"""Seconds a class lives after it starts."""
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Code letters, without the ones a student mistakes for each other (0/O, 1/I/L)."""
CODE_LENGTH = 6
MAX_CLASSES = 10_000
"""Live classes a store holds at most (a hosted demo's bound on what visitors can make it keep)."""

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS dpviz_classes (
        code TEXT PRIMARY KEY, lesson TEXT NOT NULL, step INTEGER NOT NULL, teacher TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS dpviz_predictions (
        code TEXT NOT NULL, step INTEGER NOT NULL, student TEXT NOT NULL, number DOUBLE PRECISION, choice TEXT,
        at DOUBLE PRECISION NOT NULL, PRIMARY KEY (code, step, student))""",
)


class ClassError(InputError):
    """A class code that is not (or no longer) a class, or a move only its teacher may make."""


@dataclass(frozen=True)
class ClassInfo:
    """A class as stored: its code, lesson, the step it is on (from 1) and when it expires."""

    code: str
    lesson: str
    step: int
    expires: float


def normal_code(text: str) -> str:
    """A code as typed (any case, spaces or dashes) in its stored form; ClassError when it cannot be one."""
    code = "".join(ch for ch in str(text).upper() if ch.isalnum())[:20]
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        raise ClassError(
            f"A class code is {CODE_LENGTH} letters and digits, such as K7P2QX; {str(text)[:20]!r} is not one."
        )
    return code


class Store:
    """One database of classes; :func:`store` gives the process's."""

    def __init__(self, url: str | None = None):
        self.url = url
        self._lock = threading.Lock()
        self._conn: Any = None
        self.kind = "postgresql" if url else "sqlite"

    def _connect(self) -> Any:
        if self._conn is None:
            if self.url:
                import psycopg

                self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
            else:
                from dpviz.storage import cache_dir

                path = cache_dir() / "classes.sqlite"
                path.parent.mkdir(parents=True, exist_ok=True)
                self._conn = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
                self._conn.execute("PRAGMA journal_mode=WAL")
            for statement in _SCHEMA:
                self._conn.execute(statement)
        return self._conn

    def _run(self, sql: str, args: tuple = (), fetch: bool = False) -> list[tuple]:
        if self.kind == "postgresql":
            sql = sql.replace("?", "%s")
        with self._lock:
            for attempt in (0, 1):
                try:
                    cur = self._connect().execute(sql, args)
                    return list(cur.fetchall()) if fetch else []
                except Exception as err:  # noqa: BLE001 - a dropped connection is opened again, once
                    if attempt or not _is_connection_error(err):
                        raise
                    self.close()
        return []

    def close(self) -> None:
        """Close the connection (the next call opens one again)."""
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def start(self, lesson: str, now: float | None = None) -> tuple[str, str]:
        """A new class of ``lesson`` on step 1: its code and the teacher's secret token."""
        now = time.time() if now is None else now
        self._run(
            "DELETE FROM dpviz_predictions WHERE code IN (SELECT code FROM dpviz_classes WHERE expires < ?)", (now,)
        )
        self._run("DELETE FROM dpviz_classes WHERE expires < ?", (now,))
        (count,) = self._run("SELECT COUNT(*) FROM dpviz_classes", fetch=True)[0]
        if count >= MAX_CLASSES:
            raise ClassError("This server holds as many classes as it may; try again tomorrow, or run dpviz yourself.")
        teacher = secrets.token_urlsafe(16)
        for _ in range(20):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            if not self._run("SELECT 1 FROM dpviz_classes WHERE code = ?", (code,), fetch=True):
                self._run(
                    "INSERT INTO dpviz_classes (code, lesson, step, teacher, created, expires) "
                    "VALUES (?, ?, 1, ?, ?, ?)",
                    (code, lesson, teacher, now, now + LIFETIME),
                )
                return code, teacher
        raise ClassError("Could not find a free class code; try again.")

    def get(self, code: str, now: float | None = None) -> ClassInfo:
        """The class with this code; ClassError when there is none or it has expired."""
        code = normal_code(code)
        now = time.time() if now is None else now
        rows = self._run("SELECT code, lesson, step, expires FROM dpviz_classes WHERE code = ?", (code,), fetch=True)
        if not rows or rows[0][3] < now:
            raise ClassError(f"There is no class {code} (a class lasts a day): check the code with your teacher.")
        return ClassInfo(rows[0][0], rows[0][1], int(rows[0][2]), float(rows[0][3]))

    def move(self, code: str, teacher: str, step: int) -> None:
        """Move the class to ``step`` (its teacher only)."""
        info = self.get(code)
        rows = self._run("SELECT teacher FROM dpviz_classes WHERE code = ?", (info.code,), fetch=True)
        if not rows or not secrets.compare_digest(rows[0][0], str(teacher)):
            raise ClassError("Only the teacher who started this class can move it.")
        self._run("UPDATE dpviz_classes SET step = ? WHERE code = ?", (int(step), info.code))

    def predict(self, code: str, student: str, step: int, value: float | str) -> None:
        """Store (or replace) a student's prediction for a step: a finite number or a choice's text."""
        info = self.get(code)
        number = choice = None
        if isinstance(value, str):
            choice = value[:100]
        else:
            number = float(value)
            if not math.isfinite(number):
                raise ClassError("A prediction is a finite number.")
        now = time.time()
        self._run(
            "DELETE FROM dpviz_predictions WHERE code = ? AND step = ? AND student = ?", (info.code, step, student)
        )
        self._run(
            "INSERT INTO dpviz_predictions (code, step, student, number, choice, at) VALUES (?, ?, ?, ?, ?, ?)",
            (info.code, int(step), str(student)[:64], number, choice, now),
        )

    def predictions(self, code: str, step: int) -> list[float | str]:
        """Every student's prediction for a step (numbers, or choices), in no particular order."""
        info = self.get(code)
        rows = self._run(
            "SELECT number, choice FROM dpviz_predictions WHERE code = ? AND step = ?",
            (info.code, int(step)),
            fetch=True,
        )
        return [choice if choice is not None else float(number) for number, choice in rows]

    def prediction_of(self, code: str, student: str, step: int) -> float | str | None:
        """One student's prediction for a step, if any."""
        rows = self._run(
            "SELECT number, choice FROM dpviz_predictions WHERE code = ? AND step = ? AND student = ?",
            (normal_code(code), int(step), str(student)[:64]),
            fetch=True,
        )
        if not rows:
            return None
        number, choice = rows[0]
        return choice if choice is not None else float(number)


def _is_connection_error(err: Exception) -> bool:
    name = type(err).__name__
    return name in ("OperationalError", "InterfaceError") and "locked" not in str(err)


_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()


def store() -> Store:
    """This process's class store: PostgreSQL at ``$DPVIZ_CLASS_DB``, else SQLite in the cache directory."""
    url = os.environ.get("DPVIZ_CLASS_DB", "").strip() or None
    if url and not url.startswith(("postgresql://", "postgres://")):
        raise ClassError("DPVIZ_CLASS_DB must be a postgresql:// URL (or unset, for SQLite in the cache directory).")
    from dpviz.storage import cache_dir

    key = url or str(cache_dir())
    with _STORES_LOCK:
        if key not in _STORES:
            _STORES[key] = Store(url)
        return _STORES[key]
