"""Committed state survives the process: reopen in a NEW process and find exactly it."""

import json

from tests.conftest import run_python

DUMP = r"""
import json, sys, txlake, decimal, datetime
c = txlake.connect(sys.argv[1], publish="off")
out = {}
for t in sys.argv[2:]:
    try:
        rows = c.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
        cols = [d[0] for d in c.execute(f"SELECT * FROM {t} LIMIT 0").description]
        out[t] = {"columns": cols, "rows": [[str(v) if isinstance(v, (decimal.Decimal, datetime.date)) else v for v in r] for r in rows]}
    except txlake.Error as e:
        out[t] = e.sqlstate
print(json.dumps(out))
"""


def test_round_trip_in_new_process(connect, warehouse):
    c = connect()
    c.execute("CREATE TABLE acct (id INT PRIMARY KEY, owner TEXT NOT NULL, bal DECIMAL(10,2) DEFAULT 0)")
    c.execute("CREATE TABLE gone (x INT)")
    c.commit()
    c.execute("INSERT INTO acct (id, owner, bal) VALUES (1, 'ada', 100), (2, 'bob', 50)")
    c.execute("INSERT INTO gone VALUES (1)")
    c.commit()
    # rolled back: none of this may survive
    c.execute("UPDATE acct SET bal = 0")
    c.execute("CREATE TABLE never (y INT)")
    c.execute("DROP TABLE gone")
    c.rollback()
    # savepoints: keep the first update, lose the second
    c.execute("UPDATE acct SET bal = bal - 30 WHERE id = 1")
    c.execute("SAVEPOINT s")
    c.execute("UPDATE acct SET bal = 999 WHERE id = 2")
    c.execute("ROLLBACK TO SAVEPOINT s")
    c.execute("UPDATE acct SET bal = bal + 30 WHERE id = 2")
    c.commit()
    # DDL that commits
    c.execute("DROP TABLE gone")
    c.execute("CREATE TABLE gone (z TEXT)")
    c.execute("INSERT INTO gone VALUES ('new')")
    c.execute("ALTER TABLE acct ADD COLUMN note TEXT DEFAULT 'n'")
    c.execute("ALTER TABLE acct RENAME COLUMN owner TO holder")
    c.commit()
    # a failed transaction leaves nothing
    c.execute("INSERT INTO acct (id, holder) VALUES (3, 'cy')")
    try:
        c.execute("INSERT INTO acct (id, holder) VALUES (1, 'dup')")
    except Exception:
        pass
    c.commit()  # commit of a failed transaction rolls back
    c.close()

    out = run_python(DUMP, warehouse, "acct", "gone", "never")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["acct"] == {"columns": ["id", "holder", "bal", "note"],
                             "rows": [[1, "ada", "70.00", "n"], [2, "bob", "80.00", "n"]]}
    assert state["gone"] == {"columns": ["z"], "rows": [["new"]]}
    assert state["never"] == "42P01"


def test_other_process_commits_are_seen(connect, warehouse):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    writer = run_python("import sys, txlake\n"
                        "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
                        "c.execute('INSERT INTO t VALUES (1), (2)')\n", warehouse)
    assert writer.returncode == 0, writer.stderr
    assert c.execute("SELECT count(*) FROM t").fetchone() == (2,)
