"""``TableVersion.with_files`` and the commit's ``TableDelta``: a point statement's change costs
the size of the change, and the version it makes is the one a rebuild from its files makes."""

from pyroaring import FrozenBitMap

from txlake.storage.commit import TableDelta
from txlake.storage.schema import Column, TableSchema, make_type
from txlake.storage.version import DataFile, TableVersion

SCHEMA = TableSchema(0, (Column(0, "id", make_type("BIGINT")), Column(1, "v", make_type("VARCHAR"))), ("id",), 1)


def one_row(file_id: int, key: int) -> DataFile:
    return DataFile(file_id, f"p{file_id}", 1, 0, 10, key_bounds=((key, key),))


def committed(n: int = 8) -> TableVersion:
    """A table of one 100-row file with two rows deleted and ``n`` one-row files after it."""
    files = (DataFile(1, "p1", 100, 0, 100),) + tuple(one_row(i, 1000 + i) for i in range(2, n + 2))
    return TableVersion("tid", "default", "t", SCHEMA, files, {1: FrozenBitMap([3, 4])}, n + 2)


def test_an_insert_shares_the_deletion_vectors_and_appends_its_file():
    """An INSERT deletes nothing: its version keeps the parent's deletion vectors (versions are
    immutable, so one dict serves both) instead of copying them, and its file comes last."""
    base = committed()
    mine = DataFile(-1, None, 1, 0, 0, key_bounds=((5, 5),))
    work = base.with_files(added=(mine,))
    assert work.deletes is base.deletes
    assert work.files == base.files + (mine,)
    assert work.file(-1) is mine and base.file(-1) is None


def test_a_point_update_of_a_one_row_file_cuts_it_out_in_place():
    """The row of a one-row file in the middle of the version updated: that file leaves (every
    row deleted), the others keep their order, the new one comes last; the deletion vectors
    are the parent's plus nothing (a file that left has none), the parent is unchanged."""
    base = committed()
    mine = one_row(-1, 1005)
    work = base.with_files(added=(mine,), deleted={5: FrozenBitMap([0])})
    assert [f.file_id for f in work.files] == [1, 2, 3, 4, 6, 7, 8, 9, -1]
    assert work.deletes == {1: FrozenBitMap([3, 4])} and work.deletes is not base.deletes
    assert work.file(5) is None and base.file(5) is not None
    assert [f.file_id for f in base.files] == list(range(1, 10))
    rebuilt = TableVersion("tid", "default", "t", SCHEMA, work.files, work.deletes, work.next_file_id)
    assert work.one_row_files()[0] == rebuilt.one_row_files()[0]
    # the commit finds the file that left among the base's, and the row deleted in the big one
    work = work.with_files(deleted={1: FrozenBitMap([7])})
    assert TableDelta("tid", base, work).new_deletes() == {5: FrozenBitMap([0]), 1: FrozenBitMap([7])}
