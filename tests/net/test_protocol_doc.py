"""docs/protocol.md is a spec people write clients from: every example in it is checked here
against the code (JSON parses, commands parse, the reveal verifies, the Python and JavaScript
recipes compute the core's commitments, the ACL and topics are the generated ones, and the
state/view examples have every field the core's views have)."""
import json
import pathlib
import re
import subprocess

import pytest

from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.sealed import commitment as core_commitment
from companion.core.session import Session
from companion.net import protocol, topics
from companion.net.topics import TableTopics
from tests.core.toy import Toy

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", TEXT, re.S)


def blocks(lang):
    return [body for tag, body in BLOCKS if tag == lang]


JSON = [json.loads(b) for b in blocks("json")]


def examples(pred):
    return [j for j in JSON if pred(j)]


def test_every_json_example_parses_and_speaks_v1():
    assert len(JSON) >= 20
    for j in JSON:
        assert j.get("v") == 1, j


def test_commands_in_the_doc_parse():
    cmds = examples(lambda j: "move" in j)
    assert len(cmds) >= 2
    for c in cmds:
        parsed = protocol.parse_command(json.dumps(c).encode())
        assert parsed.tx == c["tx"]


def test_replies_in_the_doc_have_the_reply_shape():
    replies = examples(lambda j: "ok" in j)
    assert {r["ok"] for r in replies} == {True, False}
    for r in replies:
        assert set(r) <= {"v", "tx", "ok", "result", "error"}
        if not r["ok"]:
            assert r["error"]["code"] in protocol.ERROR_CODES and r["error"]["message"]


def test_error_code_table_lists_exactly_the_codes():
    section = TEXT.split("### 5.3 Error codes", 1)[1].split("##", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert documented == set(protocol.ERROR_CODES)


def test_limits_in_the_doc_are_the_codes():
    assert "**64 KiB** (65,536 bytes)" in TEXT and protocol.MAX_PAYLOAD_BYTES == 65536
    assert "**4 KiB** per command" in TEXT and protocol.MAX_COMMAND_BYTES == 4096
    assert "over 4,096 bytes" in TEXT


def test_the_acl_and_subscriptions_in_the_doc_are_generated_ones():
    acl = [x for x in topics.mosquitto_acl().splitlines() if x and not x.startswith("#")]
    assert any(b.strip().splitlines() == acl for b in blocks(""))
    t = TableTopics("kitchen")
    subs = [topic for topic, _ in t.seat_subscriptions("s1-3fa9c2")]
    assert any(b.strip().splitlines() == subs for b in blocks(""))
    joined = examples(lambda j: "topics" in j)[0]
    assert joined["topics"] == {
        "state": t.state, "events": t.events, "hub_status": t.hub_status,
        "presence": t.presence("s1-3fa9c2"), "all_presence": t.all_presence,
        "view": t.view("s1-3fa9c2"), "cmd": t.cmd("s1-3fa9c2"), "reply": t.reply("s1-3fa9c2")}
    assert joined["base"] == t.base and joined["seat_id"] == joined["username"]


def _reveal_and_locks():
    revealed = examples(lambda j: j.get("type") == "ChoicesRevealed")
    locks = examples(lambda j: j.get("type") == "ChoiceLocked")
    assert len(revealed) == 1 and len(locks) == 3
    return revealed[0], {e["seat"]: e["commitment"] for e in locks}


def test_the_reveal_example_verifies_against_the_lock_in_examples():
    revealed, locked = _reveal_and_locks()
    assert protocol.verify_reveal(revealed, locked) == {0: True, 1: True, 2: True}


def test_the_python_recipe_is_the_cores():
    ns = {}
    exec(blocks("python")[0], ns)
    revealed, locked = _reveal_and_locks()
    for key, item in revealed["choices"].items():
        got = ns["commitment"](revealed["window"], int(key), item["choice"], item["salt"])
        assert got == locked[int(key)]
    tricky = {"z": [1, "é", None, True], "a": {"b": "日本", "a": -3}}
    assert ns["commitment"]("w-2", 5, tricky, "0f" * 16) == \
        core_commitment("w-2", 5, tricky, "0f" * 16)


def test_the_javascript_recipe_is_the_cores(tmp_path):
    revealed, locked = _reveal_and_locks()
    cases = [[revealed["window"], int(k), v["choice"], v["salt"]]
             for k, v in revealed["choices"].items()]
    cases.append(["w-2", 5, {"z": [1, "é", None, True], "a": {"b": "日本", "a": -3},
                             "q": "a\"b\\c\n"}, "0f" * 16])
    script = tmp_path / "verify.mjs"
    script.write_text(blocks("js")[0] + """
const cases = JSON.parse(process.argv[2]);
const out = [];
for (const [w, seat, choice, salt] of cases) out.push(await commitment(w, seat, choice, salt));
console.log(JSON.stringify(out));
""")
    r = subprocess.run(["node", str(script), json.dumps(cases)], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got == [core_commitment(*c) for c in cases]
    assert got[:3] == [locked[0], locked[1], locked[2]]


@pytest.fixture(scope="module")
def real_views():
    s = Session.start(Toy(), ["Ann", "Bo", "Cy"], MemoryLog(), seed=7, clock=FakeClock())
    s.execute(0, "bid", {"n": 4})
    return s.public_view(), s.seat_view(0)


def test_state_and_view_examples_have_every_field_of_the_cores_views(real_views):
    public, seat = real_views
    hub_fields = {"table", "seat_ids"}
    state_ex = examples(lambda j: "players" in j and "seat" not in j)[0]
    view_ex = examples(lambda j: "players" in j and "seat" in j)[0]
    assert set(state_ex) == set(public) | hub_fields
    assert set(view_ex) == set(seat) | hub_fields
    assert state_ex["windows"][0]["locked"]["0"].keys() == \
        public["windows"][0]["locked"]["0"].keys()
    assert view_ex["windows"][0]["locked"]["0"].keys() == \
        seat["windows"][0]["locked"]["0"].keys()
    # every field of the public state is explained in its table
    section = TEXT.split("### 4.1", 1)[1].split("### 4.2", 1)[0]
    for key in public:
        if key != "v":
            assert f"`{key}`" in section, key


def test_the_legal_moves_example_is_answerable_and_the_toy_sentence_is_true():
    import random

    from companion.core import choices
    [ex] = examples(lambda j: "legal" in j and "players" not in j)
    for m in ex["legal"]:
        assert {"move", "label", "sealed", "args"} <= set(m)
        for spec in m["args"]:
            assert spec["kind"] in choices.KINDS and spec["label"]
        for seed in range(20):                  # whatever a client picks from it is valid
            args = choices.sample(m["args"], random.Random(seed))
            choices.check(m["args"], args)
    s = Session.start(Toy(), ["Ann", "Bo", "Cy"], MemoryLog(), seed=7, clock=FakeClock())
    legal = s.seat_view(1)["legal"]
    section = TEXT.split("### 4.7", 1)[1].split("## 5.", 1)[0]
    quoted = re.search(r'`"legal": (\[.*?\])`', section, re.S).group(1)
    assert json.loads(quoted.replace("\n", " ")) == legal


def test_the_moves_reference_is_what_the_code_generates():
    """docs/moves.md is generated from the games; regenerate it when a game changes:
    python -m companion.net.moves_doc > docs/moves.md"""
    from companion.net.moves_doc import render
    committed = (DOC.parent / "moves.md").read_text(encoding="utf-8")
    assert committed == render(), "docs/moves.md is stale: run " \
        "`python -m companion.net.moves_doc > docs/moves.md`"


def test_every_example_command_in_the_doc_names_a_real_move_with_its_real_arguments():
    import inspect

    from companion.games import registry
    moves = {n: m for g in registry().values() for n, m in g.moves.items()}
    for c in examples(lambda j: "move" in j):
        if c["move"] in ("bid",) and set(c.get("args", {})) == {"n"}:
            continue                                  # the toy game of section 7
        m = moves[c["move"]]
        params = list(inspect.signature(m.fn).parameters)[2:]
        assert set(c.get("args", {})) <= set(params), (c, params)


def test_the_tx_advice_is_what_the_clients_draw():
    from companion.net.seat_client import TX_PREFIX_BITS
    assert f"**{TX_PREFIX_BITS} bits**" in TEXT and "`tx_reused`" in TEXT
    util = (DOC.parents[1] / "ui" / "web" / "js" / "util.js").read_text(encoding="utf-8")
    assert f"new Uint8Array({TX_PREFIX_BITS // 8})" in util      # the page's txPrefix()
