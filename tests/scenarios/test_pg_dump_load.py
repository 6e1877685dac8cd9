"""A plain-format pg_dump of PostgreSQL 16 loaded through the ``txlake`` command as a user loads
one into psql (``txlake WAREHOUSE -f dump.sql``, standard input, ``\\i``), then checked: every
row of the dump's data against what the tables hold, the constraints the dump adds afterwards,
where its sequences stand, its enum and domain types, its trigger, and what txlake refuses of it
(extensions, policies) - with which SQLSTATE, while the rest loads.

tests/data/pgdump/shop.sql is written as pg_dump 16.10 writes a dump (COPY data);
shop_inserts.sql and shop_column_inserts.sql are the same dump as ``--inserts`` and
``--column-inserts`` write it (INSERT statements, OVERRIDING SYSTEM VALUE for the identity
column that is GENERATED ALWAYS)."""

import os
import re
import subprocess
import sys
from decimal import Decimal

import pytest

import txlake
from tests.conftest import child_env

DUMPS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "pgdump")
SHOP = os.path.join(DUMPS, "shop.sql")

# what the dump holds that txlake refuses, in the dump's order: (SQLSTATE, the message's start) -
# nothing now (its CREATE EXTENSION pgcrypto is taken: gen_random_uuid() is built in; its policy
# and row security are kept: engine/policies.py)
REFUSED = []
# the tables the dump fills, by their key (the order their rows are compared in)
TABLES = {"audit.events": "id", "public.customers": "id", "public.feedback": "id",
          "public.order_items": "order_id, line", "public.orders": "id", "public.products": "id"}


def txlake_command(*args, stdin=None, cwd=None) -> subprocess.CompletedProcess:
    """The real ``txlake`` command: the script installed beside this interpreter, else ``python -m``
    (not any ``txlake`` on the PATH, which may be another checkout's)."""
    script = os.path.join(os.path.dirname(sys.executable), "txlake")
    argv = [script] if os.path.exists(script) else [sys.executable, "-m", "txlake.repl.cli"]
    env = dict(child_env(), TXLAKE_HISTFILE="", PGTZ="UTC")
    return subprocess.run([*argv, *args], input=stdin if stdin is not None else "", capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)


def errors_of(stderr: str) -> list[tuple[str, str]]:
    """(SQLSTATE, message) of each ``txlake:FILE:LINE: ERROR:  CODE: message`` line."""
    return [(m[1], m[2]) for m in re.finditer(r"^txlake:[^:]+:\d+: ERROR:  (\w{5}): (.*)$", stderr, re.M)]


def assert_refused(stderr: str, expected: list[tuple[str, str]]) -> None:
    """The errors shown are ``expected`` (SQLSTATE, the message's start), in order, and no other."""
    shown = errors_of(stderr)
    assert [(code, message[:len(start)]) for (code, message), (_, start) in zip(shown, expected)] == expected, stderr
    assert len(shown) == len(expected) == stderr.count("ERROR:"), stderr


def copy_blocks(path: str) -> dict[str, tuple[list[str], list[str]]]:
    """The dump's data: table -> (its columns, its COPY lines as the dump writes them)."""
    text = open(path, encoding="utf-8").read()
    return {m[1]: ([c.strip() for c in m[2].split(",")], m[3].splitlines())
            for m in re.finditer(r"^COPY (\S+) \(([^)]*)\) FROM stdin;\n(.*?)^\\\.$", text, re.M | re.S)}


def copied_out(warehouse: str, table: str, columns: list[str]) -> list[str]:
    """The table's rows as COPY's text format writes them (PostgreSQL's, as pg_dump's data)."""
    query = f"SELECT {', '.join(columns)} FROM {table} ORDER BY {TABLES[table]}"
    done = txlake_command(warehouse, "-q", "-c", "SET TIME ZONE 'UTC'", "-c", f"\\copy ({query}) to stdout")
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def check_loaded(warehouse: str) -> None:
    """Everything the dump holds that txlake takes is there, exactly as the dump says it."""
    data = copy_blocks(SHOP)
    assert set(data) == set(TABLES)
    for table in TABLES:
        columns, lines = data[table]
        assert copied_out(warehouse, table, columns) == lines, table

    with txlake.connect(warehouse, autocommit=True) as conn:
        def fails(sql, sqlstate):
            with pytest.raises(txlake.Error) as info:
                conn.execute(sql)
            assert info.value.sqlstate == sqlstate, (sql, info.value.sqlstate, str(info.value))

        one = lambda sql: conn.execute(sql).fetchone()  # noqa: E731
        # values of every type, as Python gets them
        row = one("SELECT name, tags, avatar, external_id FROM customers WHERE id = 3")
        assert row[0] == 'Cy "the tab"\tTwo' and row[1] == ["gift wrap", "c:\\temp"] and row[2] == b""
        assert str(row[3]) == "6f1c2b3a-0d4e-4f5a-8b6c-7d8e9f0a1b2c"
        assert one("SELECT name FROM customers WHERE id = 5") == ("Di\\Backslash\nNewline",)
        assert one("SELECT attrs FROM products WHERE sku = 'TEA-01'") == ({"size": "100g", "organic": True},)
        assert one("SELECT payload -> 'items' FROM audit.events WHERE id = 2") == ([1, 2],)
        assert one("SELECT note FROM orders WHERE id = 41") == ("€ ünïcödé",)
        # the comments (COMMENT ON), as obj_description / col_description read them
        assert one("SELECT obj_description('public.customers'::regclass, 'pg_class'), "
                   "col_description('public.customers'::regclass, 2)") == ("people who buy things", "where receipts go")
        # the view, over its parenthesized joins
        totals = conn.execute("SELECT id, name, total FROM order_totals ORDER BY id").fetchall()
        assert [(i, n, Decimal(t).quantize(Decimal("0.01"))) for i, n, t in totals] == [
            (1, "Ada Lovelace", Decimal("43.85")), (2, "Bob O'Brien", Decimal("21.00")),
            (41, "Ada Lovelace", Decimal("18.50"))]

        # the sequences stand where setval put them: SERIAL-style defaults and identity columns
        assert one("SELECT pg_get_serial_sequence('public.customers', 'id')") == ("public.customers_id_seq",)
        assert one("SELECT pg_get_serial_sequence('products', 'id')") == ("public.products_id_seq",)
        assert one("SELECT nextval('public.customers_id_seq')") == (43,)  # (setval 42, true)
        assert one("INSERT INTO customers (email, name) VALUES ('eve@example.com', 'Eve') RETURNING id") == (44,)
        assert one("INSERT INTO orders (customer_id) VALUES (5) RETURNING id, status") == (42, "new")
        assert one("INSERT INTO products (sku, title, price) VALUES ('CUP-04', 'Cup', 3) RETURNING id") == (4,)
        assert one("INSERT INTO audit.events (happened_at) VALUES ('2024-04-01') RETURNING id") == (4,)
        fails("INSERT INTO products (id, sku, title, price) VALUES (9, 'X', 'x', 1)", "428C9")  # (ALWAYS)

        # the constraints added after the data hold
        fails("INSERT INTO customers (id, email, name) VALUES (1, 'x@example.com', 'X')", "23505")  # customers_pkey
        fails("INSERT INTO customers (email, name) VALUES ('ada@example.com', 'Ada again')", "23505")  # UNIQUE
        fails("INSERT INTO products (sku, title, price) VALUES ('TEA-01', 'Tea', 1)", "23505")
        fails("INSERT INTO order_items VALUES (1, 1, 2, 1, 7.00)", "23505")  # (order_id, line)
        fails("INSERT INTO order_items VALUES (999, 1, 1, 1, 1.00)", "23503")  # an order that is not there
        fails("INSERT INTO orders (customer_id) VALUES (4)", "23503")  # customer 4 is not in the dump
        fails("DELETE FROM products WHERE id = 3", "23503")  # (NO ACTION: order 1 holds it)
        fails("INSERT INTO order_items VALUES (2, 2, 1, 0, 1.00)", "23514")  # quantity > 0
        fails("INSERT INTO products (sku, title, price) VALUES ('NEG', 'n', -1)", "23514")
        fails("INSERT INTO customers (email, name) VALUES ('nobody', 'N')", "23514")  # email LIKE '%_@_%'
        fails("INSERT INTO customers (email, name) VALUES ('long@example.com', '" + "x" * 41 + "')", "22001")
        # its policy and row security, kept (filtering nothing for txlake's one role, a superuser)
        assert one("SELECT policyname, cmd, qual FROM pg_policies") == (
            "customers_own_rows", "ALL", "(CAST(name AS TEXT) = CURRENT_USER)")
        assert one("SELECT relrowsecurity FROM pg_class WHERE oid = 'public.customers'::regclass") == (True,)
        # the trigger function and trigger created after the data: an UPDATE's updated_at is now()
        assert one("SELECT tgname, tgenabled FROM pg_trigger") == ("orders_touch", "O")
        assert one("UPDATE orders SET note = note WHERE id = 41 RETURNING updated_at = now()") == (True,)
        assert conn.execute("DELETE FROM orders WHERE id = 1").rowcount == 1  # (ON DELETE CASCADE: its items)
        assert one("SELECT count(*) FROM order_items WHERE order_id = 1") == (0,)

        # the enum and the domain: the feedback table's columns are of them, and hold to them
        assert one("SELECT enum_range(NULL::mood)") == (["sad", "ok", "happy"],)
        assert conn.execute("SELECT id FROM feedback ORDER BY mood").fetchall() == [(2,), (1,)]  # (sad < happy)
        assert one("INSERT INTO feedback (id, customer_id) VALUES (3, 1) RETURNING mood") == ("ok",)  # (DEFAULT)
        fails("INSERT INTO feedback (id, customer_id, mood) VALUES (4, 1, 'meh')", "22P02")
        fails("INSERT INTO feedback (id, customer_id, reply_to) VALUES (4, 1, 'no at sign')", "23514")
        fails("CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy')", "42710")
        fails("DROP DOMAIN public.email_address", "2BP01")  # (feedback.reply_to is of it)


def test_a_pg_dump_file_loads_with_f(tmp_path):
    warehouse = str(tmp_path / "wh")
    done = txlake_command(warehouse, "-f", SHOP)
    assert done.returncode == 0  # (psql's: a script goes on past its errors, and exits 0)
    assert_refused(done.stderr, REFUSED)
    assert "set_config" in done.stdout and "COPY 4" in done.stdout and "GRANT" in done.stdout
    assert "NOTICE" not in done.stderr  # (client_min_messages = warning holds GRANT's back)
    check_loaded(warehouse)


def test_on_error_stop_stops_the_load_at_the_first_refused_statement(tmp_path):
    """The dump with a statement txlake refuses where its policy was (after the tables, their data
    and constraints - its CREATE EXTENSION pgcrypto, its trigger function and trigger are taken):
    the load stops there, at its line, named by stdin's name."""
    warehouse, dump = str(tmp_path / "wh"), tmp_path / "refusing.sql"
    policy = "CREATE POLICY customers_own_rows ON public.customers"
    text = open(SHOP, encoding="utf-8").read()
    assert policy in text
    dump.write_text(text.replace(policy, "CREATE STATISTICS public.customers_names ON name, email FROM "
                                         "public.customers;\n" + policy))
    done = txlake_command(warehouse, "-X", "-v", "ON_ERROR_STOP=1", stdin=dump.read_text())
    assert done.returncode == 3
    assert [code for code, _ in errors_of(done.stderr)] == ["0A000"] and "CREATE STATISTICS" in done.stderr
    assert "txlake:<stdin>:" in done.stderr
    listed = txlake_command(warehouse, "--csv", "-c", "SELECT count(*) AS n FROM information_schema.tables "
                                                      "WHERE table_schema IN ('public', 'audit')")
    assert listed.stdout == "n\n7\n"  # (its six tables and its view, before the refused statement)


CREATED = """--
-- PostgreSQL database dump
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);

--
-- Name: shop; Type: DATABASE; Schema: -; Owner: shop_owner
--

CREATE DATABASE shop WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = libc LOCALE = 'C.UTF-8';


ALTER DATABASE shop OWNER TO shop_owner;
ALTER DATABASE shop SET search_path TO 'public';

\\connect shop

SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.t (id integer NOT NULL);

COPY public.t (id) FROM stdin;
1
2
\\.

\\connect -reuse-previous=on "dbname='shop'"

ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);
"""


def test_a_dump_made_with_create_loads_with_notices(tmp_path):
    """pg_dump -C (--create) writes CREATE DATABASE, ALTER DATABASE and \\connect: they were 0A000
    and 'invalid command \\connect'. The warehouse is txlake's database: each is a NOTICE that it
    stays the same, and the rest loads - under ON_ERROR_STOP too."""
    dump = tmp_path / "created.sql"
    dump.write_text(CREATED)
    warehouse = str(tmp_path / "wh")
    done = txlake_command(warehouse, "-X", "-v", "ON_ERROR_STOP=1", "-f", str(dump))
    assert done.returncode == 0, done.stderr
    told = done.stderr.splitlines()
    assert all(line.startswith("NOTICE:  txlake has no databases: ") for line in told) and len(told) == 4, told
    assert 'CREATE DATABASE changes nothing' in told[0] and '\\connect to "shop" stays in the warehouse' in told[2]
    assert "CREATE DATABASE" in done.stdout and "COPY 2" in done.stdout
    with txlake.connect(warehouse, autocommit=True) as conn:
        assert conn.execute("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (2,)]
        with pytest.raises(txlake.IntegrityError):  # (its key, after the second \\connect)
            conn.execute("INSERT INTO t VALUES (1)")


def test_a_pg_dump_file_loads_from_standard_input_and_with_include(tmp_path):
    """``txlake WAREHOUSE < dump.sql``, as ``psql dbname < dump.sql``; ``\\i dump.sql`` alike."""
    piped = str(tmp_path / "piped")
    done = txlake_command(piped, stdin=open(SHOP, encoding="utf-8").read())
    assert done.returncode == 0
    assert_refused(done.stderr, REFUSED)
    check_loaded(piped)
    included = str(tmp_path / "included")
    done = txlake_command(included, "-c", f"\\i {SHOP}")
    assert_refused(done.stderr, REFUSED)
    for table in TABLES:
        columns, lines = copy_blocks(SHOP)[table]
        assert copied_out(included, table, columns) == lines, table


@pytest.mark.parametrize("dump", ["shop_inserts.sql", "shop_column_inserts.sql"])
def test_a_pg_dump_of_inserts_loads(tmp_path, dump):
    """pg_dump --inserts and --column-inserts: an INSERT a row (OVERRIDING SYSTEM VALUE into the
    GENERATED ALWAYS identity column), string literals holding tabs, newlines and backslashes."""
    warehouse = str(tmp_path / "wh")
    done = txlake_command(warehouse, "-f", os.path.join(DUMPS, dump))
    assert done.returncode == 0
    assert_refused(done.stderr, REFUSED)
    assert done.stdout.count("INSERT 0 1") == 19
    check_loaded(warehouse)
