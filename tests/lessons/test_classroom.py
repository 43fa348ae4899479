"""Class mode's store against both real databases: SQLite in the cache directory and a PostgreSQL
server started for the test. A class has a code, a lesson and a step only its teacher moves (the
holder of its secret, kept hashed); predictions are numbers or choices, one per student and step;
a class expires after a day. Faults: a PostgreSQL restart and a locked SQLite file are waited
out, recognised by SQLSTATE and driver error class; limits per client and student; a full store
gives way to its idlest class."""

import hashlib
import sqlite3
import threading
import time

import psycopg
import pytest
from db_support import Postgres, needs_postgres

from dpviz import classroom
from dpviz.classroom import LIMITS, ClassError, LimitError, Store, StoreUnavailable, normal_code, transient


@pytest.fixture(scope="module")
def postgres():
    server = Postgres()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=needs_postgres)])
def store(request, tmp_path, monkeypatch):
    if request.param == "sqlite":
        monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
        monkeypatch.delenv("DPVIZ_CLASS_DB", raising=False)
        s = classroom.store()
        assert s.kind == "sqlite" and (tmp_path / "classes.sqlite").exists() is False  # made on first use
    else:
        pg = request.getfixturevalue("postgres")
        monkeypatch.setenv("DPVIZ_CLASS_DB", pg.url)
        s = classroom.store()
        assert s.kind == "postgresql"
    yield s
    s.close()


def test_a_class_from_start_to_predictions(store):
    code, teacher = store.start("adept")
    assert len(code) == 6 and normal_code(code.lower()) == code
    assert len(teacher) >= 43  # 256 bits, URL-safe base64
    (stored,) = store._run("SELECT teacher_hash FROM dpviz_class_v2 WHERE code = ?", (code,), fetch=True)[0]
    assert stored == hashlib.sha256(teacher.encode()).hexdigest() and teacher not in stored  # kept hashed only
    assert store.is_teacher(code, teacher) and not store.is_teacher(code, teacher[:-1] + "x")
    assert not store.is_teacher(code, "") and not store.is_teacher(code, None)
    info = store.get(code)
    assert (info.lesson, info.step) == ("adept", 1)
    with pytest.raises(ClassError, match="Only the teacher"):
        store.move(code, "not-the-token", 2)
    store.move(code, teacher, 3)
    assert store.get(f" {code[:3]}-{code[3:].lower()} ").step == 3  # as a student might type it
    for student, value in (("s1", 8.0), ("s2", 3.5), ("s3", 8.0)):
        store.predict(code, student, 3, value)
    store.predict(code, "s2", 3, 7.0)  # a student changes their mind: one prediction each
    assert sorted(store.predictions(code, 3)) == [7.0, 8.0, 8.0]
    assert store.predictions(code, 2) == []
    store.predict(code, "s1", 4, "b")
    assert store.predictions(code, 4) == ["b"] and store.prediction_of(code, "s1", 4) == "b"
    assert store.prediction_of(code, "s9", 4) is None


def test_classes_expire_after_a_day_and_are_deleted(store):
    code, _ = store.start("hoho", now=1_000.0)
    store._run("INSERT INTO dpviz_prediction_v2 VALUES (?, 1, 's1', 1.0, NULL, 1000.0)", (code,))
    with pytest.raises(ClassError, match="no class"):
        store.get(code)  # now is far more than a day after 1,000 s
    other, _ = store.start("hoho")  # starting a class deletes the expired ones
    assert store._run("SELECT COUNT(*) FROM dpviz_class_v2 WHERE code = ?", (code,), fetch=True)[0][0] == 0
    assert store._run("SELECT COUNT(*) FROM dpviz_prediction_v2 WHERE code = ?", (code,), fetch=True)[0][0] == 0
    assert store.get(other).lesson == "hoho"


def test_concurrent_predictions_all_land(store):
    code, _ = store.start("metric-dp")
    errors = []

    def student(k):
        try:
            store.predict(code, f"s{k}", 2, float(k))
        except Exception as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=student, args=(k,)) for k in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sorted(store.predictions(code, 2)) == [float(k) for k in range(30)]


def test_codes_are_checked_before_any_query():
    for bad in ("", "abc", "K7P2QX1", "K7P2Q0", "'; DROP TABLE dpviz_classes; --"):
        with pytest.raises(ClassError, match="6 letters"):
            normal_code(bad)


def test_a_bad_database_url_is_a_sentence(monkeypatch):
    monkeypatch.setenv("DPVIZ_CLASS_DB", "mysql://x")
    with pytest.raises(ClassError, match="postgresql://"):
        classroom.store()


@needs_postgres
def test_two_processes_on_one_postgres_see_one_class(postgres):
    a, b = Store(postgres.url), Store(postgres.url)
    code, teacher = a.start("partial")
    b.predict(code, "s1", 1, "a")
    a.move(code, teacher, 2)
    assert b.get(code).step == 2 and a.predictions(code, 1) == ["a"]
    a.close()
    b.close()


def test_a_prediction_sent_again_is_one_row(store):
    """A retried or repeated write (a reconnecting student, a retry after a fault) never duplicates."""
    code, _ = store.start("adept")
    for _ in range(5):
        store.predict(code, "s1", 2, 4.0)
    store.predict(code, "s1", 2, 5.0)
    rows = store._run("SELECT number FROM dpviz_prediction_v2 WHERE code = ? AND student = 's1'", (code,), fetch=True)
    assert rows == [(5.0,)]


def test_limits_answer_with_a_sentence_and_count_per_key(store, monkeypatch):
    monkeypatch.setitem(LIMITS, "start", classroom.Limit(3, 60, "Too many classes from here."))
    monkeypatch.setitem(LIMITS, "predict", classroom.Limit(2, 60, "Too many predictions."))
    here, there = f"203.0.113.{time.time_ns() % 250}", f"198.51.100.{time.time_ns() % 250}"
    me, you = f"student-{time.time_ns()}", f"other-{time.time_ns()}"
    for _ in range(3):
        store.start("adept", client=here)
    with pytest.raises(LimitError, match="Too many classes from here"):
        store.start("adept", client=here)
    code, _ = store.start("adept", client=there)  # another address is not held back
    store.start("adept", now=time.time() + 61, client=here)  # the window has passed
    store.predict(code, me, 1, 1.0)
    store.predict(code, me, 2, 1.0)
    with pytest.raises(LimitError, match="Too many predictions"):
        store.predict(code, me, 3, 1.0)
    store.predict(code, you, 3, 1.0)  # per student
    rows = store._run("SELECT bucket FROM dpviz_rate_v2", fetch=True)
    assert not any(here in b or me in b for (b,) in rows)  # addresses and tokens kept hashed


def test_a_full_store_gives_way_to_its_idlest_class(store, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_CLASSES", 3)
    store._run("DELETE FROM dpviz_class_v2")  # the module's PostgreSQL server holds other tests' classes
    now = time.time()
    old = [store.start("adept", now=now - 3600 + k)[0] for k in range(2)]  # idle for an hour
    busy, _ = store.start("adept", now=now - 5)
    new, _ = store.start("hoho", now=now)  # full: the idlest class gives way, the teacher is not locked out
    codes = {c for (c,) in store._run("SELECT code FROM dpviz_class_v2", fetch=True)}
    assert codes == {old[1], busy, new}
    store._run("UPDATE dpviz_class_v2 SET active = ?", (now,))  # every class in use: a sentence, nothing deleted
    with pytest.raises(ClassError, match="every one is in use"):
        store.start("hoho", now=now + 1)
    assert len(store._run("SELECT code FROM dpviz_class_v2", fetch=True)) == 3


def test_passing_faults_are_told_by_driver_class_and_sqlstate():
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorcode = 5  # SQLITE_BUSY
    assert transient(busy)
    syntax = sqlite3.OperationalError("near 'SELEC': syntax error")
    syntax.sqlite_errorcode = 1
    assert not transient(syntax)
    assert transient(psycopg.errors.AdminShutdown())  # 57P01: the server is shutting down (a restart)
    assert transient(psycopg.errors.CannotConnectNow())  # 57P03: starting up
    assert transient(psycopg.errors.ConnectionFailure())  # class 08
    assert transient(psycopg.errors.SerializationFailure())  # 40001
    assert transient(psycopg.OperationalError("connection refused"))  # no SQLSTATE: a client-side loss
    assert not transient(psycopg.errors.UndefinedTable())  # a bug, raised at once
    assert not transient(psycopg.errors.UniqueViolation())
    assert not transient(ValueError("nothing to do with a database"))


def test_a_locked_sqlite_file_is_waited_out(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    s = Store(None, patience=10)
    code, _ = s.start("adept")
    other = sqlite3.connect(tmp_path / "classes.sqlite", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the file locked for 3 s
    threading.Timer(3.0, lambda: other.execute("COMMIT")).start()
    start = time.monotonic()
    s.predict(code, "s1", 1, 2.0)
    assert time.monotonic() - start >= 2.5 and s.retries >= 1
    assert s.predictions(code, 1) == [2.0]
    other.close()


def test_a_store_that_stays_locked_says_so_in_a_sentence(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    s = Store(None, patience=0.5)
    code, _ = s.start("adept")
    other = sqlite3.connect(tmp_path / "classes.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreUnavailable, match="not answering right now"):
            s.predict(code, "s1", 1, 2.0)
    finally:
        other.execute("COMMIT")
        other.close()
    s.predict(code, "s1", 1, 2.0)  # and it works again at once


@needs_postgres
def test_a_postgres_restart_mid_class_loses_and_duplicates_nothing(postgres):
    """The fault seen in a class: PostgreSQL restarted while students predicted. Writes made during
    the restart wait for the server and land once each; reads come back; no error reaches a caller."""
    s = Store(postgres.url, patience=30)
    code, teacher = s.start("adept")
    s.predict(code, "before", 1, 1.0)
    errors, done = [], []

    def student(k):
        try:
            for step in (1, 2, 3):
                s.predict(code, f"s{k}", step, float(k))
                time.sleep(0.4)  # the class goes on during the restart
            done.append(k)
        except Exception as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=student, args=(k,)) for k in range(12)]
    for t in threads[:6]:
        t.start()
    postgres.restart()  # stops (fast shutdown: sessions get 57P01) and starts again
    for t in threads[6:]:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and sorted(done) == list(range(12))
    for step in (1, 2, 3):
        got = s._run("SELECT student FROM dpviz_prediction_v2 WHERE code = ? AND step = ?", (code, step), fetch=True)
        expected = {f"s{k}" for k in range(12)} | ({"before"} if step == 1 else set())
        assert sorted(r[0] for r in got) == sorted(expected)  # each once
    s.move(code, teacher, 4)
    assert s.get(code).step == 4 and s.retries >= 1
    s.close()
