"""Class mode's store against both real databases: SQLite in the cache directory and a PostgreSQL
server started for the test. A class has a code, a lesson and a step only its teacher moves;
predictions are numbers or choices, one per student and step; a class expires after a day."""

import threading

import pytest
from db_support import Postgres, needs_postgres

from dpviz import classroom
from dpviz.classroom import ClassError, Store, normal_code


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
    store._run("INSERT INTO dpviz_predictions VALUES (?, 1, 's1', 1.0, NULL, 1000.0)", (code,))
    with pytest.raises(ClassError, match="no class"):
        store.get(code)  # now is far more than a day after 1,000 s
    other, _ = store.start("hoho")  # starting a class deletes the expired ones
    assert store._run("SELECT COUNT(*) FROM dpviz_classes WHERE code = ?", (code,), fetch=True)[0][0] == 0
    assert store._run("SELECT COUNT(*) FROM dpviz_predictions WHERE code = ?", (code,), fetch=True)[0][0] == 0
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
