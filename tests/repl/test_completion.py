"""Tab completion from the catalog: keywords, tables, columns, aliases, meta-commands."""

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from txlake.repl.completion import CatalogCache, SQLCompleter


@pytest.fixture
def completer(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE accounts (id INT PRIMARY KEY, owner TEXT, balance DOUBLE)")
    conn.execute("CREATE TABLE audit (at TIMESTAMP, note TEXT)")
    conn.execute("CREATE TABLE other.remote (rid INT)")
    catalog = CatalogCache(conn.session)
    completer = SQLCompleter(catalog)
    completer.conn = conn
    return completer


def complete(completer, text: str) -> list[str]:
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_keywords_follow_the_case_typed(completer):
    assert "SELECT" in complete(completer, "SEL")
    assert "select" in complete(completer, "sel")
    assert "TRANSACTION" in complete(completer, "BEGIN TRANS")


def test_the_column_types_complete(completer):
    assert {"TIMESTAMP", "TIMESTAMPTZ"} <= set(complete(completer, "CREATE TABLE t (a TIMESTAM"))
    for name in ("SMALLINT", "REAL", "BYTEA", "TIME"):
        assert name in complete(completer, f"CREATE TABLE t (a {name[:3]}"), name


def test_only_tables_after_from_and_friends(completer):
    assert complete(completer, "SELECT * FROM a") == ["accounts", "audit"]
    assert complete(completer, "insert into acc") == ["accounts"]
    assert complete(completer, "UPDATE au") == ["audit"]
    assert "other.remote" in complete(completer, "select * from ")


def test_columns_of_the_tables_the_statement_names(completer):
    found = complete(completer, "SELECT * FROM accounts WHERE bal")
    assert found[0] == "balance"
    assert "note" not in complete(completer, "SELECT * FROM accounts WHERE ")
    assert "owner" not in complete(completer, "SELECT o")  # no table named yet
    # the FROM clause after the cursor counts
    text = "SELECT o FROM accounts"
    found = [c.text for c in completer.get_completions(Document(text, cursor_position=len("SELECT o")),
                                                       CompleteEvent(completion_requested=True))]
    assert found[0] == "owner"


def test_columns_after_a_table_name_or_alias_and_dot(completer):
    assert complete(completer, "SELECT a.") == []  # 'a' is no table and no alias
    text = "SELECT x. FROM accounts AS x"
    found = [c.text for c in completer.get_completions(Document(text, cursor_position=len("SELECT x.")),
                                                       CompleteEvent(completion_requested=True))]
    assert found == ["id", "owner", "balance"]
    assert complete(completer, "SELECT * FROM accounts x WHERE x.ow") == ["owner"]
    assert complete(completer, "SELECT * FROM audit WHERE audit.n") == ["note"]
    assert complete(completer, "SELECT * FROM other.remote r WHERE r.") == ["rid"]


def test_catalog_is_cached_until_invalidated(completer):
    assert "newer" not in complete(completer, "select * from n")
    completer.conn.execute("CREATE TABLE newer (x INT)")
    assert "newer" not in complete(completer, "select * from n")  # no warehouse read per key press
    completer.catalog.invalidate()
    assert complete(completer, "select * from n") == ["newer"]


def test_meta_commands_and_their_arguments(completer, tmp_path):
    assert complete(completer, "\\sn") == ["\\snapshots"]
    assert complete(completer, "\\d acc") == ["accounts"]
    assert complete(completer, "\\snapshots au") == ["audit"]
    assert complete(completer, "\\isolation ser") == ["serializable"]
    assert complete(completer, "\\x a") == ["auto"]
    (tmp_path / "setup.sql").write_text("")
    assert complete(completer, f"\\i {tmp_path}/set") == ["up.sql"]


def test_copy_completes_its_keywords_tables_and_meta_command(completer):
    assert "COPY" in complete(completer, "COP")
    assert complete(completer, "COPY acc") == ["accounts"]
    assert "HEADER" in complete(completer, "COPY accounts FROM 'a.csv' WITH (FORMAT csv, HEA")
    assert "\\copy" in complete(completer, "\\co")
