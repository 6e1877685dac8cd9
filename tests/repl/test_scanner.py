"""Where statements end: the scanner behind the shell's Enter key and the script modes."""

import pytest

from txlake.repl.scanner import META, SQL, Piece, scan


def sql(*texts):
    return [Piece(SQL, t) for t in texts]


def test_several_statements_share_a_line():
    assert scan("select 1; select 2;").pieces == sql("select 1", "select 2")


def test_a_statement_spans_lines_until_the_semicolon():
    first = scan("select *\nfrom t\n")
    assert first.pieces == [] and first.pending and first.state == "-"
    assert scan("select *\nfrom t\nwhere id = 1;").pieces == sql("select *\nfrom t\nwhere id = 1")


def test_rest_after_the_last_semicolon_is_kept():
    scanned = scan("select 1; select")
    assert scanned.pieces == sql("select 1")
    assert scanned.rest.strip() == "select"


@pytest.mark.parametrize("text, state", [
    ("select 'a;b", "'"),
    ('select "odd;name', '"'),
    ("select (1;", "("),
    ("select /* a; /* nested */ still;", "*"),
    ("select $$ body;", "$"),
    ("select $fn$ body; $$ ;", "$"),
])
def test_semicolons_inside_quotes_comments_and_parentheses_end_nothing(text, state):
    scanned = scan(text)
    assert scanned.pieces == []
    assert scanned.state == state


@pytest.mark.parametrize("text", [
    "select 'it''s;' as a;",
    'select 1 as "x;""y";',
    "select 1 -- not the end;\n;",
    "select /* ; */ 1;",
    "select $$a;b$$;",
    "select $q$a;$$;b$q$;",
    "select (1; 2);",
])
def test_closed_quotes_and_comments_then_the_semicolon_ends_it(text):
    scanned = scan(text)
    assert [p.kind for p in scanned.pieces] == [SQL]
    assert scanned.pieces[0].text == text.strip().removesuffix(";").strip()
    assert not scanned.pending


def test_parameters_are_not_dollar_quotes():
    assert scan("select $1 + $2;").pieces == sql("select $1 + $2")


def test_meta_commands_run_to_the_end_of_their_line():
    scanned = scan("\\dt\nselect 1;\n\\d t\n")
    assert scanned.pieces == [Piece(META, "\\dt"), Piece(SQL, "select 1"), Piece(META, "\\d t")]


def test_a_meta_command_inside_a_statement_leaves_the_statement_pending():
    scanned = scan("select *\n\\x\nfrom t")
    assert scanned.pieces == [Piece(META, "\\x")]
    assert " ".join(scanned.rest.split()) == "select * from t"


def test_g_and_gx_end_a_statement_as_psql_s_do():
    """\\g sends the statement before it, as ';' does; \\gx also shows it expanded (both were
    invalid commands, and the statement stayed unsent)."""
    scanned = scan("select 1 \\g\nselect 2\n\\gx\nselect (3\n\\g")
    assert scanned.pieces == [Piece(SQL, "select 1"), Piece(SQL, "select 2"), Piece(SQL, "select (3")]
    assert [p.expanded for p in scanned.pieces] == [False, True, False]
    assert not scanned.pending and scanned.state == "-"  # (psql sends the buffer as it is)


def test_backslash_inside_a_string_is_not_a_meta_command():
    assert scan("select '\\dt';").pieces == sql("select '\\dt'")


def test_empty_statements_are_skipped():
    assert scan(";;  ;\n").pieces == []
    assert not scan("   \n").pending


def test_comments_alone_are_no_statement():
    """A comment after the last ; leaves nothing pending (the shell kept it, and the next line
    typed became part of it); a statement that ends in a -- comment says so."""
    for text in ["begin; -- move money", "-- only a comment", "select 1; /* a */ -- b", "/* x */;"]:
        scanned = scan(text)
        assert not scanned.pending and scanned.rest == "", text
    assert scan("select 1; /* c */;").pieces == sql("select 1")
    ends = scan("select 1; select -- the next line goes on")
    assert ends.pending and ends.in_line_comment
    assert not scan("select '--").in_line_comment and not scan("select 2 -- c\n").in_line_comment


def test_escape_strings_may_hide_a_quote_behind_a_backslash():
    assert scan("select E'it\\'s;' as a;").pieces == sql("select E'it\\'s;' as a")
    # in a standard string the backslash is an ordinary character
    assert scan("select 'C:\\';").pieces == sql("select 'C:\\'")
    assert scan("select name'x;").state == "'"


def test_pieces_know_the_line_they_start_on():
    scanned = scan("select 1;\n\n  -- note\n  select\n 2;\\dt\n\nselect")
    assert [p.line for p in scanned.pieces] == [1, 3, 5]
    assert scanned.rest_line == 7
