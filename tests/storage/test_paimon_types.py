"""The column types beyond the first eight as published Paimon tables: their Paimon type names,
and pypaimon 2.1.0 reading back the values txlake holds (inline rows and Parquet files alike)."""

import datetime
import json
import os
import uuid

import txlake
from tests.paimon_env import read_with_pypaimon

UTC = datetime.timezone.utc


def publish(path: str, create: str, *inserts) -> dict:
    """Create a table, insert into it (each statement with its parameters), publish, and read
    the newest Paimon snapshot with pypaimon: (its fields, its rows)."""
    conn = txlake.connect(path, autocommit=True, publish="sync")
    conn.execute("SET TIME ZONE 'Asia/Tokyo'")
    conn.execute(create)
    for sql, params in inserts:
        conn.execute(sql, params)
    conn.close()
    read = read_with_pypaimon(os.path.join(path, "default.db", "t"))
    return {f["name"]: f["type"] for f in read["fields"]}, read["snapshots"][max(read["snapshots"], key=int)]["rows"]


def column_types(path: str) -> dict:
    """The txlake types the newest Paimon schema of table t names in its options."""
    schema_dir = os.path.join(path, "default.db", "t", "schema")
    newest = max(os.listdir(schema_dir), key=lambda n: int(n.split("-")[1]))
    with open(os.path.join(schema_dir, newest)) as f:
        return json.loads(json.load(f)["options"]["txlake.column-types"])


def test_timestamptz_is_published_as_timestamp_with_local_time_zone(tmp_path):
    at = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    fields, rows = publish(str(tmp_path / "wh"), "CREATE TABLE t (id INT, at TIMESTAMPTZ)",
                           ("INSERT INTO t VALUES (1, ?)", (at,)),  # inline
                           ("INSERT INTO t SELECT i, TIMESTAMPTZ '2024-01-02 12:04:05.123456+09' "
                            "FROM range(2, 2000) r(i)", ()))  # a Parquet file
    assert fields["at"] == "TIMESTAMP(6) WITH LOCAL TIME ZONE"
    assert {tuple(r) for r in rows} == {(i, at.isoformat()) for i in range(1, 2000)}


def test_smallint_and_real_are_published_as_paimon_s_smallint_and_float(tmp_path):
    fields, rows = publish(str(tmp_path / "wh"), "CREATE TABLE t (id INT, s SMALLINT, r REAL)",
                           ("INSERT INTO t VALUES (1, -32768, 0.5)", ()),
                           ("INSERT INTO t SELECT i, 32767, 0.25 FROM range(2, 2000) r(i)", ()))
    assert (fields["s"], fields["r"]) == ("SMALLINT", "FLOAT")
    assert sorted(map(tuple, rows))[:2] == [(1, -32768, 0.5), (2, 32767, 0.25)] and len(rows) == 1999


def test_bytea_is_published_as_paimon_s_bytes(tmp_path):
    fields, rows = publish(str(tmp_path / "wh"), "CREATE TABLE t (id INT, v BYTEA)",
                           ("INSERT INTO t VALUES (1, '\\x00ff'), (2, NULL)", ()),
                           ("INSERT INTO t SELECT i, '\\x6162'::bytea FROM range(3, 2000) r(i)", ()))
    assert fields["v"] == "BYTES"
    assert sorted(map(tuple, rows))[:3] == [(1, "\\x00ff"), (2, None), (3, "\\x6162")] and len(rows) == 1999


def test_time_is_published_as_paimon_s_time(tmp_path):
    """TIME(6); pypaimon 2.1.0 reads any TIME as Arrow time32('ms'): to the millisecond."""
    fields, rows = publish(str(tmp_path / "wh"), "CREATE TABLE t (id INT, at TIME)",
                           ("INSERT INTO t VALUES (1, '01:02:03.456789'), (2, NULL)", ()),
                           ("INSERT INTO t SELECT i, TIME '23:59:59' FROM range(3, 2000) r(i)", ()))
    assert fields["at"] == "TIME(6)"
    assert sorted(map(tuple, rows))[:3] == [(1, "01:02:03.456000"), (2, None), (3, "23:59:59")] and len(rows) == 1999


def test_arrays_are_published_as_paimon_s_array_of_their_element_type(tmp_path):
    """Paimon's ARRAY<T> (in the schema file the JSON object {"type": "ARRAY", "element": T},
    the element without a field id of its own), read back by pypaimon as lists."""
    fields, rows = publish(str(tmp_path / "wh"),
                           "CREATE TABLE t (id INT, a INT[], b VARCHAR(3)[] NOT NULL, c DECIMAL(10,2)[], d TEXT[])",
                           ("""INSERT INTO t VALUES (1, '{1,NULL,3}', '{abc,"a b"}', '{1.5}', '{"x,y",NULL,""}'), """
                            "(2, NULL, '{}', NULL, ?)", (["z"],)),  # inline
                           ("INSERT INTO t SELECT i, ARRAY[i, i + 1], ARRAY['x'], ARRAY[0.25], NULL "
                            "FROM range(3, 2000) r(i)", ()))  # a Parquet file
    assert fields == {"id": "INT", "a": "ARRAY<INT>", "b": "ARRAY<VARCHAR(3)> NOT NULL",
                      "c": "ARRAY<DECIMAL(10, 2)>", "d": "ARRAY<STRING>"}
    assert sorted(map(tuple, rows))[:3] == [(1, [1, None, 3], ["abc", "a b"], ["1.50"], ["x,y", None, ""]),
                                            (2, None, [], None, ["z"]), (3, [3, 4], ["x"], ["0.25"], None)]
    assert len(rows) == 1999


def test_uuid_is_published_as_its_canonical_text_with_its_txlake_type_in_the_options(tmp_path):
    """Paimon has no uuid type: a STRING of the canonical lower-case text, which pypaimon (and any
    Paimon reader) reads as text; the schema's options keep txlake's type."""
    path = str(tmp_path / "wh")
    fields, rows = publish(path, "CREATE TABLE t (id INT, u UUID)",
                           ("INSERT INTO t VALUES (1, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'), (2, NULL)", ()),
                           ("INSERT INTO t SELECT i, ? FROM range(3, 2000) r(i)",
                            (uuid.UUID("b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),)))
    assert fields["u"] == "STRING"
    assert sorted(map(tuple, rows))[:3] == [(1, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), (2, None),
                                            (3, "b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")] and len(rows) == 1999
    assert column_types(path) == {"u": "UUID"}


def test_json_and_jsonb_are_published_as_their_text(tmp_path):
    """jsonb as its normalised text, json as given: STRINGs to pypaimon; the options keep the types."""
    path = str(tmp_path / "wh")
    fields, rows = publish(path, "CREATE TABLE t (id INT, j JSONB, r JSON)",
                           ("""INSERT INTO t VALUES (1, '{"b":1,"a":[1, 2]}', '{"b":1,  "a":2}')""", ()),
                           ("INSERT INTO t SELECT i, jsonb_build_object('n', i), NULL FROM range(2, 2000) r(i)", ()))
    assert (fields["j"], fields["r"]) == ("STRING", "STRING")
    assert sorted(map(tuple, rows))[:2] == [(1, '{"a": [1, 2], "b": 1}', '{"b":1,  "a":2}'), (2, '{"n": 2}', None)]
    assert column_types(path) == {"j": "JSONB", "r": "JSON"}


def test_char_is_published_as_paimon_s_char_its_values_without_their_padding(tmp_path):
    """A CHAR(n) is Paimon's CHAR(n); its values are stored as txlake holds them, without the
    trailing spaces (docs/storage.md: a reader of CHAR(n), as Spark's, pads them to n)."""
    fields, rows = publish(str(tmp_path / "wh"), "CREATE TABLE t (id INT, c CHAR(3), k CHARACTER NOT NULL)",
                           ("INSERT INTO t VALUES (1, 'a  ', 'x'), (2, NULL, 'y ')", ()),
                           ("INSERT INTO t SELECT i, 'ab', 'z' FROM range(3, 2000) r(i)", ()))
    assert (fields["c"], fields["k"]) == ("CHAR(3)", "CHAR(1) NOT NULL")
    assert sorted(map(tuple, rows))[:3] == [(1, "a", "x"), (2, None, "y"), (3, "ab", "z")] and len(rows) == 1999
