"""The visited set of a fingerprint search: a flat table of unsigned 64-bit
fingerprints (checker/explicit/fpset.py) is a set, grows by half, and keeps
its load at most MAX_LOAD."""
import numpy as np
from hypothesis import given, settings, strategies as st

from rrcheck.checker.explicit.fpset import MAX_LOAD, ZERO, FPSet, fingerprints

HASHES = st.lists(st.integers(-2**63, 2**63 - 1), max_size=300)


@settings(max_examples=60, deadline=None)
@given(st.lists(HASHES, max_size=6), HASHES)
def test_fpset_add_and_contains_are_a_python_set(batches, probe):
    table, ref = FPSet(capacity=4), set()
    for b in batches:
        fps = fingerprints(b)
        new = table.add(fps)
        want = np.zeros(len(b), dtype=bool)
        for k, f in enumerate(fps.tolist()):
            if f not in ref:
                want[k] = True
                ref.add(f)
        assert (new == want).all()
        assert len(table) == len(ref) <= MAX_LOAD * table.table.size
    fps = fingerprints(probe)
    assert table.contains(fps).tolist() == [f in ref for f in fps.tolist()]
    assert sorted(table.table[table.table != 0].tolist()) == sorted(ref)


def test_fpset_grows_by_half_past_its_load():
    table = FPSet(capacity=8)
    table.add(fingerprints(range(1, 8)))      # 7 > 0.75 * 8
    assert table.table.size == 13 and table.nbytes == 104 and len(table) == 7
    assert table.contains(fingerprints(range(1, 8))).all() and not table.contains(fingerprints([8])).any()


def test_fpset_once_grown_keeps_at_most_16_bytes_a_fingerprint():
    """Issue 39's bound: growing by half at load 0.75 keeps the load above 0.5."""
    table, start = FPSet(), FPSet().table.size
    for lo in range(1, 200_000, 997):
        table.add(fingerprints(range(lo, lo + 997)))
        if table.table.size > start:
            assert table.nbytes <= 16 * len(table), (len(table), table.table.size)
    assert table.table.size > start


def test_fpset_a_zero_hash_is_a_fingerprint_not_an_empty_slot():
    table = FPSet(capacity=4)
    assert fingerprints([0]).tolist() == [ZERO]
    assert table.add(fingerprints([0])).tolist() == [True]
    assert table.contains(fingerprints([0])).tolist() == [True]
    assert table.add(fingerprints([0, 0])).tolist() == [False, False]
