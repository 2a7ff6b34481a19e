import pytest

from rrcheck.checker.check import run_check


@pytest.fixture(scope="session")
def checked():
    """Memoised checks: a scenario explored once per session."""
    cache = {}

    def get(protocol, scenario, mutant=None, properties=None, out=None, reduce=True):
        key = (protocol, scenario, mutant, tuple(properties or ()), reduce, out is not None)
        if key not in cache:
            cache[key] = run_check(protocol, scenario, mutant, properties, out, reduce=reduce)
        return cache[key]
    return get
