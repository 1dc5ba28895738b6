"""Roles and bets (earning Variants C and D) and the monster battles: turns, timers, rewards and
the end of a battle in words."""
from companion.core.errors import IllegalMoveError

from . import battle as engine
from .common import _and, _gained, _int, _tokens
from .data import CATEGORIES, ROLES


class MonsterBattles:
    """The prep and battle phases (a part of :class:`~.game.BattleBuilder`)."""

    # == roles and bets (earning Variants C and D) ================================================
    def _begin_prep(self, state):
        mode = state.config["earning"]
        if mode not in ("roles", "betting"):
            return
        w = state.open_window(f"prep-{state.round}", "prep", list(state.seats()),
                              self._prep_revealed, default={},
                              label=f"Battle {state.round}: " +
                                    ("roles" if mode == "roles" else "bets"))
        b = self.rules.betting
        for s in state.seats():
            if mode == "roles":
                state.prompt(s, ("prepare",), window=w.id, roles=list(ROLES))
            else:
                state.prompt(s, ("prepare",), window=w.id, bets=list(b["kinds"]),
                             most=min(b["max_stake"], self.wallet(state, s)))

    def _prepare(self, state, seat, role=None, bet=None, stake=0):
        if state.config["earning"] == "roles":
            if role not in ROLES:
                raise IllegalMoveError(f"Choose a role: {', '.join(ROLES)} (not {role!r}).")
            if bet is not None or stake:
                raise IllegalMoveError("There is no betting with role cards.")
            return {"role": role}
        if role is not None:
            raise IllegalMoveError("There are no role cards with betting.")
        b = self.rules.betting
        if bet is None:
            if stake:
                raise IllegalMoveError("A stake needs a bet: killing_blow or no_fall.")
            return {"bet": None, "stake": 0}
        if bet not in b["kinds"]:
            raise IllegalMoveError(f"A bet is killing_blow (you deal the killing blow) or "
                                   f"no_fall (nobody on your team drops below "
                                   f"{b['no_fall_hp']} HP), not {bet!r}.")
        most = min(b["max_stake"], self.wallet(state, seat))
        if most < 1:
            raise IllegalMoveError("You have no tokens to stake on a bet.")
        _int(stake, "Your stake", 1, most)
        return {"bet": bet, "stake": stake}

    def _prep_revealed(self, state, window):
        d = state.data
        for s, chosen in window.revealed().items():
            chosen = dict(chosen or {})
            if chosen.get("bet"):
                chosen["stake"] = self._pay_any(state, s, chosen["stake"])   # held until the end
            d.prep[s] = chosen
        if state.lean:
            return
        pl, parts = state.players, []
        for s, c in sorted(d.prep.items()):
            if c.get("role"):
                parts.append(f"{pl[s]} is the {c['role']}")
            elif c.get("bet"):
                what = "a killing blow" if c["bet"] == "killing_blow" else "nobody falling"
                parts.append(f"{pl[s]} bets {_tokens(c['stake'])} on {what}")
        if parts:
            state.note("PreparationRevealed", round=state.round,
                       says=f"Battle {state.round}: " + "; ".join(parts) + ".")

    # == monster battles ==========================================================================
    def _begin_battles(self, state):
        d = state.data
        d.results_said = []
        for k, team in enumerate(d.teams):
            env = self._draw_effect(state, "environment") if state.config["environments"] \
                else None
            engine.start_battle(self, state, f"b{state.round}.{k + 1}", "monster", team,
                                d.picks[k], effect=env)

    def _play_turn(self, state, seat, card, stamina, target=None):
        d = state.data
        if not isinstance(card, str) or card not in d.pile[seat]:
            have = ", ".join(sorted(set(d.pile[seat])))
            raise IllegalMoveError(f"{card!r} is not in your attack pile this cycle; you can "
                                   f"play {have}.")
        c = self.rules.cards[card]
        _int(stamina, "Stamina", 0, d.stamina[seat])
        if stamina < c.min_stamina and not self.must_fumble(state, seat):
            raise IllegalMoveError(f"{c.name} needs at least {c.min_stamina} stamina; you put "
                                   f"{stamina}.")
        b = d.battles[d.battle_of[seat]]
        alive = [i for i, m in enumerate(b["monsters"]) if m["hp"] > 0]
        if b["kind"] != "monster" or len(alive) <= 1:
            if target is not None and target not in alive:
                raise IllegalMoveError("There is only one opponent to attack; leave target out.")
            target = None
        else:
            if isinstance(target, bool) or target not in alive:
                names = ", ".join(f"{i} ({b['monsters'][i]['name']})" for i in alive)
                raise IllegalMoveError(f"Choose which monster to attack: {names}.")
        return {"card": card, "stamina": stamina, "target": target}

    def must_fumble(self, state, seat):
        """True when the seat cannot pay the stamina minimum of any card left in its pile: it
        then plays one without it, as a fumble (no damage; the card still cycles)."""
        d, cards = state.data, self.rules.cards
        return all(cards[c].min_stamina > d.stamina[seat] for c in d.pile[seat])

    def _turn_revealed(self, state, window):
        battle = state.data.battles[window.id.split(":")[0]]
        engine.resolve_turn(self, state, battle, window.revealed())

    def _extra_attack(self, state, seat, card):
        d = state.data
        step = state.waiting_step(seat, "extra_attack", "You have no extra attack to make now.")
        if not isinstance(card, str) or card not in d.pile[seat]:
            raise IllegalMoveError(f"{card!r} is not in your attack pile; you can play "
                                   f"{', '.join(sorted(set(d.pile[seat])))}.")
        step["extra"] = card
        state.resume(step)

    def on_timer(self, state, name):
        if name.startswith("turn:"):
            battle = state.data.battles.get(name[5:])
            if battle is not None and not battle["over"]:
                engine.timeout(self, state, battle)
        elif name == "shop":
            for s in list(state.prompts):
                if s is not None and "done_shopping" in state.prompts[s]["moves"]:
                    state.clear_prompt(s)
                    state.note("ShoppingDone", seat=s, why="shop timer")

    def _performance(self, state, battle, seat, won):
        """Performance tokens by category (or ``skill`` for System A's standard bonuses)."""
        r, cfg = self.rules, state.config
        st = state.data.bstats[seat]
        mode = cfg["earning"]
        out = {c: 0 for c in CATEGORIES}
        if mode in ("standard", "betting") and cfg["tokens"] == "A":
            if won:
                u = r.unified
                team_taken = sum(state.data.bstats[s]["taken"] for s in battle["seats"])
                fast = max((v for k, v in u["fast_turns"].items() if battle["turn"] <= k),
                           default=0)
                bonus = fast + st["overkill"] // u["overkill_per"] + \
                    (u["perfect"] if team_taken == 0 else 0)
                return {"skill": bonus}
            return {}
        if mode == "action":
            a = r.action
            out["speed"] = st["before_monster"] * a["before_monster"]
            out["attack"] = st["damage_actions"] * a["damage_action"]
            out["defense"] = st["hits"] * a["hit_taken"]
            out["hp"] = st["hp_end"] // a["hp_per"] if st["hp_end"] > 0 else 0
            return out
        if mode == "milestones":
            m = r.milestones
            if st["first"] >= m["speedster_first"]:
                out["speed"] = m["speedster_tokens"]
            if st["killing_blow"]:
                out["attack"] = m["executioner_tokens"]
            if st["taken"] >= m["tank_damage"]:
                out["defense"] = m["tank_tokens"]
            if st["hp_end"] >= m["survivor_share"] * st["max_hp"]:
                out["hp"] = m["survivor_tokens"]
            return out
        sp = r.split
        out["attack"] = st["dealt"] // sp["damage_per"]
        out["defense"] = st["blocked"] // sp["block_per"]
        out["speed"] = st["first"] * sp["first_per"]
        out["hp"] = st["hp_end"] // sp["hp_per"]
        if mode == "roles":
            role = state.data.prep.get(seat, {}).get("role")
            if role in r.roles:
                out = {c: int(v * r.roles[role][c]) for c, v in out.items()}
        return out

    def monster_battle_over(self, state, battle, won, why=None):
        d, r, cfg = state.data, self.rules, state.config
        team = battle["seats"]
        fallen = sum(1 for s in team if d.hp[s] <= 0)
        tier = "full" if fallen == 0 else ("none" if fallen == len(team) else "half")
        base = sum(m["reward"] for m in battle["monsters"])
        if why == "turn limit" and cfg["turn_limit_reward"] == "defeated":
            # the printed reward is for defeating the monster: out of turns, only the monsters
            # the team did beat pay (nobody is down, or the battle would have ended already)
            beaten = [m for m in battle["monsters"] if m["hp"] <= 0]
            base = sum(m["reward"] for m in beaten)
            tier = "none" if not beaten else "partial"
        if tier == "half":
            base //= r.rewards["half_divisor"]
        elif tier == "none":
            base = 0
        if cfg["earning"] == "roles":
            roles = [d.prep.get(s, {}).get("role") for s in team]
            roles = [x for x in roles if x]
            if len(set(roles)) < len(roles):
                base = max(0, base - r.same_role_penalty)
        per = base // len(team) if cfg["reward_split"] == "divided" else base
        system = self.system(state)
        earned = {}
        for s in team:
            before = self.wallet(state, s)
            self._gain_spread(state, s, per, offset=state.round - 1)
            for cat, v in self._performance(state, battle, s, won).items():
                if v > 0:
                    t = cat if cat == "skill" else system.category_type(cat)
                    d.tokens[s][t] += v
            bet = d.prep.get(s, {})
            if bet.get("bet"):
                ok = (d.bstats[s]["killing_blow"] > 0 if bet["bet"] == "killing_blow" else
                      all(d.bstats[x]["min_hp"] >= r.betting["no_fall_hp"] for x in team))
                if ok:
                    self._gain_spread(state, s, bet["stake"] * r.betting["payout"])
                back = bet["stake"] * r.betting["payout"]
                what = "a killing blow" if bet["bet"] == "killing_blow" else "nobody falling"
                state.note("BetSettled", seat=s, bet=bet["bet"], stake=bet["stake"], won=ok,
                           says=f"{state.players[s]}'s bet of {bet['stake']} on {what} "
                                + (f"won: {back} tokens back." if ok else "was lost."))
            earned[str(s)] = self.wallet(state, s) - before
        if won:                                  # 1 VP per monster, every team member
            for s in team:
                d.vp[s] += r.battle["vp_monster"] * len(battle["monsters"])
                for m in battle["monsters"]:
                    d.monsters_defeated[s][m["difficulty"]] += 1
        for m in battle["monsters"]:
            d.track["results"][m["difficulty"]]["won" if won else "lost"] += 1
            d.monster_discard.append(m["id"])
        d.track["battles"].append({
            "battle": state.round, "id": battle["id"], "seats": list(team),
            "monsters": [m["id"] for m in battle["monsters"]],
            "difficulty": [m["difficulty"] for m in battle["monsters"]], "won": won,
            "reward": tier, "turns": battle["turn"], "tokens": earned,
            "effect": battle["effect"], "seconds": battle["ended"] - battle["started"],
            "why": why})
        # kept on a lean state too (the state must not differ): the view's last_results
        says = self._monster_end_words(state, battle, won, tier, earned, why)
        d.results_said.append(says)
        if not state.lean:
            state.note("MonsterBattleEnded", battle=battle["id"], won=won, reward=tier,
                       tokens=earned, why=why, says=says)
        self._check_threshold(state)

    def _monster_end_words(self, state, battle, won, tier, earned, why):
        """A monster battle's end in words: who beat whom, and what each player got."""
        team = _and([state.players[s] for s in battle["seats"]])
        foes = _and([m["name"] for m in battle["monsters"]])
        vp = self.rules.battle["vp_monster"] * len(battle["monsters"]) if won else 0
        head = (f"{team} defeated {foes}" if won else
                f"{foes} {'held out against' if why == 'turn limit' else 'defeated'} {team}"
                + (" (out of turns)" if why == "turn limit" else ""))
        tiers = {"full": "the full reward", "half": "half the reward (someone fell)",
                 "partial": "the reward of the monsters beaten", "none": "no reward"}
        gains = "; ".join(f"{state.players[s]} {_gained(earned.get(str(s), 0), vp)}"
                          for s in battle["seats"])
        return f"{head}: {tiers.get(tier, tier)}. {gains}."

    def _pvp_end_words(self, state, winner, loser, got, vp, why, choosing, revenge=False):
        """A PvP battle's end in words: the winner, why, and what each side got (``revenge``:
        the loser also takes a revenge token)."""
        p = state.players
        gains = "; ".join(f"{p[s]} {_gained(got.get(s, 0), vp if s == winner else 0)}"
                          + (", a revenge token" if revenge and s == loser else "")
                          for s in (winner, loser))
        rest = f" {p[winner]} chooses a reward pile." if choosing else ""
        return (f"{p[winner]} won the PvP battle against {p[loser]}"
                f"{f' ({why})' if why else ''}. {gains}.{rest}")

    def _end_battles(self, state):
        d = state.data
        d.vp_curve.append(list(d.vp))
