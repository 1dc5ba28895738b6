"""What a player at the table decides, from what their own phone shows: each mind reads one
seat view (the page's ``window.tc.view``: its ``legal`` list, its prompt, its private part and
the public game view) and answers ``(move, args)`` with values taken from the options the page
draws. The phones then *tap* those options; a mind never sends anything itself.

The minds play to end the game soon (the CI has a few minutes for five whole games), not to win:
the easiest monster and the hardest hit, one Export a round, no dealing.

``simulate(game, options, seed, minds)`` plays a session offline with the same minds (for
choosing seeds and options; no test depends on it)."""
import random
import re

from companion.core import choices


def enabled(options):
    return [o for o in options if not o.get("disabled")]


def answer(specs, pick, rng):
    """Arguments for ``specs`` in order (a spec whose ``when`` fails is not asked, an optional
    one is left out unless ``pick`` answers it): ``pick(spec, options_now, args)`` returns a
    value, or ``SKIP``. Falls back to a random legal value."""
    args, seen = {}, set()
    for s in specs:
        name = s["name"]
        if name in seen or not choices._holds(s.get("when"), args):
            continue
        seen.add(name)
        opts = choices.options_now(s, args)
        v = pick(s, opts, args)
        if v is SKIP:
            if s.get("optional"):
                continue
            v = _random(s, opts, rng)
        if v is SKIP:
            if s.get("optional"):
                continue
            return None
        args[name] = v
    return args


SKIP = object()


def _random(s, opts, rng):
    ok = enabled(opts)
    kind = s["kind"]
    if kind == "one":
        return rng.choice(ok)["value"] if ok else SKIP
    if kind == "number":
        return s["min"] if s["min"] <= s["max"] else SKIP
    if kind in ("order", "subset"):
        return [o["value"] for o in ok[:s["min"]]] if len(ok) >= s["min"] else SKIP
    if kind == "counts":
        return fill_counts(s, ok)
    if kind == "flag":
        return bool(s.get("default", False))
    return SKIP


def fill_counts(s, opts, prefer=()):
    """The least taps to a legal total: fill the preferred options first, then the others."""
    want = s["total"] if "total" in s else s.get("min", 0)
    order = sorted(opts, key=lambda o: (o["value"] not in prefer,
                                        list(prefer).index(o["value"]) if o["value"] in prefer
                                        else 0))
    got = {}
    for o in order:
        if want <= 0:
            break
        n = min(want, int(o.get("max", want)))
        if n > 0:
            got[str(o["value"])] = n
            want -= n
    return got if want <= 0 else SKIP


def default_pick(s, opts, args):
    return SKIP


def default_pick_first(s, opts, args):
    """The first option the page lists (a player who takes the obvious one)."""
    ok = enabled(opts)
    return ok[0]["value"] if s["kind"] == "one" and ok else SKIP


def prompted(view):
    p = view.get("prompt") or {}
    moves = set(p.get("moves") or ())
    return [m for m in view.get("legal") or () if m["move"] in moves]


def legal(view, move):
    return next((m for m in view.get("legal") or () if m["move"] == move), None)


def can(view, move):
    """The move is offered and has something to pick (a required ``one`` with no enabled
    option cannot be sent)."""
    m = legal(view, move)
    if m is None:
        return False
    return answer(m["args"], default_pick, random.Random(0)) is not None


# -- Great Powers ---------------------------------------------------------------------------------

def great_powers(view, rng, memo):
    moves = {m["move"]: m for m in prompted(view)}
    order = ["submit_bids", "take_action", "steal_colony", "resolve_drawn", "pick_side",
             "decline_bonus", "pass_action"]
    for name in order:
        m = moves.get(name)
        if m is None or (m["args"] and not can(view, name)):
            continue

        def pick(s, opts, args, name=name):
            ok = enabled(opts)
            if s["kind"] == "order":
                rng.shuffle(ok)
                return [o["value"] for o in ok[:s["min"]]]
            if s["name"] == "resolve":
                vals = [o["value"] for o in ok]
                return True if True in vals else vals[0]
            return SKIP
        return name, answer(m["args"], pick, rng)
    raise AssertionError(f"nothing to do in {view.get('phase')}: {list(moves)}")


# -- Trade Warz / Tariff Warz ----------------------------------------------------------------------

def trade_warz(view, rng, memo):
    moves = {m["move"]: m for m in prompted(view)}
    private = view.get("private") or {}
    if "pick_leader" in moves:
        def pick(s, opts, args):
            ok = enabled(opts)
            if s["name"] == "leader":
                return rng.choice(ok)["value"]
            if s["name"] == "ranking":               # a back-up or two: the ordered pick
                others = [o["value"] for o in ok if o["value"] != args.get("leader")]
                rng.shuffle(others)
                return others[:min(2, s["max"])]
            return SKIP
        return "pick_leader", answer(moves["pick_leader"]["args"], pick, rng)
    if "draw_cards" in moves:
        def pick(s, opts, args):
            if s["kind"] == "counts":        # a Policy or two, the rest Exports
                ok = enabled(opts)
                # Tariff Warz's Policies come from the player's own pile
                pol = next((o for o in ok if o["value"] == "policy"), None) or \
                    next((o for o in ok if o["value"] == "personal"), None)
                got = {}
                if pol is not None and s.get("total", 0) >= 3:
                    got[pol["value"]] = min(2, int(pol.get("max", 2)))
                rest = dict(s, total=s["total"] - sum(got.values())) if "total" in s else s
                more = fill_counts(rest, [o for o in ok if pol is None or
                                          o["value"] != pol["value"]], prefer=("export",))
                if more is SKIP:
                    return fill_counts(s, ok, prefer=("export", "policy"))
                for k, n in more.items():
                    got[k] = got.get(k, 0) + n
                return got
            return SKIP
        return "draw_cards", answer(moves["draw_cards"]["args"], pick, rng)
    if "choose_policy" in moves:
        want = memo.setdefault("policy", rng.random() < 0.8)

        def pick(s, opts, args):
            ok = enabled(opts)
            if s["name"] == "card":
                real = [o for o in ok if o["value"] is not None]
                return real[0]["value"] if real and want else None
            if s["kind"] == "flag":
                return False
            return SKIP
        return "choose_policy", answer(moves["choose_policy"]["args"], pick, rng)
    if "place_export" in moves or "done_trade" in moves:
        placed = len(private.get("facedown") or ())
        if placed < 1 and "place_export" in moves and can(view, "place_export"):
            def pick(s, opts, args):
                ok = enabled(opts)
                if s["name"] == "card":        # the cheapest Export: it pays for itself soonest
                    return min(ok, key=lambda o: _cost(o))["value"]
                if s["name"] == "slot":        # an open slot; the second seat contests
                    hot = [o for o in ok if "contested" in (o.get("detail") or "")]
                    calm = [o for o in ok if o not in hot]
                    if view.get("seat") == 1 and hot:
                        return hot[0]["value"]
                    return (calm or ok)[0]["value"]
                if s["name"] == "partner" and view.get("seat") == 1:
                    slots = next(a for a in legal(view, "place_export")["args"]
                                 if a["name"] == "slot")
                    hot = {p for o in slots["options"] if "contested" in (o.get("detail") or "")
                           for p in o.get("when", {}).get("partner", ())}
                    return ([o for o in ok if o["value"] in hot] or ok)[0]["value"]
                return SKIP
            return "place_export", answer(moves["place_export"]["args"], pick, rng)
        if "done_trade" in moves:
            return "done_trade", {}
    if "bid" in moves:
        def pick(s, opts, args):
            return min(s["max"], s["min"] + rng.randint(0, 2))
        return "bid", answer(moves["bid"]["args"], pick, rng)
    for name in ("order_policies", "choose_dispute", "discard_cards", "choose_target",
                 "choose_partner", "choose_optional", "choose_routes", "pass_turn"):
        if name in moves:
            def pick(s, opts, args):
                ok = enabled(opts)
                if s["kind"] == "order":
                    return [o["value"] for o in ok[:max(s["min"], min(len(ok), s["max"]))]]
                if s["kind"] in ("subset",):
                    return [o["value"] for o in ok[:s["min"]]]
                if s["kind"] == "one" and ok:
                    return ok[0]["value"]
                return SKIP
            return name, answer(moves[name]["args"], pick, rng)
    m = prompted(view)[0]
    return m["move"], answer(m["args"], default_pick, rng)


def _cost(o):
    got = re.search(r"cost (\d+)", o.get("detail") or "")
    return int(got.group(1)) if got else 99


# -- Battle Builder -------------------------------------------------------------------------------

def battle_builder(view, rng, memo):
    moves = {m["move"]: m for m in prompted(view)}
    if "choose_monster" in moves:
        def pick(s, opts, args):
            return min(enabled(opts), key=lambda o: (_hp(o), o["value"]))["value"]
        return "choose_monster", answer(moves["choose_monster"]["args"], pick, rng)
    if "play_turn" in moves:
        def pick(s, opts, args):
            ok = enabled(opts)
            if s["name"] == "card":
                return max(ok, key=lambda o: (o.get("damage", 0), o["value"]))["value"]
            if s["name"] == "stamina":
                card = next((o for o in legal(view, "play_turn")["args"][0]["options"]
                             if o["value"] == args.get("card")), {})
                # the card's least, and one more in a player's first turn (the stepper)
                first = memo.setdefault("stepped", 0) == 0
                memo["stepped"] += 1
                return min(s["max"], max(s["min"], card.get("min_stamina", 0) + first))
            if s["name"] == "target" and ok:
                return min(ok, key=lambda o: _hp(o))["value"]
            return SKIP
        return "play_turn", answer(moves["play_turn"]["args"], pick, rng)
    if "done_shopping" in moves:
        key = ("shop", view.get("round"))   # a card in each shop: battles end sooner
        if key not in memo and "buy" in moves:
            memo[key] = True
            attacks = [o for o in enabled(moves["buy"]["args"][0]["options"])
                       if o.get("kind") == "attack"]
            if attacks:
                best = max(attacks, key=lambda o: (_damage(o), -o.get("cost", 0)))
                args = answer(moves["buy"]["args"],
                              lambda s, opts, a: best["value"] if s["name"] == "card" else SKIP,
                              rng)
                return "buy", args
        return "done_shopping", {}
    for name in ("vote_pvp", "choose_opponent", "prepare_pvp", "prepare", "choose_pile",
                 "keep_objective", "bid_auction", "pick_monster", "extra_attack"):
        if name in moves:
            def pick(s, opts, args):
                if s["kind"] == "one" and enabled(opts) and not s.get("optional"):
                    return enabled(opts)[0]["value"]
                return SKIP
            return name, answer(moves[name]["args"], pick, rng)
    m = prompted(view)[0]
    return m["move"], answer(m["args"], default_pick, rng)


def _hp(o):
    got = re.search(r"(\d+) HP", o.get("detail") or "")
    return int(got.group(1)) if got else 999


def _damage(o):
    got = re.search(r"(\d+) damage", o.get("detail") or "")
    return int(got.group(1)) if got else 0


# -- Market Trading -------------------------------------------------------------------------------

def market_trading(view, rng, memo):
    moves = {m["move"]: m for m in prompted(view)}
    if "build" in moves and can(view, "build"):
        def pick(s, opts, args):
            ok = enabled(opts)
            scoring = [o for o in ok if "points" in (o.get("detail") or "")]
            return (scoring or ok)[0]["value"]
        return "build", answer(moves["build"]["args"], pick, rng)
    if "skip_build" in moves:
        return "skip_build", {}
    if "forage" in moves and memo.get("forage", True) and can(view, "forage"):
        def pick(s, opts, args):
            ok = enabled(opts)
            return max(ok, key=lambda o: (o.get("pile", 0), -o["value"]))["value"]
        return "forage", answer(moves["forage"]["args"], pick, rng)
    if "skip_forage" in moves:
        return "skip_forage", {}
    if "trade" in moves and can(view, "trade"):
        # one trade a turn (the first the market offers), for the build it may pay for
        key = ("traded", view.get("round"), view.get("phase"))
        if key not in memo:
            memo[key] = True
            return "trade", answer(moves["trade"]["args"], default_pick_first, rng)
    if "end_step" in moves:
        return "end_step", {}
    m = prompted(view)[0]
    return m["move"], answer(m["args"], default_pick, rng)


MINDS = {"great-powers": great_powers, "trade-warz": trade_warz,
         "battle-builder": battle_builder, "market-trading": market_trading}


def simulate(game_name, options, seed, players=4, rng_seed=1, limit=3000):
    """Play a session offline with the minds (the table confirms with its bot). Returns
    ``(outcome, seat moves, table moves, session)``."""
    from companion.core.clock import FakeClock
    from companion.core.log import MemoryLog
    from companion.core.session import Session
    from companion.games import get
    game = get(game_name)
    s = Session.start(game, [f"P{i}" for i in range(players)], MemoryLog(), options=options,
                      seed=seed, clock=FakeClock(), entropy=random.Random(seed).randbytes)
    rng = random.Random(rng_seed)
    memos = {i: {} for i in range(players)}
    mind = MINDS[game_name]
    seat_moves = table_moves = 0
    for _ in range(limit):
        st = s.state
        if st.outcome is not None:
            return st.outcome, seat_moves, table_moves, s
        if not st.prompts:
            s.clock.set(st.next_deadline())
            s.tick()
            continue
        if None in st.prompts:
            s.execute(None, *game.table_bot(game, game.observe(st, None), rng))
            table_moves += 1
            continue
        seat = min(st.prompts)
        move, args = mind(s.seat_view(seat), rng, memos[seat])
        s.execute(seat, move, args)
        seat_moves += 1
    raise AssertionError("the game did not end")
