"""Real threads hammering one warehouse: invariants hold at REPEATABLE READ and SERIALIZABLE."""

import random
import threading

import pytest

import txlake

RETRY = (txlake.SerializationFailure, txlake.DeadlockDetected)


def run_with_retry(conn, body, attempts=200):
    for _ in range(attempts):
        try:
            body()
            conn.commit()
            return True
        except RETRY:
            conn.rollback()
    return False


@pytest.mark.parametrize("level", ["REPEATABLE READ", "SERIALIZABLE"])
def test_money_transfers_keep_the_total(tmp_path, level):
    path = str(tmp_path / "wh")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)")
    setup.execute("INSERT INTO accounts SELECT range, 1000 FROM range(8)")
    errors, totals = [], []
    stop = threading.Event()

    def mover(seed):
        rng = random.Random(seed)
        conn = txlake.connect(path, isolation_level=level, publish="off")
        try:
            for _ in range(25):
                a, b = rng.sample(range(8), 2)
                amount = rng.randint(1, 50)

                def transfer():
                    (bal,) = conn.execute("SELECT balance FROM accounts WHERE id = ?", (a,)).fetchone()
                    conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (amount, a))
                    conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (amount, b))

                if not run_with_retry(conn, transfer):
                    errors.append("gave up")
        except Exception as e:  # noqa: BLE001 - report any failure from the thread
            errors.append(repr(e))
        finally:
            conn.close()

    def auditor():
        conn = txlake.connect(path, isolation_level="REPEATABLE READ", publish="off")
        while not stop.is_set():
            totals.append(conn.execute("SELECT sum(balance) FROM accounts").fetchone()[0])
            conn.commit()
        conn.close()

    threads = [threading.Thread(target=mover, args=(i,)) for i in range(4)]
    audit = threading.Thread(target=auditor)
    audit.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    stop.set()
    audit.join(30)
    assert not errors, errors
    assert totals and set(totals) == {8000}
    assert setup.execute("SELECT sum(balance) FROM accounts").fetchone()[0] == 8000
    setup.close()


def test_on_call_doctors_write_skew_is_refused_at_serializable(tmp_path):
    path = str(tmp_path / "wh")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE doctors (name TEXT PRIMARY KEY, on_call BOOLEAN NOT NULL)")
    for round_ in range(15):
        setup.execute("DELETE FROM doctors")
        setup.execute("INSERT INTO doctors VALUES ('alice', true), ('bob', true)")
        barrier = threading.Barrier(2)

        def go_off_call(name):
            conn = txlake.connect(path, isolation_level="SERIALIZABLE", publish="off")
            try:
                (count,) = conn.execute("SELECT count(*) FROM doctors WHERE on_call").fetchone()
                barrier.wait(10)
                if count >= 2:
                    conn.execute("UPDATE doctors SET on_call = false WHERE name = ?", (name,))
                barrier.wait(10)
                conn.commit()
            except txlake.SerializationFailure:
                conn.rollback()
            finally:
                conn.close()

        threads = [threading.Thread(target=go_off_call, args=(n,)) for n in ("alice", "bob")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        (on_call,) = setup.execute("SELECT count(*) FROM doctors WHERE on_call").fetchone()
        assert on_call >= 1, f"round {round_}: nobody on call"
    setup.close()


def test_deadlock_resolves_with_exactly_one_victim(tmp_path):
    path = str(tmp_path / "wh")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    setup.execute("INSERT INTO t VALUES (1, 0), (2, 0)")
    barrier = threading.Barrier(2)
    outcomes = []

    def worker(first, second):
        conn = txlake.connect(path, publish="off")
        try:
            conn.execute("UPDATE t SET v = v + 1 WHERE id = ?", (first,))
            barrier.wait(10)
            conn.execute("UPDATE t SET v = v + 1 WHERE id = ?", (second,))
            conn.commit()
            outcomes.append("committed")
        except txlake.DeadlockDetected as e:
            assert e.sqlstate == "40P01"
            conn.rollback()
            outcomes.append("40P01")
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(1, 2)), threading.Thread(target=worker, args=(2, 1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes) == ["40P01", "committed"]
    assert setup.execute("SELECT sum(v) FROM t").fetchone() == (2,)
    setup.close()


def test_lock_timeout(tmp_path):
    path = str(tmp_path / "wh")
    a = txlake.connect(path, autocommit=True, publish="off")
    a.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    a.execute("INSERT INTO t VALUES (1, 0)")
    a.execute("BEGIN")
    a.execute("UPDATE t SET v = 1 WHERE id = 1")
    b = txlake.connect(path, publish="off")
    b.execute("SET lock_timeout = '150ms'")
    with pytest.raises(txlake.LockNotAvailable) as info:
        b.execute("UPDATE t SET v = 2 WHERE id = 1")
    assert info.value.sqlstate == "55P03"
    b.rollback()
    a.execute("COMMIT")
    a.close()
    b.close()
