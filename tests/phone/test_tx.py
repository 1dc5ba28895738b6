"""The phone page's tx (docs/protocol.md 5.1, issue 37): a 128-bit prefix drawn per page load,
and when the table says ``tx_reused`` (another command already used that tx, e.g. a page that
drew an earlier page's prefix), the page draws a new prefix and sends the move again, once: the
move is taken, the earlier command's answer is never shown as this one's."""
import json
import re

from companion.core.session import command_digest

from .conftest import join_all, start_table, wait_until
from .test_relock import W, bid_order, lock


def test_the_page_sends_again_under_a_new_prefix_when_its_tx_was_used(servers, phones,
                                                                       tmp_path):
    srv = start_table(tmp_path, "gp-tx", "great-powers", 3, seed=5)
    servers(srv)
    ann, bo, cy = join_all(phones, srv, ["Ann", "Bo", "Cy"], shots=False)
    hub = srv.hub
    page = ann.page
    page.wait_for_selector("[data-form=submit_bids]")
    prefix = page.evaluate("() => window.tc.txPrefix")
    assert re.fullmatch(r"[0-9a-f]{32}", prefix), prefix
    other = phones("Di").page                      # another page load draws another prefix
    other.goto(hub.join_url)
    other.wait_for_function("() => window.tc && window.tc.txPrefix")
    assert re.fullmatch(r"[0-9a-f]{32}", other.evaluate("() => window.tc.txPrefix")) and \
        other.evaluate("() => window.tc.txPrefix") != prefix

    # an earlier command of Ann's seat used "<prefix>-1" (a refused one, as an earlier page of
    # hers might have sent it), sent from this page's own connection
    tx = f"{prefix}-1"
    page.evaluate("(tx) => window.tc.client.publish(window.tc.creds.topics.cmd, JSON.stringify("
                  "{v: 1, tx: tx, move: 'submit_bids', args: {traits: ['navy']}}), {qos: 1})",
                  tx)
    sid = hub.session.id
    assert wait_until(lambda: hub.log.find_reply(sid, 0, tx) is not None)
    # this page counts from 1 again under the same prefix (a page load that drew it again)
    page.evaluate("() => { window.tc.txN = 0; }")
    traits = bid_order(hub, 0)[0]
    lock(ann, traits)                      # refused as tx_reused, sent again, taken

    assert hub.session.state.windows[W].entries[0].choice == traits
    fresh = page.evaluate("() => window.tc.txPrefix")
    assert re.fullmatch(r"[0-9a-f]{32}", fresh) and fresh != prefix
    [rec] = [r for r in hub.session.records if r.get("seat") == 0 and r.get("tx")]
    assert rec["tx"] == f"{fresh}-2" and rec["args"] == {"traits": traits}
    # the first command's refusal is all the store keeps under that tx
    reply, digest = hub.log.find_reply(sid, 0, tx)
    assert json.loads(reply)["error"]["code"] == "illegal_move"
    assert digest == command_digest("submit_bids", {"traits": ["navy"]})
    assert hub.log.find_reply(sid, 0, rec["tx"]) is None
    assert page.evaluate("() => window.tc.answered.ok") is True
    assert srv.bridge.stats["tx_reused"] == 1
