/* One picker per argument kind of a legal move (protocol section 4.7; ui/web/README.md lists
 * them): big buttons (or the board, for options with row/col), a stepper, an ordered pick, a
 * subset, counts, a flag, a short text. A tap records the answer and asks the moves panel to draw
 * again (`draw.act`); what is legal comes from the spec's options, never from here. One concern,
 * kept whole: the seven kinds share their option buttons, head and hints. */

import { $, clamp, el, pretty, toast } from "./util.js";
import { canonical, same } from "./recipe.js";
import { CLEARED, countsRange, summaryOf, walk } from "./choices.js";
import { draw, S, saveDrafts } from "./state.js";

function setAnswer(answers, name, value) { answers[name] = value; draw.act(true); }
// an ordered pick with pick_labels asks the question of its next pick ("... second?")
function specQuestion(spec, value) {
  const picks = spec.pick_labels || [];
  const n = Array.isArray(value) ? value.length : 0;
  if (spec.kind === "order" && picks.length && n < picks.length) return picks[n];
  return spec.label || pretty(spec.name);
}
export function argHead(spec, extra, value) {
  return el("div", { class: "arg-head" }, el("span", { class: "arg-label", text: specQuestion(spec, value) }),
    spec.optional ? el("span", { class: "muted", text: " (optional)" }) : null, extra || null);
}
// In a long list (more than six options) each option shows the start of its detail (a
// partner's bonus and slots); the chosen one shows all of it.
function shortDetail(d) {
  const parts = d.split(" · ");
  const head = parts.slice(0, 2).join(" · ");
  return head.length > 60 ? head.slice(0, 57).replace(/\s+\S*$/, "") + "…" : head + (parts.length > 2 ? " …" : "");
}
export function optionButton(spec, o, props, kids, compact) {
  const why = typeof o.disabled === "string" ? o.disabled : (o.disabled ? "not now" : null);
  const chosen = props && / chosen/.test(props.class || "");
  const detail = o.detail && compact && !chosen ? shortDetail(o.detail) : o.detail;
  return el("button", Object.assign({ type: "button", class: "choice" + (o.disabled ? " blocked" : ""), disabled: !!o.disabled,
    data: { arg: spec.name, value: canonical(o.value) } }, props),
  el("span", { class: "title", text: o.label }),
  detail ? el("span", { class: "detail", text: detail }) : null,
  why ? el("span", { class: "why", text: why }) : null,
  kids || null);
}
function missingFirst(spec, args) {
  // the earlier questions an option waits for
  const need = new Set();
  for (const o of spec.options || []) for (const k of Object.keys(o.when || {})) if (!(k in args)) need.add(k);
  return [...need];
}
export function picker(v, m, item, answers, w, widget) {
  const { spec, opts, value } = item;
  const box = el("div", { class: "arg arg-" + spec.kind, data: { spec: spec.name, kind: spec.kind } });
  const custom = widget && widget.pickers && widget.pickers[spec.name];
  if (custom) { const x = custom(v, m, item, answers, w); if (x) return x; }
  const grid = (cls) => el("div", { class: "choices" + (cls ? " " + cls : "") + (opts.some((o) => o.detail || (o.label || "").length > 16) ? " one" : "") });
  const emptyHint = () => {
    const need = missingFirst(spec, w.args);
    const specs = m.args || [];
    const names = need.map((n) => { const s = specs.find((x) => x.name === n); return s ? (s.label || pretty(n)).replace(/[?:]\s*$/, "") : pretty(n); });
    return el("p", { class: "hint", text: need.length ? "First choose: " + names.join(", ") + "." : "Nothing to choose from right now." });
  };
  switch (spec.kind) {
    case "one": {
      box.append(argHead(spec));
      if (!opts.length) { box.append(emptyHint()); break; }
      if (opts.every((o) => Number.isInteger(o.row) && Number.isInteger(o.col))) { box.append(boardPicker(spec, opts, value, answers)); break; }
      const g = grid();
      for (const o of opts) {
        const chosen = value !== undefined && same(o.value, value);
        g.append(optionButton(spec, o, { class: "choice" + (chosen ? " chosen" : "") + (o.disabled ? " blocked" : ""), "aria-pressed": chosen ? "true" : "false",
          onclick: () => setAnswer(answers, spec.name, chosen && spec.optional ? CLEARED : o.value) }, null, opts.length > 6));
      }
      box.append(g);
      break;
    }
    case "number": {
      const lo = spec.min, hi = spec.max, step = spec.step || 1;
      box.append(argHead(spec));
      const cur = value;
      const bump = (k) => () => setAnswer(answers, spec.name, cur === undefined ? lo : clamp(cur + k, lo, hi));
      const big = hi - lo >= 10 * step;
      box.append(el("div", { class: "stepper", data: { arg: spec.name, value: cur === undefined ? null : canonical(cur) } },
        big ? el("button", { type: "button", data: { step: String(-5 * step) }, "aria-label": "5 less", disabled: cur === undefined || cur <= lo, onclick: bump(-5 * step) }, "−5") : null,
        el("button", { type: "button", data: { step: String(-step) }, "aria-label": "less", disabled: cur === undefined || cur <= lo, onclick: bump(-step) }, "−"),
        el("output", { class: "value", text: cur === undefined ? "—" : String(cur) }),
        el("button", { type: "button", data: { step: String(step) }, "aria-label": "more", disabled: cur !== undefined && cur >= hi, onclick: bump(step) }, "+"),
        big ? el("button", { type: "button", data: { step: String(5 * step) }, "aria-label": "5 more", disabled: cur !== undefined && cur >= hi, onclick: bump(5 * step) }, "+5") : null),
      el("div", { class: "hint", text: "From " + lo + " to " + hi + "." }),
      spec.optional && cur !== undefined ? el("button", { type: "button", class: "link", data: { clear: spec.name }, onclick: () => setAnswer(answers, spec.name, CLEARED) }, "Leave it out") : "");
      break;
    }
    case "order": {
      const picked = value || [];
      box.append(argHead(spec, el("span", { class: "count", text: " " + (spec.min === spec.max ? picked.length + " of " + spec.max : picked.length + " chosen (" + spec.min + "–" + spec.max + ")") }), picked));
      box.append(el("p", { class: "hint", text: "Tap in order, first choice first. Tap again to take one back." }));
      if (!opts.length) { box.append(emptyHint()); break; }
      const g = grid();
      for (const o of opts) {
        const at = picked.findIndex((x) => same(x, o.value));
        g.append(optionButton(spec, o, { class: "choice" + (at >= 0 ? " chosen" : "") + (o.disabled ? " blocked" : ""), "aria-pressed": at >= 0 ? "true" : "false",
          data: { arg: spec.name, value: canonical(o.value), rank: at >= 0 ? String(at + 1) : null },
          onclick: () => {
            const now = picked.slice();
            if (at >= 0) now.splice(at, 1);
            else if (now.length < spec.max) now.push(o.value);
            else { toast("You choose at most " + spec.max + "; tap one to take it back."); return; }
            setAnswer(answers, spec.name, now);
          } }, at >= 0 ? el("span", { class: "badge", text: String(at + 1) }) : null));
      }
      box.append(g);
      break;
    }
    case "subset": {
      const picked = value || [];
      box.append(argHead(spec, el("span", { class: "count", text: " " + picked.length + " chosen (" + (spec.min === spec.max ? spec.max : spec.min + "–" + spec.max) + ")" })));
      if (!opts.length) { box.append(emptyHint()); break; }
      const g = grid();
      for (const o of opts) {
        const on = picked.some((x) => same(x, o.value));
        g.append(optionButton(spec, o, { class: "choice" + (on ? " chosen" : "") + (o.disabled ? " blocked" : ""), "aria-pressed": on ? "true" : "false",
          onclick: () => {
            let now = picked.slice();
            if (on) now = now.filter((x) => !same(x, o.value));
            else if (now.length < spec.max) now.push(o.value);
            else { toast("At most " + spec.max + "; tap one to take it back."); return; }
            setAnswer(answers, spec.name, now);
          } }, on ? el("span", { class: "badge", text: "✓" }) : null));
      }
      box.append(g);
      break;
    }
    case "counts": {
      const got = value || {};
      const [lo, hi] = countsRange(spec);
      const total = Object.values(got).reduce((a, b) => a + b, 0);
      const want = lo === hi ? String(lo) : (hi === Infinity ? "at least " + lo : lo + "–" + hi);
      box.append(argHead(spec, el("span", { class: "count" + (total >= lo && total <= hi ? " ok" : ""), data: { total: String(total) }, text: " " + total + " of " + want })));
      if (!opts.length) { box.append(emptyHint()); break; }
      const list = el("div", { class: "counts" });
      for (const o of opts) {
        const k = String(o.value);
        const n = got[k] || 0;
        const cap = o.max === undefined ? Infinity : o.max;
        const set = (x) => () => { const now = Object.assign({}, got); now[k] = clamp(x, 0, cap); if (!now[k]) delete now[k]; setAnswer(answers, spec.name, now); };
        list.append(el("div", { class: "count-row" + (o.disabled ? " blocked" : ""), data: { arg: spec.name, value: canonical(o.value), n: String(n) } },
          el("div", { class: "grow" }, el("div", { class: "title", text: o.label }),
            o.detail ? el("div", { class: "detail", text: o.detail }) : null,
            typeof o.disabled === "string" ? el("div", { class: "why", text: o.disabled }) : null),
          el("button", { type: "button", data: { step: "-1" }, "aria-label": "one less " + o.label, disabled: !!o.disabled || n <= 0, onclick: set(n - 1) }, "−"),
          el("output", { class: "value", text: String(n) }),
          el("button", { type: "button", data: { step: "1" }, "aria-label": "one more " + o.label, disabled: !!o.disabled || n >= cap || total >= hi, onclick: set(n + 1) }, "+")));
      }
      box.append(list);
      break;
    }
    case "flag": {
      const on = !!value;
      box.append(el("button", { type: "button", class: "toggle big" + (on ? " chosen" : ""), "aria-pressed": on ? "true" : "false",
        data: { arg: spec.name, value: canonical(on) }, onclick: () => setAnswer(answers, spec.name, !on) },
      el("span", { class: "box", text: on ? "✓" : "" }), el("span", { class: "title", text: spec.label || pretty(spec.name) })));
      break;
    }
    case "text": {
      box.append(argHead(spec));
      const input = el("input", { type: "text", maxlength: String(spec.max_len || 80), value: value || "", data: { arg: spec.name },
        autocomplete: "off", enterkeyhint: "done",
        oninput: (e) => {
          answers[spec.name] = e.target.value;
          saveDrafts();
          const now = walk(m.args || [], answers);
          const btn = $("#send");
          if (btn) {
            btn.disabled = !now.complete || !!S.pending;
            const words = summaryOf(now, widget);
            btn.textContent = now.complete ? ((m.sealed ? "Lock in" : m.label) + (words ? (m.sealed ? " " : ": ") + words : "")) :
              "Still to choose: " + now.missing.map((s) => (s.label || pretty(s.name)).replace(/[?:]\s*$/, "")).join(", ");
          }
        } });
      box.append(input, el("div", { class: "hint", text: "Up to " + (spec.max_len || 80) + " characters." }));
      break;
    }
    default:
      box.append(el("p", { class: "hint", text: (spec.label || pretty(spec.name)) + ": this phone cannot draw that question; ask the table." }));
  }
  return box;
}

// Options that sit on a board (they carry `row` and `col`): tap the tile where it lies. A
// tile shows what it gives (a number) and a short code of its kind, coloured, with a legend:
// colour is never the only cue.
function shortCodes(names) {
  const out = {};
  for (const n of names) {
    let k = 2;
    while (k < n.length && names.some((m) => m !== n && m.slice(0, k).toLowerCase() === n.slice(0, k).toLowerCase())) k += 1;
    out[n] = n.slice(0, 1).toUpperCase() + n.slice(1, k).toLowerCase();
  }
  return out;
}
function boardPicker(spec, opts, value, answers) {
  const rows = Math.max(...opts.map((o) => o.row)) + 1, cols = Math.max(...opts.map((o) => o.col)) + 1;
  const kindOf = (o) => pretty(o.resource || o.terrain || (o.label || "").split(",")[0]);
  const kinds = [...new Set(opts.map(kindOf))];
  const code = shortCodes(kinds);
  const grid = el("div", { class: "board" });
  grid.style.gridTemplateColumns = "repeat(" + cols + ", minmax(0, 1fr))";     // CSSOM: allowed by the CSP
  const at = {};
  for (const o of opts) at[o.row + ":" + o.col] = o;
  let chosen = null;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const o = at[r + ":" + c];
      if (!o) { grid.append(el("div", { class: "cell empty" })); continue; }
      const on = value !== undefined && same(o.value, value);
      if (on) chosen = o;
      const gain = o.detail && o.detail.includes("→") ? o.detail.split("→").pop().trim() : "";
      const n = (gain.match(/^(\d+)/) || [null, ""])[1];
      grid.append(el("button", { type: "button", class: "cell kind-" + (kinds.indexOf(kindOf(o)) % 7) + (on ? " chosen" : "") + (o.disabled ? " blocked" : ""),
        disabled: !!o.disabled, "aria-pressed": on ? "true" : "false", "aria-label": o.label + (o.detail ? ", " + o.detail : ""),
        data: { arg: spec.name, value: canonical(o.value) }, onclick: () => setAnswer(answers, spec.name, o.value) },
      el("span", { class: "gain", text: n || "·" }), el("span", { class: "what", text: code[kindOf(o)] })));
    }
  }
  const terrain = {};
  for (const o of opts) if (o.terrain) terrain[kindOf(o)] = pretty(o.terrain);
  const legend = el("div", { class: "legend" }, kinds.map((k, i) => el("span", { class: "key" },
    el("span", { class: "swatch kind-" + (i % 7), text: code[k] }), " " + k + (terrain[k] && terrain[k] !== k ? " (" + terrain[k] + ")" : ""))));
  return el("div", {}, grid, legend,
    el("p", { class: "board-pick", text: chosen ? chosen.label + (chosen.detail ? " — " + chosen.detail : "") : "Tap a tile: the number is what it gives." }));
}
