"""Constraints in a table's schema: PostgreSQL's default names, and the schema's JSON form
(the log and checkpoints hold it) keeping every one, and omitting them when there are none."""

from txlake.storage.schema import (CheckConstraint, Column, ForeignKey, TableSchema, UniqueConstraint,
                                   constraint_name, make_type)


def test_default_names_are_postgresql_s():
    assert constraint_name("t", ("a",), "check", set()) == "t_a_check"
    assert constraint_name("t", (), "check", {"t_check"}) == "t_check1"
    assert constraint_name("t", ("a", "b"), "key", {"t_a_b_key", "t_a_b_key1"}) == "t_a_b_key2"
    long = constraint_name("x" * 60, ("y" * 30,), "fkey", set())
    assert len(long.encode()) == 63 and long.endswith("_fkey") and long.startswith("x" * 20)
    assert len(constraint_name("é" * 40, ("a",), "key", set()).encode()) <= 63


def test_schema_json_keeps_constraints():
    columns = (Column(0, "a", make_type("INT")), Column(1, "b", make_type("INT")))
    plain = TableSchema(0, columns, ("a",), 1)
    assert set(plain.to_json()) == {"id", "columns", "primary_key", "highest_field_id"}
    schema = TableSchema(3, columns, ("a",), 1, checks=(CheckConstraint("t_b_check", "b > 0"),),
                         uniques=(UniqueConstraint("t_b_key", ("b",), nulls_not_distinct=True),),
                         foreign_keys=(ForeignKey("t_b_fkey", ("b",), "abc", "default", ("id",), "CASCADE"),
                                       ForeignKey("t_a_b_fkey", ("a", "b"), "abc", "default", ("x", "y"), "SET NULL",
                                                  delete_set_columns=("b",))))
    again = TableSchema.from_json(schema.to_json())
    assert again == schema
    assert again.constraint_names("t") == {"t_pkey", "t_b_check", "t_b_key", "t_b_fkey", "t_a_b_fkey"}
