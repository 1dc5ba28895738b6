/* Table Companion phone page (protocol v1, docs/protocol.md): the entry the page loads
 * (`<script type="module" src="app.js">`, after the vendored libraries as classic scripts). It
 * starts the page: the join form, a handover code (`/?seat=<code>`), the stored seat or the join
 * screen, and what runs on its own (the timer face, the wake lock, reconnecting when the phone
 * wakes or comes back online). The page itself is in js/, one module a concern, imported in one
 * direction (each module's opening comment says what it owns):
 *
 *   util.js     small pieces: el, pretty, toast, post, localStorage
 *   recipe.js   the commitment recipe (canonical JSON, SHA-256)
 *   choices.js  a legal move's argument specs: what to ask, what is missing, in words
 *   state.js    the page's state `S` (window.tc), drafts, which document is newest
 *   book.js     the commitments seen at lock-in, and checking a reveal against them
 *   clock.js    the table's clock, the timer in the bar, the Time! moment
 *   words.js    names, scores, standings and the story, in words
 *   reveal.js   the reveal panel
 *   me.js       the seat's own panel, renaming
 *   pickers.js  a picker per argument kind
 *   widgets.js  some moves' own words and pickers
 *   act.js      the moves panel, sending a move and the table's answer
 *   awake.js    keeping the screen awake while a timer runs
 *   render.js   drawing every panel, the bar, the players, the feed
 *   link.js     joining over HTTP, then MQTT: every message from the table
 *
 * Every move is a tap on something the hub says is legal: the view's `legal` list (protocol
 * section 4.7) gives each move and what each of its arguments may be, and the page draws one
 * picker per argument kind. Nobody types an id, a number or JSON; a raw form exists only for
 * developers (`?dev=1`). Sealed choices show their commitment fingerprint at lock-in and every
 * reveal is checked against the commitments announced before it (protocol section 4.4). For
 * test drivers: move buttons carry `data-move`, options `data-arg` + `data-value` (canonical
 * JSON: sorted keys, no spaces), steppers `data-step`, the send button is `#send`
 * (`data-send`), panels `data-panel` (ui/web/README.md). */

import { $, load } from "./js/util.js";
import { PARAMS, S, STORE } from "./js/state.js";
import { renderTimer } from "./js/clock.js";
import { updateWakeLock } from "./js/awake.js";
import { claimHandover, join, reclaim, showGame, showJoin } from "./js/link.js";

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") return;
  if (S.creds && (!S.client || !S.connected)) {
    if (S.client) S.client.reconnect(); else reclaim();
  }
  updateWakeLock();
});
window.addEventListener("online", () => { if (S.creds && !S.connected && S.client) S.client.reconnect(); });
setInterval(renderTimer, 250);
setInterval(updateWakeLock, 5000);     // the timer may have run out since the last state

$("#join-form").addEventListener("submit", (e) => {
  e.preventDefault();
  join($("#join-name").value.trim(), $("#join-room").value.trim().toUpperCase());
});
const handover = PARAMS.get("seat");
const stored = load(STORE, null);
if (handover) claimHandover(handover.trim());
else if (stored && stored.token) { showGame(); reclaim(); } else showJoin();
