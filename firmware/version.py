"""The firmware version the reader reports in its hello."""

# 1.1.0: a successful tag write's ack carries the message read back from the tag (the optional
#        ``ndef`` field, hex; a 1.0.0 reader leaves it out and the hub checks nothing)
# 1.0.0: the first release
FW_VERSION = "1.1.0"
