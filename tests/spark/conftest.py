"""Fixtures of the Spark data source's tests: a warehouse path, and an engine connection to it
(publishing off) to set tables up and check what Spark wrote."""

import pytest

import txlake


@pytest.fixture
def wh(tmp_path):
    return str(tmp_path / "wh")


@pytest.fixture
def engine(wh):
    conn = txlake.connect(wh, autocommit=True, publish="off")
    yield conn
    conn.close()
