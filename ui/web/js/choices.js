/* The argument specs of a legal move (protocol section 4.7; companion/core/choices.py is the
 * reference): which questions a move asks given the answers so far (`walk`, the first spec per
 * name whose `when` holds, as the hub does), each answer made legal against the options at this
 * rev (a pick the game no longer offers is dropped), what is still missing, and the answers in
 * words for the send button and the lock-in panel (`answerWords`, `summaryOf`). No DOM, no state:
 * the pickers (pickers.js) draw what this decides. */

import { clamp, pretty } from "./util.js";
import { same } from "./recipe.js";

export const CLEARED = { cleared: true };   // an optional answer the player took back

function holds(when, args) {
  for (const [k, vals] of Object.entries(when || {})) {
    if (!(k in args) || !vals.some((x) => same(x, args[k]))) return false;
  }
  return true;
}
function optionsNow(spec, args) { return (spec.options || []).filter((o) => holds(o.when, args)); }
function usable(opts) { return opts.filter((o) => !o.disabled); }
function findOpt(opts, value) { return opts.find((o) => same(o.value, value)); }
function optLabel(opts, value) { const o = findOpt(opts, value); return o ? o.label : pretty(value); }

export function countsRange(spec) {
  return "total" in spec ? [spec.total, spec.total] : [spec.min || 0, spec.max === undefined ? Infinity : spec.max];
}

// The answer a spec has now: what the player picked, made legal against the options as they
// are at this rev (a pick the game no longer offers is dropped), else the spec's default.
function answerOf(spec, opts, raw) {
  const ok = usable(opts);
  const has = (x) => !!findOpt(ok, x);
  const untouched = raw === undefined;
  if (raw === CLEARED) return undefined;
  const dflt = "default" in spec ? spec.default : undefined;
  switch (spec.kind) {
    case "one":
      if (!untouched) return has(raw) ? raw : undefined;
      return dflt !== undefined && has(dflt) ? dflt : undefined;
    case "number": {
      const lo = spec.min, hi = spec.max, step = spec.step || 1;
      let n = untouched ? (dflt !== undefined ? dflt : (spec.optional ? undefined : lo)) : raw;
      if (typeof n !== "number" || lo > hi) return undefined;
      n = clamp(Math.round((n - lo) / step) * step + lo, lo, hi);
      return n;
    }
    case "order":
    case "subset": {
      const src = untouched ? (Array.isArray(dflt) ? dflt : []) : (Array.isArray(raw) ? raw : []);
      const out = [];
      for (const x of src) if (has(x) && !out.some((y) => same(x, y))) out.push(x);
      return out.slice(0, spec.max);
    }
    case "counts": {
      const src = untouched ? (dflt && typeof dflt === "object" ? dflt : {}) : (raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {});
      const out = {};
      for (const o of ok) {
        const k = String(o.value);
        const n = clamp(Number(src[k]) || 0, 0, o.max === undefined ? Infinity : o.max);
        if (n) out[k] = n;
      }
      return out;
    }
    case "flag":
      return untouched ? !!dflt : !!raw;
    case "text": {
      const t = untouched ? (typeof dflt === "string" ? dflt : "") : String(raw);
      return t.slice(0, spec.max_len || 80);
    }
    default:
      return undefined;
  }
}
function answered(spec, value) {
  if (value === undefined) return false;
  switch (spec.kind) {
    case "order": case "subset": return value.length >= spec.min && value.length <= spec.max;
    case "counts": {
      const [lo, hi] = countsRange(spec);
      const t = Object.values(value).reduce((a, b) => a + b, 0);
      return t >= lo && t <= hi;
    }
    case "text": return value.trim().length > 0;
    default: return true;
  }
}
function begun(spec, value) {
  if (value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (spec.kind === "counts") return Object.keys(value).length > 0;
  return false;
}
// Walk the specs in order as the hub does (the first spec per name whose `when` holds),
// with what the player answered so far: what to ask, the args to send, what is missing.
export function walk(specs, answers) {
  const asked = new Set(), got = {}, items = [], missing = [];
  for (const spec of specs || []) {
    if (asked.has(spec.name) || !holds(spec.when, got)) continue;
    asked.add(spec.name);
    const opts = optionsNow(spec, got);
    const value = answerOf(spec, opts, answers[spec.name]);
    const ok = answered(spec, value);
    if (ok) got[spec.name] = spec.kind === "text" ? value.trim() : value;
    else if (!spec.optional || begun(spec, value)) missing.push(spec);   // half an optional answer is not left out silently
    items.push({ spec: spec, opts: opts, value: value, ok: ok });
  }
  return { items: items, args: got, missing: missing, complete: missing.length === 0 };
}
// what an answer says, in words, for the send button and the lock-in panel
export function answerWords(item) {
  const s = item.spec, v = item.value;
  if (!item.ok) return null;
  switch (s.kind) {
    case "one": return optLabel(item.opts, v);
    case "number": return (s.label || pretty(s.name)).replace(/\s*\([^)]*\)\s*$/, "").replace(/[?:]\s*$/, "").replace(/^your /i, "") + ": " + v;
    case "order": return v.map((x) => optLabel(item.opts, x)).join(" → ");
    case "subset": return v.length ? v.map((x) => optLabel(item.opts, x)).join(", ") : "none";
    case "counts": return Object.entries(v).map(([k, n]) => {
      const o = item.opts.find((x) => String(x.value) === k);
      return n + " × " + (o ? o.label : pretty(k));
    }).join(", ") || "none";
    case "flag": return v ? (s.label || pretty(s.name)).replace(/[?:]\s*$/, "") : null;
    case "text": return "“" + v.trim() + "”";
    default: return null;
  }
}
export function summaryOf(w, widget) {
  const own = widget && widget.words ? widget.words(w) : null;   // a move's own wording
  if (own) return own;
  const parts = w.items.map(answerWords).filter((x) => x);
  const arrows = w.items.every((i) => i.spec.kind === "one" || i.spec.kind === "order" || !i.ok);
  return parts.join(arrows ? " → " : " · ");
}
