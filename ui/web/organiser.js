/* Table Companion: the club organiser's page (GET /organiser, behind the organiser's login).
 *
 * Shows the join address with its QR (the public club page never does), the tables asking to
 * join with Allow and Refuse, and the tables in the club with Remove. The browser sends the
 * organiser's login it was asked for when this page loaded; actions are JSON POSTs, which a
 * page of another site cannot make without asking first.
 */
"use strict";
(function () {
  const $ = (sel) => document.querySelector(sel);
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k === "on") e.addEventListener("click", v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k) e.append(k);
    return e;
  }
  function showError(text) {
    const box = $("#org-error");
    box.textContent = text || "";
    box.hidden = !text;
  }
  async function act(action, table) {
    try {
      const r = await fetch("/organiser/" + action, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ table: table }), credentials: "same-origin",
      });
      const got = await r.json();
      if (!r.ok) return showError((got.error && got.error.message) || "That did not work.");
      showError(null);
      render(got);
    } catch (e) { showError("The club is not answering; try again in a moment."); }
  }
  function render(st) {
    $("#club-name").textContent = st.name || "The club";
    document.title = (st.name || "The club") + ": the organiser";
    $("#club-join-url").textContent = st.join.url;
    $("#club-join-qr").src = st.join.qr;
    $("#club-join").hidden = false;
    const asking = st.asking.map((r) => el("li", { "data-table": r.table },
      el("b", { text: r.table }),
      el("span", { text: (r.asked_as !== r.table ? " (asked as " + r.asked_as + ")" : "") +
        " from " + r.address + " · " + new Date(r.since * 1000).toLocaleTimeString() }),
      el("button", { class: "primary", text: "Allow", on: () => act("allow", r.table) }),
      el("button", { text: "Refuse", on: () => act("refuse", r.table) })));
    $("#org-asking").replaceChildren(...asking);
    $("#org-asking-none").hidden = asking.length > 0;
    const tables = st.tables.map((t) => el("li", { "data-table": t }, el("b", { text: t }),
      el("button", { text: "Remove", on: () => {
        if (window.confirm("Take table " + t + " out of the club? It stops sending; what it sent stays.")) act("remove", t);
      } })));
    $("#org-tables").replaceChildren(...tables);
    $("#org-tables-none").hidden = tables.length > 0;
  }
  async function refresh() {
    try {
      const r = await fetch("/organiser/state", { cache: "no-store", credentials: "same-origin" });
      if (r.ok) { render(await r.json()); showError(null); }
      else showError("Log in again as the organiser (reload the page).");
    } catch (e) { showError("The club is not answering; trying again."); }
  }
  refresh();
  setInterval(refresh, 3000);
})();
