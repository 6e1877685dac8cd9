"""The statements a plain pg_dump file holds besides tables and rows, as txlake takes them: the
settings it opens with, ``set_config``, ``ALTER ... OWNER TO``, ``COMMENT ON``, ``GRANT`` /
``REVOKE``, ``pg_catalog.``-qualified calls, ``nextval('s'::regclass)`` defaults, identity
columns added by ``ALTER COLUMN ... ADD GENERATED ... AS IDENTITY``, and views over
parenthesized joins. Each was an error before (42704, 0A000, 42601, 42883...)."""

import pytest

import txlake


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


def fails(conn, sql, sqlstate, words=""):
    with pytest.raises(txlake.Error) as info:
        conn.execute(sql)
    assert info.value.sqlstate == sqlstate and words in str(info.value), (info.value.sqlstate, str(info.value))


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
