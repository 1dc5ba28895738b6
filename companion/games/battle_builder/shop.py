"""The shop: cards, upgrades and System D conversion."""
from companion.core.errors import IllegalMoveError


class ShopPhase:
    """The shop phase (a part of :class:`~.game.BattleBuilder`)."""

    # == shop =====================================================================================
    def _begin_shop(self, state):
        d, r, cfg = state.data, self.rules, state.config
        if cfg["limited_shop"]:
            d.shop_pool = []
            for tier in (1, 2, 3):
                ids = [cid for cid, c in r.cards.items() if c.tier == tier and
                       (not cfg["scarce_shop"] or d.stock.get(cid, 0) > 0)]
                k = min(r.shop["limited_reveal"], len(ids))
                d.shop_pool.extend(state.rng.sample(ids, k))
            state.note("ShopRevealed", cards=list(d.shop_pool))
        if cfg["tokens"] == "D":
            d.convert_ok = cfg["convert_when"] == "any-shop" or d.convert_ok
        moves = ("buy", "upgrade", "convert", "done_shopping") if d.convert_ok and \
            cfg["tokens"] == "D" else ("buy", "upgrade", "done_shopping")
        for s in state.seats():
            state.prompt(s, moves, shop=True)
        if cfg["shop_seconds"]:
            state.start_timer("shop", cfg["shop_seconds"], warn_before=min(30, cfg[
                "shop_seconds"] / 2))

    def _end_shop(self, state):
        state.stop_timer("shop")
        state.data.convert_ok = False

    def card_cost(self, state, seat, cid):
        """(token type, price) of a card, or raise with the reason it cannot be bought."""
        r, cfg, d = self.rules, state.config, state.data
        c = r.cards.get(cid) if isinstance(cid, str) else None
        if c is None or c.tier == 0:
            raise IllegalMoveError(f"{cid!r} is not a card in the shop (tier 1-3 cards only).")
        if cfg["limited_shop"] and cid not in d.shop_pool:
            raise IllegalMoveError(f"{c.name} is not among this shop's revealed cards.")
        if cfg["scarce_shop"] and d.stock.get(cid, 0) <= 0:
            raise IllegalMoveError(f"No copies of {c.name} are left.")
        if cfg["upgrade_trees"]:
            need = r.shop["tree_requires"][c.tier - 1]
            own = d.attack[seat] if c.kind == "attack" else d.defense[seat]
            have = sum(1 for x in own if r.cards[x].tier == c.tier - 1)
            if c.tier > 1 and have < need:
                raise IllegalMoveError(f"{c.name} needs {need} tier {c.tier - 1} {c.kind} "
                                       f"card{'s' if need != 1 else ''}; you have {have}.")
        system = self.system(state)
        t = system.attack_cards if c.kind == "attack" else system.defense_cards
        return t, r.shop["tier_cost"][c.tier - 1]

    def upgrade_cost(self, state, seat, stat):
        r, d = self.rules, state.data
        if stat not in ("hp", "stamina"):
            raise IllegalMoveError(f"Upgrade hp or stamina, not {stat!r}.")
        ups = d.hp_ups[seat] if stat == "hp" else d.st_ups[seat]
        step, cap = r.shop[f"{stat}_step"], r.shop[f"{stat}_cap"]
        if (ups + 1) * step > cap:
            raise IllegalMoveError(f"You have the most {stat} upgrades allowed "
                                   f"(+{cap} above the start).")
        if state.config["diminishing"]:
            cost = r.shop[f"{stat}_costs_diminishing"][ups]
        else:
            cost = r.shop[f"{stat}_cost"]
        system = self.system(state)
        return (system.hp if stat == "hp" else system.stamina), cost

    def _buy(self, state, seat, card, remove=None):
        d, r = state.data, self.rules
        t, cost = self.card_cost(state, seat, card)
        c = r.cards[card]
        if d.tokens[seat][t] < cost:
            raise IllegalMoveError(f"{c.name} costs {cost} {t} tokens; you have "
                                   f"{d.tokens[seat][t]}.")
        own = d.attack[seat] if c.kind == "attack" else d.defense[seat]
        if remove is not None:
            if not state.config["deck_thinning"]:
                raise IllegalMoveError("Deck thinning is not in play (option deck_thinning).")
            rc = r.cards.get(remove) if isinstance(remove, str) else None
            if rc is None or rc.tier != 0 or rc.kind != c.kind or remove not in own:
                raise IllegalMoveError(f"{remove!r} is not a basic {c.kind} card in your deck.")
        d.tokens[seat][t] -= cost
        own.append(card)
        if remove is not None:
            own.remove(remove)
        if state.config["limited_shop"]:
            d.shop_pool.remove(card)
        if state.config["scarce_shop"]:
            d.stock[card] -= 1
        d.bought[seat].append(card)
        gone = f", and took {r.cards[remove].name} out of their deck" if remove else ""
        state.note("CardBought", seat=seat, card=card, cost=cost, token=t, removed=remove,
                   says=f"{state.players[seat]} bought {c.name} (tier {c.tier} {c.kind}) for "
                        f"{cost} {t} token{'s' if cost != 1 else ''}{gone}.")

    def _upgrade(self, state, seat, stat):
        d = state.data
        t, cost = self.upgrade_cost(state, seat, stat)
        if d.tokens[seat][t] < cost:
            raise IllegalMoveError(f"A {stat} upgrade costs {cost} {t} tokens; you have "
                                   f"{d.tokens[seat][t]}.")
        d.tokens[seat][t] -= cost
        if stat == "hp":
            d.hp_ups[seat] += 1
        else:
            d.st_ups[seat] += 1
        step = self.rules.shop[f"{stat}_step"]
        what = "an HP upgrade (maximum HP" if stat == "hp" else "a stamina upgrade (stamina"
        state.note("Upgraded", seat=seat, stat=stat, cost=cost, token=t,
                   says=f"{state.players[seat]} bought {what} +{step}) for {cost} {t} "
                        f"token{'s' if cost != 1 else ''}.")

    def _convert(self, state, seat, give, get):
        d = state.data
        if state.config["tokens"] != "D":
            raise IllegalMoveError("Token conversion is only in System D.")
        if not d.convert_ok:
            raise IllegalMoveError("Tokens can be converted only in the shop after a PvP.")
        types = self.system(state).types
        if give not in types or get not in types or give == get:
            raise IllegalMoveError(f"Convert one token type into another: {', '.join(types)}.")
        n_give, n_get = self.rules.conversion
        if d.tokens[seat][give] < n_give:
            raise IllegalMoveError(f"Converting takes {n_give} {give} tokens; you have "
                                   f"{d.tokens[seat][give]}.")
        d.tokens[seat][give] -= n_give
        d.tokens[seat][get] += n_get
        state.note("TokensConverted", seat=seat, give=give, get=get,
                   says=f"{state.players[seat]} converted {n_give} {give} tokens into {n_get} "
                        f"{get} token{'s' if n_get != 1 else ''}.")

    def _done_shopping(self, state, seat):
        state.clear_prompt(seat)
