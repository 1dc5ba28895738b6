"""The `companion` command line. Each sub-command lives in its own module under
``companion.cli.commands`` and exposes ``register(subparsers)``."""
