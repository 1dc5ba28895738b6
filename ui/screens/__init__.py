"""The screens. Each is a thin :class:`~ui.screens.base.ViewScreen` with its layout in
``ui/kv/<name>.kv``; it reads the public view and calls hub commands through the app.

``SCREENS`` maps a screen name to ``(module, class)``; modules are imported and .kv files
loaded on first use, so the first frame pays only for the screen it shows.
"""
SCREENS = {
    "home": ("ui.screens.home", "HomeScreen"),
    "lobby": ("ui.screens.lobby", "LobbyScreen"),
    "round": ("ui.screens.round", "RoundScreen"),
    "timer": ("ui.screens.timer", "TimerScreen"),
    "scores": ("ui.screens.scores", "ScoresScreen"),
    "victory": ("ui.screens.victory", "VictoryScreen"),
    "gp_powers": ("ui.screens.great_powers", "PowersScreen"),
    "gp_reveal": ("ui.screens.great_powers", "RevealScreen"),
    "gp_action": ("ui.screens.great_powers", "ActionScreen"),
    "gp_score": ("ui.screens.great_powers", "ScorePhaseScreen"),
    "gp_war": ("ui.screens.great_powers", "WarScreen"),
    "tw_upkeep": ("ui.screens.trade_warz", "UpkeepScreen"),
    "tw_disputes": ("ui.screens.trade_warz", "DisputesScreen"),
    "tw_leaders": ("ui.screens.trade_warz", "LeadersScreen"),
    "tw_policies": ("ui.screens.trade_warz", "PoliciesScreen"),
    "tw_flip": ("ui.screens.trade_warz", "FlipScreen"),
    "bb_battle": ("ui.screens.battle_builder", "BattleScreen"),
    "mt_market": ("ui.screens.market_trading", "MarketScreen"),
}
