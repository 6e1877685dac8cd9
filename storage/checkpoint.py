"""Catalog checkpoints: the committed state written down now and then, so that opening a
warehouse replays only the log after it.

The log is the only commit point, and a catalog version is a pure function of its prefix
(``CatalogVersion.apply``), so a checkpoint is a cache of that function's value at one CSN:
``_txlog/checkpoint-<csn>.json`` holds the ``CatalogVersion`` after entry ``csn`` - every table's
schema, files (inline rows included, as the log carries them), deletion vectors and compaction
lineage - plus the labels committed within the label retention (exactly-once holds within it,
and the entries that carried them are not replayed any more). Opening loads the newest
checkpoint and replays the entries after it; without one, or with one it cannot read, it replays
the whole log, as before checkpoints existed. Nothing depends on a checkpoint being there: it can
be deleted at any time.

- Written atomically (a temporary file, fsync'd, renamed) by any process's background
  maintenance, from its newest committed version, once enough entries followed the last one:
  ``CHECKPOINT_ENTRIES``, or a tenth of the files and lineage entries the catalog holds if that
  is more (writing one costs in the size of the catalog, replaying in the number of entries).
  Two processes writing the same CSN write the same catalog.
- The newest ``KEEP`` are kept; time travel (``Warehouse.catalog_at``) starts from the newest
  one at or before the CSN it wants.
- A checkpoint newer than the log's last entry (a log restored from an older copy) is ignored,
  and so is one whose entry ``csn`` is not the log's: it names the entry it was written after
  (commit user and id). A process may read another's line before that one's flush, and write
  a checkpoint of it; if the line is then lost (a power failure), the next entry of that number
  is another - and the checkpoint would have replaced it with the lost one.
"""

from __future__ import annotations

import logging
import os

from txlake.storage.txlog import dump_json, load_json
from txlake.storage.version import CatalogVersion

log = logging.getLogger(__name__)

PREFIX, SUFFIX = "checkpoint-", ".json"
FORMAT = 2  # (2: lineage entries carry their compaction's CSN)
CHECKPOINT_ENTRIES = 1000  # entries after the newest checkpoint before another is written
KEEP = 3


def _name(csn: int) -> str:
    return f"{PREFIX}{csn:012d}{SUFFIX}"


def checkpoint_csns(warehouse) -> list[int]:
    """The CSNs of the checkpoints on disk, oldest first."""
    names = warehouse.fs.listdir(warehouse.txlog.dir)
    return sorted(int(n[len(PREFIX):-len(SUFFIX)]) for n in names
                  if n.startswith(PREFIX) and n.endswith(SUFFIX) and n[len(PREFIX):-len(SUFFIX)].isdigit())


def load(warehouse, at_most: int | None = None) -> tuple[CatalogVersion, dict[str, tuple[int, int]]] | None:
    """The newest readable checkpoint (at or before ``at_most``, and not past the log's last
    entry): (catalog version, label -> (CSN, commit time)); None if there is none."""
    newest = warehouse.txlog.newest_csn()
    for csn in reversed(checkpoint_csns(warehouse)):
        if csn > newest or (at_most is not None and csn > at_most):
            continue
        try:
            doc = load_json(warehouse.fs.read_bytes(os.path.join(warehouse.txlog.dir, _name(csn))))
            if doc.get("format") != FORMAT or doc["catalog"]["csn"] != csn:
                raise ValueError(f"not a format {FORMAT} checkpoint of CSN {csn}")
            entry = warehouse.txlog.read(csn) if "entry" in doc else None
            if "entry" in doc and (entry is None or [entry.commit_user, entry.commit_id] != doc["entry"]):
                raise ValueError(f"written after another entry {csn} than the log's")
            labels = {label: (found[0], found[1], bool(found[2:3] and found[2]))  # (older ones: no abort flag)
                      for label, found in doc["labels"].items()}
            return CatalogVersion.from_json(doc["catalog"]), labels
        except (OSError, ValueError, KeyError, TypeError) as e:  # an older one, or the whole log, will do
            log.warning("ignoring checkpoint %s: %s", _name(csn), e)
    return None


def due(latest: CatalogVersion, last_csn: int) -> bool:
    """Is a checkpoint of ``latest`` worth writing, the newest one being at ``last_csn``?"""
    size = sum(len(t.files) + len(t.moved) for t in latest.tables.values())
    return latest.csn - last_csn >= max(CHECKPOINT_ENTRIES, size // 10)


def write(warehouse, version: CatalogVersion, labels: dict[str, tuple[int, int, bool]]) -> None:
    """Write ``version`` (committed, with the labels of entries up to it) as a checkpoint and
    drop all but the newest ``KEEP``."""
    entry = warehouse.txlog.read(version.csn)
    doc = {"format": FORMAT, "catalog": version.to_json(),
           "entry": [entry.commit_user, entry.commit_id] if entry is not None else None,
           "labels": {label: [csn, t, aborted] for label, (csn, t, aborted) in labels.items() if csn <= version.csn}}
    warehouse.fs.write_atomic(os.path.join(warehouse.txlog.dir, _name(version.csn)), dump_json(doc))
    for csn in checkpoint_csns(warehouse)[:-KEEP]:
        warehouse.fs.remove(os.path.join(warehouse.txlog.dir, _name(csn)))
