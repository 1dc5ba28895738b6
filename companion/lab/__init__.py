"""The designer's lab (issue 12): what the stored sessions and bot games say about a design.

A service over the rules core, never imported by it:

* :mod:`.facts`: one game's facts (winners, scores per round, first player, time per phase from
  the log's timestamps), live or simulated; :func:`.facts.game_summary` is the table screen's
  end-of-game summary;
* :mod:`.data`: a stored session matched with the data it was played with;
* :mod:`.simulate`, :mod:`.stats`: bot games and the figures over many games (95% intervals);
* :mod:`.paired`, :mod:`.sequential`: ``simulate --compare``'s paired games on two data sets
  and the sequential test that decides each difference (issue 23, docs/lab.md);
* :mod:`.report` and :mod:`.plots`: ``companion report``'s HTML page and CSV files (plots with
  matplotlib, imported lazily, only there);
* :mod:`.export`: sessions as CSV and as BG Stats plays;
* :mod:`.transcript`: a game told in words from its public notices.
"""
