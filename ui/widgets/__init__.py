"""Reusable widgets of the table screen (their look is in ``ui/kv/theme.kv``)."""
