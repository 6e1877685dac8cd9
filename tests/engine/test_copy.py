"""COPY FROM / COPY TO: PostgreSQL's formats, options, errors and transaction behaviour."""

import datetime
import decimal
import os
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import txlake
from txlake import errors
from tests.conftest import fails
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(5), d DATE, ok BOOLEAN, x DOUBLE)")
    return conn


def write(path, text: str, mode="w") -> str:
    with open(path, mode, encoding="utf-8", newline="") as f:
        f.write(text)
    return str(path)


# --- text format -------------------------------------------------------------------------

def test_text_format_nulls_escapes_and_rowcount(c, tmp_path):
    path = write(tmp_path / "a.tsv", "1\tada\t2024-05-17\tt\t1.5\n"
                                     "2\t\\N\t2024-05-18\tyes\t\\N\n"
                                     "3\tc\\td\\\\\t\\N\toff\t-0.25\n"
                                     "4\t\\x41\\101\\n\t2024-01-01\t F \t1e3\n")
    cur = c.cursor()
    cur.execute(f"COPY t FROM '{path}'")
    assert cur.rowcount == 4 and cur.statusmessage == "COPY 4"
    assert q(c, "SELECT * FROM t ORDER BY id") == [
        (1, "ada", datetime.date(2024, 5, 17), True, 1.5),
        (2, None, datetime.date(2024, 5, 18), True, None),
        (3, "c\td\\", None, False, -0.25),
        (4, "AA\n", datetime.date(2024, 1, 1), False, 1000.0)]


def test_text_round_trip_and_end_marker(c, tmp_path):
    c.execute("INSERT INTO t VALUES (1, 'a\tb', '2024-05-17', true, 0.1), (2, E'x\\\\y', NULL, NULL, NULL), "
              "(3, E'l1\\nl2', NULL, false, 1e20)")
    out = tmp_path / "out.tsv"
    assert c.execute(f"COPY t TO '{out}'").rowcount == 3
    assert out.read_text() == ("1\ta\\tb\t2024-05-17\tt\t0.1\n"
                               "2\tx\\\\y\t\\N\t\\N\t\\N\n"
                               "3\tl1\\nl2\t\\N\tf\t1e+20\n")
    c.execute("CREATE TABLE u (id INT PRIMARY KEY, name VARCHAR(5), d DATE, ok BOOLEAN, x DOUBLE)")
    write(out, out.read_text() + "\\.\n9\tignored\t\\N\t\\N\t\\N\n")  # nothing after \. is read
    assert c.execute(f"COPY u FROM '{out}'").rowcount == 3
    assert q(c, "SELECT * FROM u ORDER BY id") == q(c, "SELECT * FROM t ORDER BY id")


def test_delimiter_null_and_header_options(c, tmp_path):
    path = write(tmp_path / "p.txt", "id|name|d|ok|x\n1|NIL|2024-05-17|t|1\n2|b\\|c|NIL|f|2\n")
    assert c.execute(f"COPY t FROM '{path}' WITH (DELIMITER '|', NULL 'NIL', HEADER true)").rowcount == 2
    assert q(c, "SELECT id, name, d FROM t ORDER BY id") == [(1, None, datetime.date(2024, 5, 17)), (2, "b|c", None)]


# --- CSV ---------------------------------------------------------------------------------

def test_csv_quotes_nulls_and_multiline_values(c, tmp_path):
    path = write(tmp_path / "a.csv", 'id,name,d,ok,x\n'
                                     '1,"a,b",2024-05-17,true,1.5\n'
                                     '2,,,,\n'
                                     '3,"","2024-05-19",false,2\n'
                                     '4,"x""y",,on,3\r\n'
                                     '5,"l1\nl2",,,\n')
    assert c.execute(f"COPY t FROM '{path}' WITH (FORMAT csv, HEADER)").rowcount == 5
    assert q(c, "SELECT id, name, d, ok FROM t ORDER BY id") == [
        (1, "a,b", datetime.date(2024, 5, 17), True), (2, None, None, None),
        (3, "", datetime.date(2024, 5, 19), False), (4, 'x"y', None, True), (5, "l1\nl2", None, None)]


def test_csv_escape_applies_inside_quotes_only(c, tmp_path):
    """PostgreSQL's CSV ESCAPE escapes a quote or itself inside quotes; outside them it is an
    ordinary character. pyarrow's escape character worked outside quotes too (``a\\b`` was
    ``ab``)."""
    path = write(tmp_path / "e.csv", '1,a\\b,,,\n'               # unquoted: the backslash stays
                                     '2,"x\\"y",,,\n'            # \" inside quotes: a quote
                                     '3,"p\\\\q",,,\n'          # \\ inside quotes: one backslash
                                     '4,"r\\s",,,\n'             # before another character: itself
                                     '5,,,,\n6,"",,,\n'
                                     '7,"m\\"\nn",,,\r\n'        # a quoted line end: the value's
                                     '8,a"b\\"c"d,,,\n')          # a quoted part inside a field
    assert c.execute(f"COPY t FROM '{path}' (FORMAT csv, ESCAPE '\\')").rowcount == 8
    assert q(c, "SELECT id, name FROM t ORDER BY id") == [
        (1, "a\\b"), (2, 'x"y'), (3, "p\\q"), (4, "r\\s"), (5, None), (6, ""), (7, 'm"\nn'), (8, 'ab"cd')]
    bad = write(tmp_path / "b.csv", '9,"a\\"b,,,\n10,b,,,\n')
    fails(c, f"COPY t FROM '{bad}' (FORMAT csv, ESCAPE '\\')", "22P04", "unterminated CSV quoted field")
    wide = write(tmp_path / "w.csv", 'id,name,d,ok,x\n9,"\\"",,,\n10,x,,,,\n')
    fails(c, f"COPY t FROM '{wide}' (FORMAT csv, HEADER, ESCAPE '\\')", "22P04", "extra data after last expected "
          "column", "line 3")
    assert q(c, "SELECT count(*) FROM t") == [(8,)]


def test_integer_input_takes_postgresql_16_literals(connect, tmp_path):
    """PostgreSQL 16's integer input reads 0x1F, 0o17, 0b101 and underscores: COPY refused
    0o17 and a sign or spaces before 0x (22P02), and SQL's '0o17'::int too, while '2.5'::int
    was 3 (DuckDB's cast)."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE n (id INT, a SMALLINT, b BIGINT)")
    rows = "1\t0x1F\t-0o17\n2\t 0b1_01 \t+0X_FFFF_FFFF\n3\t1_000\t-0x8000000000000000\n"
    assert c.execute(f"COPY n FROM '{write(tmp_path / 'a', rows)}'").rowcount == 3
    assert q(c, "SELECT * FROM n ORDER BY id") == [(1, 31, -15), (2, 5, 4294967295), (3, 1000, -2 ** 63)]
    fails(c, f"COPY n FROM '{write(tmp_path / 'b', '4' + chr(9) + '0x8000' + chr(9) + '1' + chr(10))}'", "22003",
          'value "0x8000" is out of range for type smallint', "column a")
    for text in ("0x", "0x_", "1__0", "_1", "0o8", "0b2", "1.5", "0x1G"):
        fails(c, f"COPY n FROM '{write(tmp_path / 'c', '5' + chr(9) + text + chr(9) + '1' + chr(10))}'", "22P02",
              f'invalid input syntax for type smallint: "{text}"')
    assert q(c, "SELECT '0x1F'::int, '0o17'::int, '0b101'::smallint, '1_000'::bigint, ' -0x_1f '::integer, "
                "CAST('-0x8000000000000000' AS BIGINT)") == [(31, 15, 5, 1000, -31, -2 ** 63)]
    fails(c, "SELECT '2.5'::int", "22P02", 'invalid input syntax for type integer: "2.5"')
    fails(c, "SELECT '0x80000000'::int", "22003", 'value "0x80000000" is out of range for type integer')
    fails(c, "SELECT '1__0'::bigint", "22P02")


def test_old_csv_spelling_and_force_options(c, tmp_path):
    path = write(tmp_path / "a.csv", '1;;2024-05-17;t;1\n2;"";;f;2\n')
    c.execute(f"COPY t FROM '{path}' WITH CSV DELIMITER ';' FORCE NOT NULL name")
    assert q(c, "SELECT id, name FROM t ORDER BY id") == [(1, ""), (2, "")]
    c.execute("DELETE FROM t")
    c.execute(f"COPY t FROM '{path}' (FORMAT csv, DELIMITER ';', FORCE_NULL (name))")
    assert q(c, "SELECT id, name FROM t ORDER BY id") == [(1, None), (2, None)]
    fails(c, f"COPY t FROM '{path}' (FORMAT csv, FORCE_NULL (nope))", "42703")


def test_csv_out_quotes_where_needed(c, tmp_path):
    c.execute("INSERT INTO t VALUES (1, 'a,b', '2024-05-17', true, 1.5), (2, '', NULL, NULL, NULL), "
              "(3, 'q\"', NULL, false, NULL)")
    out = tmp_path / "o.csv"
    c.execute(f"COPY t (id, name, ok) TO '{out}' WITH CSV HEADER")
    assert out.read_text() == 'id,name,ok\n1,"a,b",t\n2,"",\n3,"q""",f\n'
    c.execute(f"COPY (SELECT id, name FROM t WHERE id < 3 ORDER BY id) TO '{out}' (FORMAT csv, FORCE_QUOTE *)")
    assert out.read_text() == '"1","a,b"\n"2",""\n'
    c.execute("CREATE TABLE u (id INT PRIMARY KEY, name VARCHAR(5), d DATE, ok BOOLEAN, x DOUBLE)")
    c.execute(f"COPY t TO '{out}' (FORMAT csv)")
    c.execute(f"COPY u FROM '{out}' (FORMAT csv)")
    assert q(c, "SELECT * FROM u ORDER BY id") == q(c, "SELECT * FROM t ORDER BY id")


def test_header_match(c, tmp_path):
    good = write(tmp_path / "g.csv", "id,name\n1,a\n")
    c.execute(f"COPY t (id, name) FROM '{good}' (FORMAT csv, HEADER match)")
    assert q(c, "SELECT id, name FROM t") == [(1, "a")]
    bad = write(tmp_path / "b.csv", "id,nom\n2,b\n")
    fails(c, f"COPY t (id, name) FROM '{bad}' (FORMAT csv, HEADER match)", "22P04",
          'column name mismatch in header line field 2: got "nom", expected "name"')
    bad_text = write(tmp_path / "b.txt", "nom\tid\n2\tb\n")
    fails(c, f"COPY t (id, name) FROM '{bad_text}' (HEADER match)", "22P04", "field 1")


# --- INSERT's rules ----------------------------------------------------------------------

def test_defaults_serial_and_column_list(connect, tmp_path):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE s (id SERIAL PRIMARY KEY, name TEXT NOT NULL, tag TEXT DEFAULT 'new', at DATE)")
    path = write(tmp_path / "s.csv", "2024-05-17,a\n,b\n")
    assert c.execute(f"COPY s (at, name) FROM '{path}' (FORMAT csv)").rowcount == 2
    c.execute("INSERT INTO s (name) VALUES ('c')")
    assert q(c, "SELECT * FROM s ORDER BY id") == [
        (1, "a", "new", datetime.date(2024, 5, 17)), (2, "b", "new", None), (3, "c", "new", None)]


def test_constraints_as_insert(c, tmp_path):
    too_long = write(tmp_path / "a", "1\tabcdefg\t\\N\t\\N\t\\N\n")
    fails(c, f"COPY t FROM '{too_long}'", "22001", "value too long for type character varying(5)",
          'COPY t, line 1, column name: "abcdefg"')
    spaces = write(tmp_path / "b", "1\tabc  \t\\N\t\\N\t\\N\n")
    c.execute(f"COPY t FROM '{spaces}'")  # (only spaces past the length: cut, as INSERT cuts them)
    assert q(c, "SELECT name FROM t") == [("abc  ",)]
    c.execute("DELETE FROM t")
    short = write(tmp_path / "c", "1\ta\n2\tb\n")
    fails(c, f"COPY t FROM '{short}' (FORMAT text)", "22P04", 'missing data for column "d"', 'line 1: "1\ta"')
    dup = write(tmp_path / "d.csv", "1,a,,,\n2,b,,,\n1,c,,,\n")
    fails(c, f"COPY t FROM '{dup}' (FORMAT csv)", "23505", "Key (id)=(1) already exists",
          "CONTEXT:  COPY t, line 3")
    c.execute("INSERT INTO t (id) VALUES (7)")
    fails(c, f"COPY t FROM '{write(tmp_path / 'e.csv', '6,a,,,' + chr(10) + '7,b,,,' + chr(10))}' (FORMAT csv)",
          "23505", "(id)=(7)", "COPY t, line 2")
    nulls = write(tmp_path / "f.csv", "8,a,,,\n,b,,,\n")
    fails(c, f"COPY t FROM '{nulls}' (FORMAT csv)", "23502", 'null value in column "id"', "COPY t, line 2")
    assert q(c, "SELECT id FROM t") == [(7,)]  # each failed COPY loaded nothing


def test_numeric_rules(connect, tmp_path):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE n (a DECIMAL(5,2), b BIGINT)")
    c.execute(f"COPY n FROM '{write(tmp_path / 'a', '1.005' + chr(9) + ' 1_000 ' + chr(10) + '1e2' + chr(9) + '-7')}'")
    assert q(c, "SELECT * FROM n ORDER BY b") == [(decimal.Decimal("100.00"), -7), (decimal.Decimal("1.01"), 1000)]
    fails(c, f"COPY n FROM '{write(tmp_path / 'b', '12345' + chr(9) + '1')}'", "22003", "numeric field overflow",
          "column a")
    fails(c, f"COPY n FROM '{write(tmp_path / 'c', '1x' + chr(9) + '1')}'", "22P02",
          'invalid input syntax for type numeric: "1x"')


def test_bad_values_name_line_and_column(c, tmp_path):
    cases = [("1,a,,,\n2,b,,,\nabc,c,,,\n", "22P02", 'invalid input syntax for type integer: "abc"',
              'COPY t, line 3, column id: "abc"'),
             ("2.5,a,,,\n", "22P02", 'invalid input syntax for type integer: "2.5"', "line 1, column id"),
             ("9999999999,a,,,\n", "22003", 'value "9999999999" is out of range for type integer', "line 1"),
             ("1,a,2024-02-30,,\n", "22008", 'date/time field value out of range: "2024-02-30"', "column d"),
             ("1,a,someday,,\n", "22007", 'invalid input syntax for type date: "someday"', "column d"),
             ("1,a,infinity,,\n", "22008", "infinity", "column d"),
             ("1,a,,maybe,\n", "22P02", 'invalid input syntax for type boolean: "maybe"', "column ok"),
             ("1,a,,,1e400\n", "22003", '"1e400" is out of range for type double precision', "column x"),
             ("1,a,,,1_0\n", "22P02", 'invalid input syntax for type double precision: "1_0"', "column x"),
             ("1,a,,,\n2,b,,,,\n", "22P04", "extra data after last expected column", 'line 2: "2,b,,,,"')]
    for i, (text, sqlstate, *words) in enumerate(cases):
        fails(c, f"COPY t FROM '{write(tmp_path / f'{i}.csv', text)}' (FORMAT csv)", sqlstate, *words)
    # the first row holding a bad value, and its first bad column - whatever the kind of error,
    # and also in a row COPY ... WHERE would not keep
    mixed = write(tmp_path / "mixed.csv", "1,a,,,\n2,b,,perhaps,1e400\n3.5,c,,,\n")
    fails(c, f"COPY t FROM '{mixed}' (FORMAT csv)", "22P02", 'line 2, column ok: "perhaps"')
    fails(c, f"COPY t FROM '{mixed}' (FORMAT csv) WHERE id = 1", "22P02", "line 2, column ok")
    # a constraint a line before the bad value breaks comes first, as PostgreSQL goes line by line
    fails(c, f"COPY t FROM '{write(tmp_path / 'n.csv', '1,a,,,' + chr(10) + ',b,,,' + chr(10) + 'x,c,,,')}' "
             "(FORMAT csv)", "23502", "line 2")
    fails(c, f"COPY t FROM '{write(tmp_path / 'n2.csv', '1,a,,,' + chr(10) + 'x,c,,,' + chr(10) + ',b,,,')}' "
             "(FORMAT csv)", "22P02", "line 2")
    # a line of the wrong width is the error when no line before it has a bad value
    for fmt, sep, null in (("csv", ",", ""), ("text", "\t", "\\N")):
        good, wide, bad = (sep.join(["1", "a", null, null, null]), sep.join(["2", "b", null, null, null, null]),
                           sep.join(["x", "c", null, null, null]))
        value_first = write(tmp_path / f"v.{fmt}", f"{good}\n{bad}\n{wide}\n")
        fails(c, f"COPY t FROM '{value_first}' (FORMAT {fmt})", "22P02", "line 2, column id")
        width_first = write(tmp_path / f"w.{fmt}", f"{good}\n{wide}\n{bad}\n")
        fails(c, f"COPY t FROM '{width_first}' (FORMAT {fmt})", "22P04", "extra data after last expected column",
              "line 2")
    assert q(c, "SELECT count(*) FROM t") == [(0,)]


def test_special_date_and_time_inputs(connect, tmp_path):
    c = connect()
    c.execute("CREATE TABLE d (a DATE, b TIMESTAMP)")
    c.execute(f"COPY d FROM '{write(tmp_path / 'd.csv', 'today,now' + chr(10) + ' Tomorrow ,yesterday' + chr(10))}' "
              "(FORMAT csv)")
    now, today = q(c, "SELECT now()::timestamp, current_date")[0]
    day = datetime.timedelta(days=1)
    assert q(c, "SELECT * FROM d") == [(today, now), (today + day, datetime.datetime.combine(today - day,
                                                                                            datetime.time()))]


def test_where_clause(c, tmp_path):
    path = write(tmp_path / "a.csv", "1,a,,,\n2,b,,,\n3,c,,,\n")
    assert c.execute(f"COPY t FROM '{path}' (FORMAT csv) WHERE id <> 2").rowcount == 2
    assert q(c, "SELECT id FROM t ORDER BY id") == [(1,), (3,)]


# --- errors ------------------------------------------------------------------------------

def test_file_errors(c, tmp_path, warehouse):
    fails(c, f"COPY t FROM '{tmp_path / 'missing.csv'}'", "58P01",
          f'could not open file "{tmp_path / "missing.csv"}" for reading: No such file or directory')
    fails(c, f"COPY t FROM '{tmp_path}'", "42809", "is a directory")
    # (CSV is read by pyarrow, whose error said "Failed to open local file '...'. Detail: [errno 2] ...")
    fails(c, f"COPY t FROM '{tmp_path / 'missing.csv'}' (FORMAT csv)", "58P01",
          f'could not open file "{tmp_path / "missing.csv"}" for reading: No such file or directory')
    fails(c, f"COPY t TO '{tmp_path / 'no' / 'dir.csv'}'", "58P01", "for writing")
    fails(c, f"COPY t TO '{tmp_path}'", "42809")
    before = sorted(os.walk(warehouse))
    fails(c, f"COPY t TO '{warehouse}/default.db/t/bucket-0/data.parquet' (FORMAT parquet)", "42501",
          "inside the warehouse")
    fails(c, f"COPY t TO '{warehouse}/_txlog/HEAD'", "42501")
    assert sorted(os.walk(warehouse)) == before
    if os.geteuid() != 0:
        locked = write(tmp_path / "locked.csv", "1,a,,,\n")
        os.chmod(locked, 0)
        fails(c, f"COPY t FROM '{locked}' (FORMAT csv)", "42501", "Permission denied")


def test_option_errors(c, tmp_path):
    path = write(tmp_path / "a.csv", "")
    fails(c, f"COPY t FROM '{path}' (FORMAT xml)", "22023", 'COPY format "xml" not recognized')
    fails(c, f"COPY t FROM '{path}' (BOGUS 1)", "42601", 'option "bogus" not recognized')
    fails(c, f"COPY t FROM '{path}' (FORMAT csv, FORMAT text)", "42601", "conflicting or redundant options")
    fails(c, f"COPY t FROM '{path}' (DELIMITER 'ab')", "0A000", "single one-byte character")
    fails(c, f"COPY t FROM '{path}' (QUOTE '\"')", "0A000", "COPY quote available only in CSV mode")
    fails(c, f"COPY t FROM '{path}' (HEADER maybe)", "22023", 'header requires a Boolean value or "match"')
    fails(c, f"COPY t TO '{path}' (HEADER match)", "0A000", "match")
    fails(c, f"COPY t TO '{path}' (FORMAT csv, FORCE_NOT_NULL (id))", "0A000", "only available using COPY FROM")
    fails(c, f"COPY t (id) FROM '{path}' (FORMAT csv, FORCE_NOT_NULL (x))", "42P10", "not referenced by COPY")
    fails(c, f"COPY t (id) TO '{tmp_path / 'o.csv'}' (FORMAT csv, FORCE_QUOTE (x))", "42P10",
          'FORCE_QUOTE column "x" not referenced by COPY')
    assert not (tmp_path / "o.csv").exists()
    fails(c, f"COPY t (id, nope) FROM '{path}'", "42703", 'column "nope"')
    fails(c, f"COPY nope FROM '{path}'", "42P01")
    fails(c, f"COPY t FROM PROGRAM 'cat {path}'", "0A000")
    fails(c, "COPY t FROM STDIN", "0A000", "\\copy")
    fails(c, "COPY t TO STDOUT", "0A000")
    assert c.execute(f"COPY t FROM '{path}' (FORMAT csv)").rowcount == 0  # an empty file loads nothing


# --- transactions ------------------------------------------------------------------------

def test_copy_is_part_of_the_transaction(connect, tmp_path):
    c = connect()
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.commit()
    path = write(tmp_path / "a.csv", "1,a\n2,b\n")
    c.execute(f"COPY t FROM '{path}' (FORMAT csv)")
    other = connect(autocommit=True)
    assert q(other, "SELECT count(*) FROM t") == [(0,)]  # not before the commit
    c.rollback()
    assert q(c, "SELECT count(*) FROM t") == [(0,)]
    c.execute(f"COPY t FROM '{path}' (FORMAT csv)")
    bad = write(tmp_path / "b.csv", "3,c\nx,d\n")
    with pytest.raises(errors.InvalidTextRepresentation):
        c.execute(f"COPY t FROM '{bad}' (FORMAT csv)")
    with pytest.raises(errors.InFailedTransaction):  # a failed COPY fails the block
        c.execute("SELECT 1")
    c.rollback()
    assert q(c, "SELECT count(*) FROM t") == [(0,)]


def test_read_only_transaction(connect, tmp_path):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    c.execute("INSERT INTO t VALUES (1)")
    path = write(tmp_path / "a.txt", "2\n")
    c.execute("BEGIN READ ONLY")
    out = tmp_path / "out.txt"
    c.execute(f"COPY t TO '{out}'")  # COPY TO only reads
    with pytest.raises(errors.ReadOnlyTransaction):
        c.execute(f"COPY t FROM '{path}'")
    c.execute("ROLLBACK")
    assert out.read_text() == "1\n"


def test_copy_to_is_atomic(c, tmp_path):
    """A COPY TO that fails leaves the old file whole, and no temporary file beside it."""
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "out.txt"
    out.write_text("old\n")
    fails(c, f"COPY (SELECT 1 / (id - id) FROM t UNION ALL SELECT 1 / 0) TO '{out}'", "22012")
    assert out.read_text() == "old\n"
    assert os.listdir(folder) == ["out.txt"]


def test_copy_to_sees_its_snapshot_while_others_write(connect, tmp_path):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    c.execute("INSERT INTO t SELECT * FROM range(1000)")
    reader = connect(isolation_level="REPEATABLE READ")
    reader.execute("SELECT 1")  # its snapshot
    done = threading.Event()

    def writer():
        w = connect(autocommit=True)
        while not done.is_set():
            w.execute("INSERT INTO t VALUES (-1)")
            time.sleep(0.001)
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        out = tmp_path / "out.txt"
        assert reader.execute(f"COPY t TO '{out}'").rowcount == 1000
    finally:
        done.set()
        thread.join()
    assert len(out.read_text().splitlines()) == 1000


# --- types out ---------------------------------------------------------------------------

def test_copy_to_writes_what_postgresql_writes(connect, tmp_path):
    c = connect(autocommit=True)
    out = tmp_path / "o.txt"
    c.execute(f"COPY (SELECT 1.50::DECIMAL(5,2), 100.0::DOUBLE, 'NaN'::DOUBLE, TIMESTAMP '2024-05-17 12:00:00.5', "
              f"TIMESTAMP '2024-05-17 12:00:00', DATE '2024-05-17', INTERVAL '1 day 2 hours', true, NULL, "
              f"9223372036854775807::BIGINT, sum(x), 1e15::DOUBLE, 1234567890123456::DOUBLE "
              f"FROM (VALUES (1), (2)) AS v(x)) TO '{out}'")
    assert out.read_text() == ("1.50\t100\tNaN\t2024-05-17 12:00:00.5\t2024-05-17 12:00:00\t2024-05-17\t"
                               "1 day 02:00:00\tt\t\\N\t9223372036854775807\t3\t1e+15\t1.234567890123456e+15\n")


# --- Parquet -----------------------------------------------------------------------------

def test_parquet_both_ways(c, tmp_path):
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"x": [1.5, None], "name": ["a", "b"], "id": [1, 2]}), source)
    assert c.execute(f"COPY t (id, name, x) FROM '{source}' (FORMAT parquet)").rowcount == 2  # by name
    assert q(c, "SELECT id, name, x FROM t ORDER BY id") == [(1, "a", 1.5), (2, "b", None)]
    out = tmp_path / "out.parquet"
    assert c.execute(f"COPY t TO '{out}' (FORMAT parquet)").rowcount == 2
    back = pq.read_table(out)
    assert back.column_names == ["id", "name", "d", "ok", "x"] and back.column("id").to_pylist() == [1, 2]
    fails(c, f"COPY t FROM '{write(tmp_path / 'not.parquet', 'text')}' (FORMAT parquet)", "22P04")
    fails(c, f"COPY t FROM '{source}' (FORMAT parquet, HEADER)", "0A000")


# --- size --------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csv", "text"])
def test_a_few_hundred_thousand_rows(connect, tmp_path, fmt):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE big (id BIGINT PRIMARY KEY, name TEXT, amount DECIMAL(12,2), at TIMESTAMP)")
    n = 300_000
    sep = "," if fmt == "csv" else "\t"
    path = tmp_path / f"big.{fmt}"
    with open(path, "w") as f:
        for i in range(n):
            f.write(f"{i}{sep}name {i}{sep}{i % 1000}.25{sep}2024-05-17 12:{i % 60:02d}:00\n")
    start = time.perf_counter()
    assert c.execute(f"COPY big FROM '{path}' (FORMAT {fmt})").rowcount == n
    loaded = time.perf_counter() - start
    assert q(c, "SELECT count(*), count(DISTINCT id), sum(amount) FROM big") == [
        (n, n, decimal.Decimal(sum(i % 1000 for i in range(n))) + decimal.Decimal("0.25") * n)]
    out = tmp_path / f"out.{fmt}"
    assert c.execute(f"COPY big TO '{out}' (FORMAT {fmt})").rowcount == n
    assert os.path.getsize(out) > 0
    print(f"COPY FROM {n} rows ({fmt}): {loaded:.2f} s")


def test_a_large_copy_spills_to_parquet_and_a_rollback_removes_it(warehouse, tmp_path):
    """Past the transaction's memory share the loaded rows go to Parquet files (INSERT's spill),
    so the file is never in memory whole; a rollback removes those files."""
    conn = txlake.connect(warehouse, publish="off", memory_limit="16MB")
    try:
        conn.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, pad TEXT)")
        conn.commit()
        path = tmp_path / "big.csv"
        with open(path, "w") as f:
            for i in range(200_000):
                f.write(f"{i},{'p' * 100}\n")
        bucket = os.path.join(warehouse, "default.db", "t", "bucket-0")
        assert conn.execute(f"COPY t FROM '{path}' (FORMAT csv)").rowcount == 200_000
        assert conn.session.db.warehouse.store.spills > 0 and os.listdir(bucket)
        assert conn.execute("SELECT count(*), max(id) FROM t").fetchone() == (200_000, 199_999)
        conn.rollback()
        assert os.listdir(bucket) == [], "rollback removed the spilled files"
        conn.execute(f"COPY t FROM '{path}' (FORMAT csv)")
        conn.commit()
        assert conn.execute("SELECT count(DISTINCT id) FROM t").fetchone() == (200_000,)
    finally:
        conn.close()


def test_concurrent_copies_of_the_same_keys(connect, tmp_path):
    """A COPY of keys another open transaction loaded waits for it, as an INSERT does, then fails
    with 23505 once that one commits; a COPY of other keys goes through meanwhile."""
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    first = write(tmp_path / "1.csv", "".join(f"{i},a\n" for i in range(1000)))
    overlapping = write(tmp_path / "2.csv", "".join(f"{i},b\n" for i in range(500, 1500)))
    other = write(tmp_path / "3.csv", "".join(f"{i},c\n" for i in range(5000, 6000)))
    a = connect()
    a.execute(f"COPY t FROM '{first}' (FORMAT csv)")
    outcome = {}

    def load():
        b = connect(autocommit=True)
        try:
            b.execute(f"COPY t FROM '{overlapping}' (FORMAT csv)")
            outcome["b"] = "loaded"
        except errors.Error as e:
            outcome["b"] = e.sqlstate
    thread = threading.Thread(target=load)
    thread.start()
    time.sleep(0.5)
    assert thread.is_alive() and "b" not in outcome, "the second COPY waits for the first's keys"
    assert connect(autocommit=True).execute(f"COPY t FROM '{other}' (FORMAT csv)").rowcount == 1000
    a.commit()
    thread.join(30)
    assert outcome["b"] == "23505"
    assert q(setup, "SELECT count(*), min(v), max(v) FROM t") == [(2000, "a", "c")]


def test_copy_expert_from_stdin_and_to_stdout(connect):
    """The DB-API's way to STDIN / STDOUT: psycopg2's cursor.copy_expert(sql, file)."""
    import io
    c = connect()
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.commit()
    cur = c.cursor()
    cur.copy_expert("COPY t FROM STDIN WITH (FORMAT csv, HEADER)", io.StringIO("id,v\n1,a\n2,\n"))
    assert cur.rowcount == 2 and cur.statusmessage == "COPY 2"
    cur.copy_expert("COPY t (id) FROM STDIN", io.BytesIO(b"3\n4\n"), size=2)
    out = io.StringIO()
    cur.copy_expert("COPY (SELECT * FROM t ORDER BY id) TO STDOUT", out)
    assert out.getvalue() == "1\ta\n2\t\\N\n3\t\\N\n4\t\\N\n" and cur.rowcount == 4
    raw = io.BytesIO()
    cur.copy_expert("COPY t TO STDOUT (FORMAT csv)", raw)
    assert raw.getvalue().count(b"\n") == 4
    c.rollback()  # (part of the transaction, as any COPY)
    assert q(c, "SELECT count(*) FROM t") == [(0,)]
    with pytest.raises(errors.ProgrammingError):
        cur.copy_expert("SELECT 1", io.StringIO())
    with pytest.raises(errors.InvalidTextRepresentation):
        cur.copy_expert("COPY t FROM STDIN", io.StringIO("x\ty\n"))


def test_a_canceled_copy_stops_at_its_next_batch(connect, tmp_path):
    """conn.cancel() during a long COPY FROM ends it at the next batch (57014, nothing loaded),
    not when the whole file has been read: here the file is a pipe whose writer holds back the
    rest until the COPY has answered."""
    from txlake.engine.copy import BATCH_ROWS
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    answered, held_back = threading.Event(), {}

    def feed():
        f = open(pipe, "w")
        try:
            f.write("".join(f"{i}\n" for i in range(BATCH_ROWS)))  # the first batch
            f.flush()
            time.sleep(0.2)
            c.cancel()
            f.write("".join(f"{i}\n" for i in range(BATCH_ROWS + 10)))  # (past the next batch's end)
            f.flush()
        except BrokenPipeError:  # (the COPY stopped reading)
            pass
        held_back["timed_out"] = not answered.wait(10)
        try:
            f.close()  # the end of the file
        except BrokenPipeError:
            pass
    writer = threading.Thread(target=feed)
    writer.start()
    with pytest.raises(errors.QueryCanceled):
        c.execute(f"COPY t FROM '{pipe}'")
    answered.set()
    writer.join()
    assert held_back["timed_out"] is False, "the COPY answered before its file ended"
    assert q(c, "SELECT count(*) FROM t") == [(0,)]


def test_copy_reads_and_writes_every_column_type(connect, tmp_path):
    """TIMESTAMPTZ (in the session's zone), SMALLINT, REAL, BYTEA (hex and escape formats) and
    TIME by PostgreSQL's input rules, out in its text, csv and Parquet, and back unchanged."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE ty (id INT PRIMARY KEY, ts TIMESTAMPTZ, s SMALLINT, r REAL, b BYTEA, t TIME)")
    c.execute("SET TIME ZONE 'Asia/Tokyo'")
    src = write(tmp_path / "ty.txt", "1\t2024-01-02 03:04:05+02\t7\t1.5\t\\\\x6162\t12:30:00\n"
                                     "2\t2024-01-02 03:04:05\t-32768\t-0.25\ta\\\\001b\t00:00:01.5\n"
                                     "3\t\\N\t\\N\t\\N\t\\N\t\\N\n")
    assert c.execute(f"COPY ty FROM '{src}'").rowcount == 3
    tokyo = datetime.timezone(datetime.timedelta(hours=9))
    assert q(c, "SELECT * FROM ty ORDER BY id") == [
        (1, datetime.datetime(2024, 1, 2, 1, 4, 5, tzinfo=datetime.timezone.utc), 7, 1.5, b"ab",
         datetime.time(12, 30)),
        (2, datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=tokyo), -32768, -0.25, b"a\x01b",  # (read in the zone)
         datetime.time(0, 0, 1, 500000)),
        (3, None, None, None, None, None)]
    text, csv, parquet = tmp_path / "o.txt", tmp_path / "o.csv", tmp_path / "o.parquet"
    c.execute(f"COPY ty TO '{text}'")
    assert text.read_text().splitlines()[0] == "1\t2024-01-02 10:04:05+09\t7\t1.5\t\\\\x6162\t12:30:00"
    c.execute(f"COPY ty TO '{csv}' (FORMAT csv)")
    assert csv.read_text().splitlines()[1] == "2,2024-01-02 03:04:05+09,-32768,-0.25,\\x610162,00:00:01.5"
    c.execute(f"COPY ty TO '{parquet}' (FORMAT parquet)")
    before = q(c, "SELECT * FROM ty ORDER BY id")
    for path, options in ((text, ""), (csv, "(FORMAT csv)"), (parquet, "(FORMAT parquet)")):
        c.execute("DELETE FROM ty")
        assert c.execute(f"COPY ty FROM '{path}' {options}").rowcount == 3
        assert q(c, "SELECT * FROM ty ORDER BY id") == before, path


@pytest.mark.parametrize("field, sqlstate, words", [
    ("s\t99999", "22003", ['value "99999" is out of range for type smallint', "column s"]),
    ("s\t1.5", "22P02", ['invalid input syntax for type smallint: "1.5"']),
    ("r\t1e40", "22003", ['"1e40" is out of range for type real']),
    ("r\t1e-50", "22003", ['"1e-50" is out of range for type real']),
    ("b\t\\\\x616", "22P02", ['invalid input syntax for type bytea: "\\x616"']),
    ("b\ta\\\\9", "22P02", ['invalid input syntax for type bytea: "a\\9"']),
    ("ts\tinfinity", "22008", ['date/time field value out of range: "infinity"']),
    ("ts\tnoon-ish", "22007", ['invalid input syntax for type timestamp with time zone: "noon-ish"']),
])
def test_copy_refuses_a_bad_value_of_each_new_type_by_its_line(connect, tmp_path, field, sqlstate, words):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE ty (id INT PRIMARY KEY, ts TIMESTAMPTZ, s SMALLINT, r REAL, b BYTEA)")
    column, value = field.split("\t")
    src = write(tmp_path / "bad.txt", f"1\t\\N\n2\t{value}\n")
    fails(c, f"COPY ty (id, {column}) FROM '{src}'", sqlstate, *words, "COPY ty, line 2")
    assert q(c, "SELECT count(*) FROM ty") == [(0,)]


@pytest.mark.parametrize("options, lines", [
    ("", ["1\ta", "2\tb", b"3\t\xff"]),
    ("(FORMAT csv, ESCAPE '\\')", ["1,a", "2,b", b"3,\xff"]),  # (read by txlake's own CSV reader)
    ("(FORMAT csv)", ["1,a", "2,b", b"3,\xff"]),  # (by pyarrow's)
])
def test_bytes_that_are_not_utf8_are_22021_at_their_line(c, tmp_path, options, lines):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"\n".join(x if isinstance(x, bytes) else x.encode() for x in lines) + b"\n")
    fails(c, f"COPY t (id, name) FROM '{path}' {options}", "22021", 'invalid byte sequence for encoding "UTF8": 0xff',
          "COPY t, line 3")
    assert q(c, "SELECT count(*) FROM t") == [(0,)]
