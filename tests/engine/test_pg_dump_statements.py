"""The statements a plain pg_dump file holds besides tables and rows, as txlake takes them: the
settings it opens with, ``set_config``, ``ALTER ... OWNER TO``, ``COMMENT ON``, ``GRANT`` /
``REVOKE``, ``pg_catalog.``-qualified calls, ``nextval('s'::regclass)`` defaults, identity
columns added by ``ALTER COLUMN ... ADD GENERATED ... AS IDENTITY``, and views over
parenthesized joins. Each was an error before (42704, 0A000, 42601, 42883...)."""

import os

import pytest

from tests.conftest import fails


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


SHOP = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "pgdump", "shop.sql")


def header_settings() -> list[str]:
    """The SETs (and set_config) that tests/data/pgdump/shop.sql opens with, as pg_dump 16 writes them."""
    with open(SHOP, encoding="utf-8") as f:
        return [line.rstrip(";\n") for line in f if line.startswith(("SET ", "SELECT pg_catalog.set_config"))]


def test_the_settings_a_dump_opens_with_are_taken(conn):
    cur = conn.cursor()
    settings = header_settings()
    assert len(settings) == 12 and settings[0] == "SET statement_timeout = 0"
    for statement in settings:
        cur.execute(statement)
    assert conn.execute("SHOW client_encoding").fetchone() == ("UTF8",)
    assert conn.execute("SHOW default_table_access_method").fetchone() == ("heap",)
    assert conn.execute("SHOW row_security").fetchone() == ("off",)
    names = [row[0] for row in conn.execute("SHOW ALL").fetchall()]
    assert {"client_min_messages", "standard_conforming_strings", "xmloption"} <= set(names)
    # values whose meaning txlake does not have are refused, not ignored
    fails(conn, "SET client_encoding = 'LATIN1'", "0A000", "txlake has only 'UTF8'")
    fails(conn, "SET standard_conforming_strings = off", "0A000")
    fails(conn, "SET idle_in_transaction_session_timeout = '5min'", "0A000")
    fails(conn, "SET default_tablespace = fast_disks", "0A000")
    fails(conn, "SET row_security = maybe", "22023", 'invalid value for parameter "row_security"')
    fails(conn, "SET client_min_messages = loud", "22023")


def test_set_config_sets_and_returns_the_value(conn):
    cur = conn.cursor()
    cur.execute("SELECT pg_catalog.set_config('client_min_messages', 'error', false)")
    assert cur.fetchall() == [("error",)] and cur.description[0][0] == "set_config"
    assert conn.execute("SHOW client_min_messages").fetchone() == ("error",)
    conn.execute("BEGIN")
    conn.execute("SELECT set_config('client_min_messages', 'notice', true)")  # (SET LOCAL)
    assert conn.execute("SHOW client_min_messages").fetchone() == ("notice",)
    conn.execute("COMMIT")
    assert conn.execute("SHOW client_min_messages").fetchone() == ("error",)


def test_client_min_messages_holds_back_notices_below_it(conn):
    create = "CREATE TABLE IF NOT EXISTS t (id INT)"
    conn.execute(create)
    conn.execute(create)
    conn.execute("COMMIT")
    assert conn.notices == ['NOTICE:  relation "t" already exists, skipping',
                            "WARNING:  there is no transaction in progress"]
    conn.notices.clear()
    conn.execute("SET client_min_messages = error")
    conn.execute("COMMIT")
    conn.execute(create)
    assert conn.notices == []
    conn.execute("SET client_min_messages = warning")  # (pg_dump's)
    conn.execute(create)
    conn.execute("COMMIT")
    assert conn.notices == ["WARNING:  there is no transaction in progress"]


def test_owner_comment_grant_and_revoke_change_nothing(conn):
    conn.execute("CREATE SCHEMA audit; CREATE TABLE audit.t (id INT PRIMARY KEY); CREATE SEQUENCE s")
    cur = conn.cursor()
    for sql, tag in [("ALTER TABLE audit.t OWNER TO shop_owner", "ALTER TABLE"),
                     ("ALTER SCHEMA audit OWNER TO shop_owner", "ALTER SCHEMA"),
                     ("ALTER SEQUENCE public.s OWNER TO shop_owner", "ALTER SEQUENCE"),
                     ("ALTER FUNCTION public.f(integer, text) OWNER TO shop_owner", "ALTER FUNCTION"),
                     ("ALTER TYPE public.mood OWNER TO \"Shop Owner\"", "ALTER TYPE"),
                     ("COMMENT ON SCHEMA audit IS 'who changed what; and when'", "COMMENT"),
                     ("COMMENT ON EXTENSION pgcrypto IS 'cryptographic functions'", "COMMENT")]:
        cur.execute(sql)
        assert cur.statusmessage == tag and conn.notices == [], sql
    for sql, tag in [("GRANT SELECT ON TABLE audit.t TO reporting", "GRANT"),
                     ("REVOKE USAGE ON SCHEMA public FROM PUBLIC", "REVOKE"),
                     ("ALTER DEFAULT PRIVILEGES FOR ROLE a IN SCHEMA public GRANT SELECT ON TABLES TO r",
                      "ALTER DEFAULT PRIVILEGES")]:
        cur.execute(sql)
        assert cur.statusmessage == tag and len(conn.notices) == 1 and "changes nothing" in conn.notices.pop(), sql
    conn.execute("INSERT INTO audit.t VALUES (1)")
    assert conn.execute("SELECT id FROM audit.t").fetchall() == [(1,)]
    # an ALTER that is not OWNER TO is still an ALTER (a typo is no statement without effect)
    fails(conn, "ALTER TABLE audit.t OWNER shop_owner", "0A000")
    conn.execute("ALTER TABLE audit.t ADD COLUMN owner TEXT")
    conn.execute("ALTER TABLE audit.t RENAME COLUMN owner TO owned_by")  # (a rename, not OWNER TO)
    conn.execute("ALTER TABLE audit.t RENAME owned_by TO owner")
    assert [d[0] for d in conn.execute("SELECT * FROM audit.t").description] == ["id", "owner"]
    # in a failed block they are refused as any statement is (25P02)
    conn.execute("BEGIN")
    fails(conn, "SELECT 1 / 0", "22012")
    fails(conn, "COMMENT ON TABLE audit.t IS 'x'", "25P02")
    conn.execute("ROLLBACK")


def test_create_and_alter_database_change_nothing_and_say_so(conn):
    """pg_dump -C's CREATE DATABASE was 0A000: the warehouse is txlake's one database, so it and
    ALTER DATABASE are taken with a NOTICE (as GRANT is); DROP DATABASE stays refused, saying why."""
    cur = conn.cursor()
    cur.execute("CREATE DATABASE shop WITH TEMPLATE = template0 ENCODING = 'UTF8' LOCALE_PROVIDER = libc "
                "LOCALE = 'en_US.UTF-8'")
    assert cur.statusmessage == "CREATE DATABASE" and conn.notices == [
        "NOTICE:  txlake has no databases: CREATE DATABASE changes nothing (a warehouse is txlake's database)"]
    conn.notices.clear()
    cur.execute("ALTER DATABASE shop OWNER TO shop_owner")
    assert cur.statusmessage == "ALTER DATABASE" and conn.notices == []
    cur.execute("ALTER DATABASE shop SET search_path TO app")
    assert cur.statusmessage == "ALTER DATABASE" and len(conn.notices) == 1
    assert conn.execute("SHOW search_path").fetchone() == ('"$user", public',)
    fails(conn, "CREATE DATABASE", "42601")
    fails(conn, "DROP DATABASE IF EXISTS shop", "0A000", "DROP DATABASE is not supported: a warehouse is txlake's")


def test_uuid_ossp_and_pgcrypto_are_built_in(conn):
    """An application's dump opens with CREATE EXTENSION "uuid-ossp" (or pgcrypto) and gives its
    keys DEFAULT public.uuid_generate_v4(): both were refused (0A000, 42883), and the tables with
    them. The extensions' UUID functions are built in, in any schema; CREATE EXTENSION of them is
    taken and says so; any other extension stays refused."""
    cur = conn.cursor()
    cur.execute('CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA public')
    assert cur.statusmessage == "CREATE EXTENSION" and conn.notices == [
        'NOTICE:  extension "uuid-ossp" is built into txlake: uuid_generate_v4() and uuid_nil() (not its other '
        "functions); CREATE EXTENSION changes nothing"]
    cur.execute("CREATE EXTENSION pgcrypto")
    conn.execute("CREATE TABLE k (id UUID DEFAULT public.uuid_generate_v4() PRIMARY KEY, "
                 "other UUID DEFAULT extensions.gen_random_uuid(), v TEXT)")
    conn.execute("INSERT INTO k (v) VALUES ('a'), ('b')")
    assert conn.execute("SELECT count(DISTINCT id), count(DISTINCT other) FROM k").fetchone() == (2, 2)
    assert conn.execute("SELECT uuid_nil()::text, uuid_generate_v4() <> uuid_generate_v4()").fetchone() == (
        "00000000-0000-0000-0000-000000000000", True)
    fails(conn, "CREATE EXTENSION IF NOT EXISTS postgis", "0A000", "txlake has no extensions")
    fails(conn, "SELECT uuid_generate_v1()", "42883")  # (the rest of uuid-ossp is not there)


def test_pg_catalog_qualified_calls_and_regclass_sequence_names(conn):
    conn.execute("CREATE TABLE t (id INT NOT NULL, v TEXT)")
    conn.execute("CREATE SEQUENCE public.t_id_seq AS integer START WITH 1 INCREMENT BY 1 NO MINVALUE "
                 "NO MAXVALUE CACHE 1")
    conn.execute("ALTER SEQUENCE public.t_id_seq OWNED BY public.t.id")
    conn.execute("ALTER TABLE ONLY public.t ALTER COLUMN id SET DEFAULT nextval('public.t_id_seq'::regclass)")
    assert conn.execute("SELECT pg_catalog.setval('public.t_id_seq', 42, true)").fetchone() == (42,)
    conn.execute("INSERT INTO t (v) VALUES ('a')")
    assert conn.execute("SELECT id FROM t").fetchall() == [(43,)]
    assert conn.execute("SELECT pg_catalog.setval('public.t_id_seq', 1, false)").fetchone() == (1,)
    assert conn.execute("SELECT nextval('public.t_id_seq'::regclass), pg_catalog.lower('AB')").fetchone() == (1, "ab")
    assert conn.execute("SELECT pg_catalog.now() = now()").fetchone() == (True,)


IDENTITY = """ALTER TABLE public.{table} ALTER COLUMN id ADD GENERATED {kind} AS IDENTITY (
    SEQUENCE NAME public.{table}_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
)"""


def test_an_identity_column_added_as_pg_dump_writes_it(conn):
    conn.execute("CREATE TABLE products (id integer NOT NULL, sku text)")
    conn.execute("INSERT INTO products VALUES (7, 'a')")
    conn.execute(IDENTITY.format(table="products", kind="ALWAYS"))
    assert conn.execute("SELECT pg_get_serial_sequence('products', 'id')").fetchone() == ("public.products_id_seq",)
    assert conn.execute("SELECT is_identity, identity_generation FROM information_schema.columns "
                        "WHERE table_name = 'products' AND column_name = 'id'").fetchone() == ("YES", "ALWAYS")
    conn.execute("SELECT pg_catalog.setval('public.products_id_seq', 7, true)")
    assert conn.execute("INSERT INTO products (sku) VALUES ('b') RETURNING id").fetchone() == (8,)
    fails(conn, "INSERT INTO products VALUES (9, 'c')", "428C9")
    conn.execute("CREATE TABLE events (id bigint NOT NULL, e text)")
    conn.execute(IDENTITY.format(table="events", kind="BY DEFAULT"))
    conn.execute("INSERT INTO events VALUES (5, 'given')")
    assert conn.execute("INSERT INTO events (e) VALUES ('numbered') RETURNING id").fetchone() == (1,)
    # as PostgreSQL refuses it
    conn.execute("CREATE TABLE other (id int, n int NOT NULL DEFAULT 0, t text NOT NULL)")
    fails(conn, "ALTER TABLE other ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY", "55000",
          'column "id" of relation "other" must be declared NOT NULL before identity can be added')
    fails(conn, "ALTER TABLE other ALTER COLUMN n ADD GENERATED ALWAYS AS IDENTITY", "55000", "already has a default")
    fails(conn, "ALTER TABLE products ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY", "55000",
          "is already an identity column")
    fails(conn, "ALTER TABLE other ALTER COLUMN t ADD GENERATED ALWAYS AS IDENTITY", "22023")
    # CREATE TABLE takes SEQUENCE NAME too
    conn.execute("CREATE TABLE named (id int GENERATED BY DEFAULT AS IDENTITY (SEQUENCE NAME named_numbers START 5))")
    assert conn.execute("INSERT INTO named DEFAULT VALUES RETURNING id").fetchone() == (5,)
    assert conn.execute("SELECT pg_get_serial_sequence('named', 'id')").fetchone() == ("public.named_numbers",)


def test_a_view_over_parenthesized_joins_as_pg_dump_writes_it(conn):
    """The tables of ``FROM ((a JOIN b ON ...) JOIN c ON ...)`` were dropped from the query
    DuckDB ran (42601 at or near ")")."""
    conn.execute("CREATE TABLE orders (id int, customer_id int); CREATE TABLE customers (id int, name text);"
                 "CREATE TABLE items (order_id int, price numeric(10,2))")
    conn.execute("INSERT INTO orders VALUES (1, 10), (2, 10); INSERT INTO customers VALUES (10, 'ada');"
                 "INSERT INTO items VALUES (1, 2.50), (1, 1.25), (2, 4.00)")
    conn.execute("""CREATE VIEW public.order_totals AS
 SELECT o.id,
    c.name,
    sum(i.price) AS total
   FROM ((public.orders o
     JOIN public.customers c ON ((c.id = o.customer_id)))
     JOIN public.items i ON ((i.order_id = o.id)))
  GROUP BY o.id, c.name""")
    rows = conn.execute("SELECT id, name, total FROM order_totals ORDER BY id").fetchall()
    assert [(i, n, float(t)) for i, n, t in rows] == [(1, "ada", 3.75), (2, "ada", 4.0)]
    assert conn.execute("SELECT count(*) FROM (orders JOIN customers ON customers.id = orders.customer_id)"
                        ).fetchone() == (2,)


def test_an_alter_of_a_missing_table_names_it_as_written(conn):
    """'relation "default.feedback" does not exist': txlake's name of the public schema leaked."""
    fails(conn, "ALTER TABLE ONLY public.feedback ADD CONSTRAINT feedback_pkey PRIMARY KEY (id)", "42P01",
          'relation "public.feedback" does not exist')
    conn.execute("ALTER TABLE IF EXISTS public.feedback ADD COLUMN x int")
    assert conn.notices == ['NOTICE:  relation "public.feedback" does not exist, skipping']
