"""The firmware version the reader reports in its hello."""

FW_VERSION = "1.0.0"
