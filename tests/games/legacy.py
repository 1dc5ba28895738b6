"""Log fixtures recorded on older code (``tests/games/*/data/legacy-logs-*.json.gz``): each holds
record streams and what they ended with back then."""
import gzip
import json

from companion.core.session import fold


def logs(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def replayed(game, log):
    """The state the log replays to, after checking it ends as it did when it was recorded."""
    st = fold(game, log["records"])
    o = st.outcome
    assert o is not None
    assert {"winners": o.winners, "reason": o.reason,
            "scores": {str(k): v for k, v in o.scores.items()}} == log["outcome"]
    return st
