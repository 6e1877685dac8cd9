"""CHAR(n) as PostgreSQL 16 has it (datatype-character.html; src/test/regress/expected/char.out,
strings.out): values blank-padded to n, trailing spaces insignificant in comparisons, dropped by
a cast to text. It was a VARCHAR(n): 'ab' read back as 'ab', and c = 'ab   ' was false."""

import os

import pytest

import txlake


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (k CHAR(3) PRIMARY KEY, c CHARACTER(5), f CHAR, n INT)")
    conn.execute("INSERT INTO t VALUES ('a', 'ab', 'x', 1), ('b  ', 'abcde   ', 'y', 2), ('c', NULL, ' ', 3)")
    return conn


def test_values_are_padded_on_output_and_their_padding_does_not_count(conn):
    """The issue's case: ('ab', 2, False, 'ab|') was what txlake gave."""
    assert conn.execute("SELECT c, length(c), c = 'ab   ', c = 'ab', c || '|', octet_length(c), pg_typeof(c) "
                        "FROM t WHERE k = 'a'").fetchall() == [("ab   ", 2, True, True, "ab|", 5, "character")]
    assert conn.execute("SELECT * FROM t ORDER BY k").fetchall() == [
        ("a  ", "ab   ", "x", 1), ("b  ", "abcde", "y", 2), ("c  ", None, " ", 3)]
    assert conn.execute("SELECT t.*, k AS again FROM t WHERE n = 2").fetchall() == [("b  ", "abcde", "y", 2, "b  ")]
    assert conn.execute("SELECT max(k), min(c) FROM t").fetchone() == ("c  ", "ab   ")
    assert conn.execute("SELECT x FROM (SELECT k AS x FROM t) s WHERE x = 'b '").fetchall() == [("b  ",)]
    assert conn.execute("SELECT upper(k), char_length(f) FROM t WHERE n = 3").fetchone() == ("C", 0)


def test_views_derived_tables_and_returning_give_them_padded(conn):
    conn.execute("CREATE VIEW v AS SELECT k, c FROM t")
    assert conn.execute("SELECT * FROM v WHERE k = 'a'").fetchall() == [("a  ", "ab   ")]
    assert conn.execute("WITH w AS (SELECT * FROM t) SELECT * FROM w WHERE n = 1").fetchall() == [
        ("a  ", "ab   ", "x", 1)]
    assert conn.execute("SELECT s.*, u.* FROM (SELECT k AS kk FROM t) s, (SELECT 1 AS one) u "
                        "WHERE kk = 'c'").fetchall() == [("c  ", 1)]
    assert conn.execute("INSERT INTO t VALUES ('z', 'q', 'q', 9) RETURNING *").fetchall() == [("z  ", "q    ", "q", 9)]
    assert conn.execute("UPDATE t SET n = 10 WHERE k = 'z' RETURNING k, upper(c), n").fetchall() == [
        ("z  ", "Q", 10)]


def test_a_row_fetched_by_an_integer_key_is_padded_too(conn):
    """(A point SELECT, answered from the key's index without DuckDB, gave the stored value.)"""
    conn.execute("CREATE TABLE p (id INT PRIMARY KEY, c CHAR(4))")
    conn.execute("INSERT INTO p VALUES (1, 'ab')")
    assert conn.execute("SELECT id, c FROM p WHERE id = ?", (1,)).fetchall() == [(1, "ab  ")]
    assert conn.execute("SELECT * FROM p WHERE id = 1").fetchall() == [(1, "ab  ")]
    conn.execute("CREATE TABLE q (id INT PRIMARY KEY, p_id INT)")
    conn.execute("INSERT INTO q VALUES (7, 1)")
    assert conn.execute("SELECT q.id, p.c FROM q JOIN p ON q.p_id = p.id WHERE q.id = ?", (7,)).fetchall() == [
        (7, "ab  ")]


def test_input_longer_than_n_is_22001_unless_only_spaces_pass_it(conn):
    with pytest.raises(txlake.DataError) as caught:
        conn.execute("INSERT INTO t VALUES ('d', 'abcdef', 'z', 4)")
    assert caught.value.sqlstate == "22001" and str(caught.value).startswith("value too long for type character(5)")
    with pytest.raises(txlake.DataError, match=r"character\(1\)"):
        conn.execute("INSERT INTO t VALUES ('d', 'a', 'zz', 4)")
    conn.execute("INSERT INTO t VALUES ('d', 'abcde      ', 'z ', 4)")
    assert conn.execute("SELECT c, f FROM t WHERE k = 'd'").fetchone() == ("abcde", "z")


def test_an_explicit_cast_cuts_and_pads(conn):
    """char.out: 'abcdef'::char(3) is 'abc'; char alone is char(1), in a cast too."""
    assert conn.execute("SELECT 'abcdef'::char(3), 'abc'::char, 'a'::char(3), 'a  '::char(3) = 'a'::char(3), "
                        "'a'::char(3) || '|', length('a '::char(3))").fetchone() == ("abc", "a", "a  ", True, "a|", 1)


def test_bpchar_with_a_length_is_char_and_without_one_text(conn):
    """bpchar(4) took any length (DuckDB's BPCHAR is TEXT: sqlglot dropped the 4); bpchar alone
    keeps its value as it is, as a cast of pg_dump's defaults (DEFAULT 'N'::bpchar) reads it."""
    conn.execute("CREATE TABLE b (x BPCHAR(4), y BPCHAR)")
    with pytest.raises(txlake.DataError, match=r"character\(4\)"):
        conn.execute("INSERT INTO b VALUES ('abcdefgh', 'z')")
    conn.execute("INSERT INTO b VALUES ('ab  ', 'z  ')")
    assert conn.execute("SELECT x, length(x), y, length(y), x = 'ab ' FROM b").fetchall() == [
        ("ab  ", 2, "z  ", 3, True)]
    assert conn.execute("SELECT 'ab'::bpchar(4), 'ab  '::bpchar, 1::bpchar").fetchone() == ("ab  ", "ab  ", "1")


def test_keys_groups_distinct_order_and_joins_ignore_trailing_spaces(conn):
    with pytest.raises(txlake.IntegrityError) as caught:
        conn.execute("INSERT INTO t VALUES ('a ', 'q', 'q', 9)")
    assert caught.value.sqlstate == "23505"
    conn.execute("CREATE TABLE u (k CHAR(5), w INT)")
    conn.execute("INSERT INTO u VALUES ('a', 10), ('b    ', 20), ('b', 30)")
    assert conn.execute("SELECT t.k, u.k, w FROM t JOIN u ON t.k = u.k ORDER BY w").fetchall() == [
        ("a  ", "a    ", 10), ("b  ", "b    ", 20), ("b  ", "b    ", 30)]
    assert conn.execute("SELECT k, count(*) FROM u GROUP BY k ORDER BY k").fetchall() == [("a    ", 1), ("b    ", 2)]
    assert conn.execute("SELECT DISTINCT k FROM u ORDER BY 1").fetchall() == [("a    ",), ("b    ",)]
    assert conn.execute("SELECT count(DISTINCT k) FROM u").fetchone() == (2,)


def test_a_union_of_two_lengths_is_one_row(conn):
    """PostgreSQL's UNION compares a char(5)'s 'ab' and a char(3)'s as bpchar values: one row."""
    conn.execute("CREATE TABLE u (k CHAR(5), j CHAR(3))")
    conn.execute("INSERT INTO u VALUES ('ab', 'ab')")
    assert conn.execute("SELECT k FROM u UNION SELECT j FROM u").fetchall() == [("ab",)]
    assert conn.execute("SELECT j FROM u UNION SELECT j FROM u").fetchall() == [("ab ",)]
    assert sorted(conn.execute("SELECT k FROM u UNION ALL SELECT j FROM u").fetchall()) == [("ab ",), ("ab   ",)]


def test_constants_and_parameters_compared_with_one_are_read_as_char(conn):
    """A key fetched padded and passed back finds its row: by SELECT, UPDATE and DELETE."""
    assert conn.execute("SELECT n FROM t WHERE k = ?", ("b  ",)).fetchall() == [(2,)]
    assert conn.execute("SELECT n FROM t WHERE k = ?", ("b",)).fetchall() == [(2,)]
    assert conn.execute("SELECT n FROM t WHERE k IN ('a   ', ?) ORDER BY n", ("c ",)).fetchall() == [(1,), (3,)]
    assert conn.execute("SELECT n FROM t WHERE k BETWEEN 'a ' AND 'b ' AND k <> 'a  '").fetchall() == [(2,)]
    assert conn.execute("UPDATE t SET n = n + 10 WHERE k = ?", ("a  ",)).rowcount == 1
    assert conn.execute("DELETE FROM t WHERE k = ?", ("c  ",)).rowcount == 1
    assert conn.execute("SELECT k, n FROM t ORDER BY k").fetchall() == [("a  ", 11), ("b  ", 2)]
    # (compared with text, a CHAR is text: its padding gone, the text's spaces kept - as PostgreSQL's)
    assert conn.execute("SELECT count(*) FROM t WHERE k = 'a'::text").fetchone() == (1,)


def test_like_matches_the_padded_value(conn):
    """bpcharlike is textlike of the value as stored, padding and all."""
    assert conn.execute("SELECT c LIKE 'ab', c LIKE 'ab%', c LIKE 'ab   ', c ~ '^ab {3}$' FROM t WHERE k = 'a'"
                        ).fetchone() == (False, True, True, True)


def test_the_catalog_names_the_type_character(conn):
    assert conn.execute("SELECT column_name, data_type, udt_name, character_maximum_length "
                        "FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position"
                        ).fetchall() == [("k", "character", "bpchar", 3), ("c", "character", "bpchar", 5),
                                         ("f", "character", "bpchar", 1), ("n", "integer", "int4", None)]
    assert conn.execute("SELECT t.typname, a.atttypmod FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
                        "WHERE a.attrelid = 't'::regclass AND a.attname = 'c'").fetchall() == [("bpchar", 9)]


def test_copy_reads_values_as_insert_does_and_writes_them_padded(conn, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("e,xy   ,q,5\n")
    conn.execute(f"COPY t FROM '{source}' (FORMAT csv)")
    assert conn.execute("SELECT c, length(c) FROM t WHERE k = 'e'").fetchone() == ("xy   ", 2)
    out = tmp_path / "out.csv"
    conn.execute(f"COPY t TO '{out}' (FORMAT csv)")
    assert out.read_text().splitlines()[0] == "a  ,ab   ,x,1"
    source.write_text("g,abcdefg,q,6\n")
    with pytest.raises(txlake.DataError) as caught:
        conn.execute(f"COPY t FROM '{source}' (FORMAT csv)")
    assert caught.value.sqlstate == "22001"
    assert os.path.exists(out)


def test_a_check_sees_the_value_as_stored(conn):
    """(INSERT ... SELECT checked its rows before the trailing spaces were dropped: 23514.)"""
    conn.execute("CREATE TABLE u (c CHAR(5) CHECK (length(c) = 2))")
    conn.execute("INSERT INTO u VALUES ('ab   ')")
    conn.execute("INSERT INTO u SELECT 'cd   ' FROM range(3)")
    assert conn.execute("SELECT c, count(*) FROM u GROUP BY c ORDER BY c").fetchall() == [("ab   ", 1), ("cd   ", 3)]


def test_a_table_without_char_columns_pays_nothing(conn):
    """Only statements that read a CHAR(n) column are rewritten: text keeps its spaces."""
    conn.execute("CREATE TABLE v (s TEXT, w VARCHAR(4))")
    conn.execute("INSERT INTO v VALUES ('a  ', 'b ')")
    assert conn.execute("SELECT s, w, s = 'a', length(w) FROM v").fetchall() == [("a  ", "b ", False, 2)]
