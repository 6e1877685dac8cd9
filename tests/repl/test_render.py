"""Result and error display: aligned, expanded, CSV, NULL, truncation, the syntax-error caret."""

import pyarrow as pa

import txlake
from txlake.repl.render import caret_lines, render_csv, render_error, render_expanded, render_table


def table():
    return pa.table({"id": pa.array([1, 22, None], pa.int64()),
                     "name": pa.array(["ada", None, ""], pa.string())})


def test_aligned_table_has_header_rule_right_aligned_numbers_and_row_count():
    assert render_table(table()).splitlines() == [
        "  id  | name",
        "------+------",
        "    1 | ada",
        "   22 | NULL",
        " NULL |",
        "(3 rows)",
    ]


def test_null_is_not_the_empty_string():
    lines = render_table(table()).splitlines()
    assert lines[3].endswith("NULL") and lines[4].rstrip().endswith("|")
    assert render_table(table(), null="∅").splitlines()[3].endswith("∅")


def test_decimals_show_their_scale_and_intervals_as_postgresql_prints_them(connect):
    """str(Decimal) wrote 0E-9 and 1.00E-7, and intervals showed as pyarrow's MonthDayNano."""
    conn = connect()
    result = conn.execute("SELECT 0::DECIMAL(38,9) AS zero, 0.0000001::DECIMAL(38,9) AS small, "
                          "interval '1 day 2 hours 30 minutes' AS i, interval '-3 days' AS neg, "
                          "interval '1.5 seconds' AS frac").fetch_arrow_table()
    assert render_table(result).splitlines()[2] == (
        " 0.000000000 | 0.000000100 | 1 day 02:30:00 | -3 days | 00:00:01.5")
    assert render_csv(result).splitlines()[1] == "0.000000000,0.000000100,1 day 02:30:00,-3 days,00:00:01.5"


def test_intervals_keep_their_months_and_hours_as_psql_shows_them(connect):
    """The shell showed an interval through the fetched timedelta, which has no months: '1 mon'
    was 30 days, '1 year 2 mons' 425 days, and 36 hours 1 day 12:00:00."""
    conn = connect()
    result = conn.execute("SELECT interval '1 month' AS a, interval '1 year 2 months 3 days 04:05:06.5' AS b, "
                          "interval '36 hours' AS c, interval '-14 months' AS d, interval '-1 day 2 hours' AS e, "
                          "interval '1 day' - interval '1 second' AS f, interval '0' AS g, "
                          "interval '-1 day' AS h").fetch_arrow_table()
    assert render_csv(result).splitlines()[1] == (
        "1 mon,1 year 2 mons 3 days 04:05:06.5,36:00:00,-1 years -2 mons,-1 days +02:00:00,1 day -00:00:01,"
        "00:00:00,-1 days")


def test_arrays_as_postgresql_writes_them(connect):
    """array_agg() showed as Python's list: ['x', 'y'], None for NULL."""
    conn = connect()
    result = conn.execute("SELECT [1, NULL, 3] AS a, ['a b', '', 'NULL', 'x\"y', 'c,d', 'plain'] AS b, "
                          "[[1, 2], [3, 4]] AS c, [true] AS d, []::int[] AS e").fetch_arrow_table()
    assert render_table(result).splitlines()[2] == (
        ' {1,NULL,3} | {"a b","","NULL","x\\"y","c,d",plain} | {{1,2},{3,4}} | {t} | {}')


def test_one_row_says_row():
    assert render_table(pa.table({"x": [1]})).splitlines()[-1] == "(1 row)"


def test_long_results_are_cut_with_a_note_that_counts_the_rest():
    big = pa.table({"n": list(range(5000))})
    lines = render_table(big, max_rows=10).splitlines()
    assert len(lines) == 2 + 10 + 2
    assert "4990 more rows not shown" in lines[-2] and "\\rows" in lines[-2]
    assert lines[-1] == "(5000 rows)"


def test_expanded_display_shows_one_block_per_row():
    text = render_expanded(table())
    blocks = text.split("-[ RECORD ")
    assert len(blocks) == 4
    assert "id   | 22\nname | NULL" in text


def test_a_value_of_several_lines_is_shown_on_several_as_psql_shows_it():
    """Each line of a multi-line value (``jsonb_pretty``'s) on a line of its own, a ``+`` after
    each one the value goes on from - it was one line with ``\\n`` in it; a tab stays ``\\t``."""
    t = pa.table({"doc": ["{\n    \"a\": 1\n}", "x"], "n": pa.array([7, 8], pa.int64()), "t": ["a\tb", "c\nd"]})
    assert render_table(t).splitlines() == [
        "    doc     | n |  t",
        "------------+---+------",
        " {         +| 7 | a\\tb",
        '     "a": 1+|   |',
        " }          |   |",
        " x          | 8 | c   +",
        "            |   | d",
        "(2 rows)",
    ]
    assert render_expanded(t.slice(0, 1)).splitlines()[1:] == [
        "doc | {         +", '    |     "a": 1+', "    | }", "n   | 7", "t   | a\\tb"]


def test_csv_null_is_an_empty_field_and_empty_string_is_quoted():
    data = pa.table({"a": [1, None], "b": ['say "hi", then', ""]})
    assert render_csv(data).splitlines() == ["a,b", '1,"say ""hi"", then"', ',""']


def test_error_shows_sqlstate_message_and_a_caret_under_the_position():
    error = txlake.errors.SyntaxError('syntax error at or near "FORM"', position=10)
    text = render_error(error, "SELECT * FORM t")
    assert text.splitlines() == [
        'ERROR:  42601: syntax error at or near "FORM"',
        "LINE 1: SELECT * FORM t",
        "                 ^",
    ]


def test_caret_on_a_later_line_of_a_multi_line_statement():
    lines = caret_lines("SELECT *\nFROM t\nWHERE x = = 1", position=len("SELECT *\nFROM t\nWHERE x = ") + 1)
    assert lines[0] == "LINE 3: WHERE x = = 1"
    assert lines[1].index("^") == len("LINE 3: WHERE x = ")


def test_caret_in_a_very_long_line_stays_under_its_token():
    statement = "SELECT " + ", ".join(f"c{i}" for i in range(200)) + " FORM t"
    position = statement.index("FORM") + 1
    label, caret = caret_lines(statement, position)
    assert label.startswith("LINE 1: ...")
    assert label[caret.index("^"):].startswith("FORM")


def test_expanded_auto_switches_on_for_tables_wider_than_the_terminal(connect, monkeypatch):
    import io

    from txlake.repl.runner import Runner

    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("LINES", "20")
    out = io.StringIO()
    runner = Runner(connect(autocommit=True), out, io.StringIO())
    runner.expanded = "auto"
    runner.run_statement("SELECT 1 AS a, 'narrow' AS b")
    assert "-[ RECORD" not in out.getvalue()
    runner.run_statement(f"SELECT '{'w' * 60}' AS wide, 2 AS b")
    assert "-[ RECORD 1 ]" in out.getvalue()


def test_doubles_and_times_print_as_psql_prints_them(connect):
    result = connect().execute("SELECT 100.0::DOUBLE AS a, 'NaN'::DOUBLE AS b, TIMESTAMP '2024-01-01 12:00:00.5' AS c, "
                               "TIME '12:30:00.12' AS d, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS e").fetch_arrow_table()
    assert render_csv(result).splitlines()[1].split(",")[:4] == ["100", "NaN", "2024-01-01 12:00:00.5", "12:30:00.12"]


def test_columns_align_by_terminal_cells_not_characters():
    """A wide (East Asian) character takes two cells and a combining accent none, as psql
    counts them (pg_wcswidth): the rule and the padding follow the cells."""
    result = pa.table({"name": pa.array(["日本語", "cafe\u0301", "ab"], pa.string()), "n": [1, 2, 3]})
    assert render_table(result).splitlines() == [
        "  name  | n",
        "--------+---",
        " 日本語 | 1",
        " cafe\u0301   | 2",
        " ab     | 3",
        "(3 rows)",
    ]
