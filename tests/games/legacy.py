"""Log fixtures recorded on older code (``tests/games/*/data/legacy-logs-*.json.gz``): each holds
record streams and what they ended with back then."""
import functools
import gzip
import json
import pathlib

from companion.core.session import fold


@functools.cache
def logs(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def beside(test_file, name="legacy-logs-v1.json.gz"):
    """The logs of the fixture in the ``data`` folder next to a test module."""
    return logs(pathlib.Path(test_file).with_name("data") / name)


def replayed(game, log):
    """The state the log replays to, after checking it ends as it did when it was recorded."""
    st = fold(game, log["records"])
    o = st.outcome
    assert o is not None
    assert {"winners": o.winners, "reason": o.reason,
            "scores": {str(k): v for k, v in o.scores.items()}} == log["outcome"]
    return st
