"""CREATE TYPE name AS (attributes) - composite types - as PostgreSQL 16 has them (rowtypes.sgml,
regress rowtypes.out): casts of rows and of PostgreSQL's text input, attribute access, functions
taking and returning them, the catalog's rows, ALTER TYPE ADD ATTRIBUTE, DROP TYPE's dependents,
and the refusals (a table column of one: 0A000)."""

from decimal import Decimal

import pytest

from tests.conftest import fails, rows


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TYPE complex AS (r float8, i float8)")
    conn.execute("CREATE TYPE item AS (name text, supplier_id integer, price numeric(10,2))")
    return conn


def test_casts_text_input_and_attribute_access(db):
    assert rows(db, "SELECT ROW('fuzzy dice', 42, 1.99)::item") == [
        ({"name": "fuzzy dice", "supplier_id": 42, "price": Decimal("1.99")},)]
    assert rows(db, "SELECT (ROW(1.5, 2)::complex).i, ('(\"fuzzy dice\",42,1.99)'::item).name, "
                    "('(,42,)'::item).name IS NULL, ('(\"\",42,)'::item).name, "
                    r"""('( a\"b ,1,2)'::item).name""") == [
        (2.0, "fuzzy dice", True, "", ' a"b ')]
    assert rows(db, "SELECT (CAST(? AS item)).supplier_id", ("(x,7,0.5)",)) == [(7,)]
    assert rows(db, "SELECT pg_typeof(ROW(1, 2)::complex)") == [("complex",)]
    # rowtypes.out: record_in's errors
    for text, detail in (("(Joe,Blow)", "Too few columns."), ("(Joe,1,2,3)", "Too many columns."),
                         ("Joe", "Missing left parenthesis."), ("(Joe,1,2)x", "Junk after right parenthesis.")):
        message = fails(db, f"SELECT '{text}'::item", "22P02")
        assert message.splitlines()[:2] == [f'malformed record literal: "{text}"', f"DETAIL:  {detail}"]
    message = fails(db, "SELECT ROW(1, 2, 3)::complex", "42846")
    assert message.splitlines()[:2] == ["cannot cast type record to complex", "DETAIL:  Input has too many columns."]


def test_functions_take_and_return_them(db):
    db.execute("CREATE FUNCTION mul(a complex, b complex) RETURNS complex LANGUAGE sql "
               "AS 'SELECT (a).r * (b).r - (a).i * (b).i, (a).r * (b).i + (a).i * (b).r'")
    db.execute("CREATE FUNCTION items(n int) RETURNS SETOF item LANGUAGE sql "
               "AS 'SELECT ''i'' || g, g, g * 1.5 FROM generate_series(1, n) g'")
    assert rows(db, "SELECT mul(ROW(1, 2)::complex, '(3,4)'), (mul(ROW(0, 1), ROW(0, 1))).r") == [
        ({"r": -5.0, "i": 10.0}, -1.0)]
    assert rows(db, "SELECT * FROM mul(ROW(1, 1), ROW(1, 1))") == [(0.0, 2.0)]
    assert rows(db, "SELECT name, price FROM items(2)") == [("i1", Decimal("1.50")), ("i2", Decimal("3.00"))]
    fails(db, "CREATE FUNCTION bad(c complex) RETURNS float8 LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$",
          "0A000")


def test_catalog_alter_and_drop(db):
    assert rows(db, "SELECT t.typtype, c.relkind, c.relnatts, c.reltype = t.oid FROM pg_type t "
                    "JOIN pg_class c ON c.oid = t.typrelid WHERE t.typname = 'item'") == [("c", "c", 3, True)]
    assert rows(db, "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                    "JOIN pg_type t ON t.typrelid = a.attrelid WHERE t.typname = 'item' ORDER BY a.attnum") == [
        ("name", "text"), ("supplier_id", "integer"), ("price", "numeric(10,2)")]
    db.execute("ALTER TYPE complex ADD ATTRIBUTE note text")
    assert rows(db, "SELECT (ROW(1, 2, 'n')::complex).note") == [("n",)]
    fails(db, "ALTER TYPE complex ADD ATTRIBUTE note int", "42701")
    fails(db, "ALTER TYPE complex ADD VALUE 'x'", "42809")
    fails(db, "CREATE TYPE twice AS (a int, a text)", "42701")
    fails(db, "CREATE TABLE t (c complex)", "0A000", "composite type complex")
    db.execute("CREATE FUNCTION price_of(i item) RETURNS numeric LANGUAGE sql AS 'SELECT (i).price'")
    message = fails(db, "DROP TYPE item", "2BP01")
    assert "function price_of(item) depends on type item" in message
    db.execute("BEGIN")
    db.execute("DROP TYPE item CASCADE")
    assert db.notices[-1] == "NOTICE:  drop cascades to function price_of(item)"
    db.execute("ROLLBACK")
    assert rows(db, "SELECT price_of('(a,1,2)')") == [(2,)]
    db.execute("DROP TYPE item CASCADE")
    fails(db, "SELECT '(a,1,2)'::item", "42704")
    fails(db, "SELECT price_of('(a,1,2)')", "42883")
