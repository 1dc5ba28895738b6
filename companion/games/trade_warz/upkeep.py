"""The Event (a card flipped at the start of each round) and Upkeep: every effect in play that
resolves at Upkeep, in CMYK order (C Canary: global, M Mint: personal, Y Yeti: opponents, K
Kraken: trading partners), poorest owner first within a letter. Each letter with effects is a
step of the core's flow (the table may be asked to confirm it) followed by its effects."""
from .cards import CMYK, UPKEEP_ORDER


class EventAndUpkeep:
    """Mixed into the Game."""

    # -- Event ------------------------------------------------------------------------------------
    def _begin_event(self, state):
        state.round += 1
        d = state.data
        n = state.n
        d.extra_policy = [0] * n
        d.activated = [False] * n
        d.disputes.count = 0
        if state.config["quick_start"] and state.round == 1 and \
                self.rules.quick_start_skip_event:
            state.note("EventSkipped", why="Quick Start")
            return
        if not d.events:
            d.events, d.event_discard = d.event_discard, []
            state.rng.shuffle(d.events)
            state.note("DeckReshuffled", deck="event", cards=len(d.events))
        if not d.events:
            return
        eid = d.events.pop()
        d.board.event = eid
        state.note("EventFlipped", event=eid, name=self.ix(state).name_of(eid))
        step = self.fx_job(state, eid, None, "immediate")
        if step:
            state.push([step])

    # -- Upkeep -----------------------------------------------------------------------------------
    def _begin_upkeep(self, state):
        d = state.data
        b = d.board
        ix = self.ix(state)
        n = state.n
        entries = []
        for s, lid in enumerate(b.leaders):
            if ix.steps_of(lid, "upkeep"):
                entries.append((ix[lid].cmyk or "M", s, lid, {}))
        for s, pid in enumerate(b.policy):
            if pid is not None and ix.steps_of(pid, "upkeep"):
                entries.append((ix[pid].cmyk, s, pid, {}))
        for p in ix.partners:
            for slot, (s, cid) in sorted(b.routes[p].items()):
                if ix.steps_of(cid, "upkeep"):
                    entries.append((ix[cid].cmyk, s, cid, {"route": p}))
        for t in b.in_play:
            if ix.steps_of(t["card"], "upkeep"):
                entries.append((ix[t["card"]].cmyk, t["owner"], t["card"], dict(t["ch"])))
        if b.event is not None and ix.steps_of(b.event, "upkeep"):
            entries.append((ix[b.event].cmyk, None, b.event, {}))
        for p in ix.partners:
            if ix.steps_of(p, "upkeep"):
                entries.append(("K", None, p, {"this": p}))
        steps, jobs = [], []
        computing = self.computing(state)
        for letter in UPKEEP_ORDER:
            cat = CMYK[letter]
            es = [e for e in entries if e[0] == letter]
            es.sort(key=lambda e: (-1, 0) if e[1] is None else (d.gdp[e[1]],
                                                                (e[1] - d.first) % n))
            effects = []
            for _, owner, src, ch in es:
                item = ix[src]
                for i in ix.steps_of(src, "upkeep"):
                    e = item.effects[i]
                    computed = bool(e.compute) and computing
                    effects.append({"source": src, "name": item.name, "owner": owner,
                                    "text": e.text or item.text,
                                    "manual": e.is_manual and not computed,
                                    "computed": computed})
            steps.append({"letter": letter, "name": cat.name, "resolves": cat.resolves,
                          "ring": cat.ring, "fill": cat.fill, "effects": effects,
                          "state": "pending" if es else "empty"})
            if es:
                jobs.append({"step": "upkeep_letter", "letter": letter})
                jobs += [self.fx_job(state, src, owner, "upkeep", ch)
                         for _, owner, src, ch in es]
        d.upkeep = steps
        state.push(jobs)

    def _letter_step(self, state, job):
        d = state.data
        for st in d.upkeep:
            if st["state"] == "current":
                st["state"] = "done"
        cur = next(st for st in d.upkeep if st["letter"] == job["letter"])
        cur["state"] = "current"
        if state.config["upkeep_confirm"] == "every" and not job.get("ok"):
            return self.ask(state, None, "step", letter=job["letter"], name=cur["name"])
        state.note("UpkeepStep", letter=cur["letter"], name=cur["name"],
                   effects=len(cur["effects"]))
        return None

    def _end_upkeep(self, state):
        for st in state.data.upkeep:
            if st["state"] == "current":
                st["state"] = "done"

    def _confirm_step(self, state, seat):
        step = self.waiting(state, None, "confirm_step", "Upkeep step to confirm")
        step["ok"] = True
        state.resume(step)
