"""Services around the pure core: the table hub (one authority per table). Standard library
only here; MQTT lives in ``companion.net``, devices in ``hardware``, the screen in ``ui``."""
