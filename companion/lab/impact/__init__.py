"""Per-card impact (issue 23, part 2): for each card, how the seats that had it fared.

For every *seat-game* (one seat in one game) a :class:`CardWatch` records which cards the seat
had in its **opening** hand, which it ever had in hand (**drawn**), and which it **played**
(what those mean in each game: its adapter's ``columns``). A card's figures are win rates over
the seat-games that could have drawn it (its *population*): the win share (1 for a win, 1/k
for a win shared by k, else 0) averaged over the seat-games where the card was in the opening
hand, drawn, played, and **never seen**, each with its count and 95% Wilson interval. The
**difference** is the IWD-like "improvement when drawn": win rate when drawn minus win rate
when never drawn, with Newcombe's hybrid score interval (built from the two Wilson
intervals). A card is **flagged** (:func:`flag_cards`, by default) when its difference is
beyond :data:`FLAG_POINTS` (3 points) either way at the Holm-corrected level over all the
cards of the table (family-wise :data:`ALPHA`), so chance flags do not grow with the number
of cards. :func:`stability` reruns the whole thing on re-seeded simulations and counts, per
card, in how many reruns it was flagged; the flagged set is *stable* when the same set comes
back in at least 4 of 5.

A card's population: the seat-games whose group (Trade Warz: the Leader) saw the card in at
least one game. A Leader's personal deck is thereby compared only among that Leader's games,
and a shared card among all.

What a difference means: a card drawn more often in longer games, or by a seat that draws
more, looks better or worse for reasons that are not the card (the same caveat as
17lands' IWD). A flag is a place to look, not a verdict; :func:`restricted` play (the same
bot forbidden the card; Trade Warz) is the causal check.

Built for Trade Warz (hands in ``state.data.hands``; cards are played by ``choose_policy``,
``place_export`` and ``play_tactic``; per Leader), Great Powers (Action cards taken and
resolved, Bid cards), Battle Builder (cards bought and played, monsters fought and beaten,
and battles won per monster and difficulty: :func:`monster_table`) and Market Trading's
improvements (drawn = built, played = used; no opening hand).

The package, one module a concern (each opens with what it owns), in the order they build on
each other:

* ``cards``: what a game's cards are (one adapter a game);
* ``watch``: watching games: one row per seat-game, from bot games or the table's sessions;
* ``figures``: the rates, intervals, flag rules and tables, from rows;
* ``studies``: a whole study with its reruns, and the study in words;
* ``restriction``: restricted play, the causal check.

Everything is importable from ``companion.lab.impact`` as ever.
"""
from .cards import (ADAPTERS, BattleBuilderCards, GreatPowersCards, MarketTradingImprovements,
                    NotSupported, TradeWarzCards, adapter_for)
from .watch import CardWatch, SeatCards, live_rows, play_one, simulate_rows
from .figures import (ALPHA, FLAG_POINTS, FLAG_RULE, RULES, card_table, design_effect, flag_cards,
                      flagged, group_table, holm, monster_table, newcombe, p_beyond, rate, z_of)
from .studies import RERUNS, STABLE, rerun_seed, rule_text, side_by_side, stability, study, text
from .restriction import RESTRICTED, forbid, restricted

__all__ = ["NotSupported", "TradeWarzCards", "MarketTradingImprovements", "GreatPowersCards",
           "BattleBuilderCards", "ADAPTERS", "adapter_for", "SeatCards", "CardWatch", "play_one",
           "simulate_rows", "live_rows", "FLAG_POINTS", "ALPHA", "FLAG_RULE", "RULES", "rate",
           "newcombe", "z_of", "p_beyond", "design_effect", "holm", "card_table", "flag_cards",
           "monster_table", "group_table", "flagged", "RERUNS", "STABLE", "stability",
           "rerun_seed", "side_by_side", "study", "rule_text", "text", "forbid", "RESTRICTED",
           "restricted"]
