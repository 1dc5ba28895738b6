"""NDEF messages and the Type 2 tag TLV around them (NTAG213/215/216), for MicroPython and CPython.

A card code is stored as one NDEF *Text* record (``T``, UTF-8, language ``en``) so a phone can
read it too. On a Type 2 tag the message sits in a TLV in user memory (page 4 on)::

    03 <len> <message> FE          (len < 255)
    03 FF <len hi> <len lo> <message> FE

A blank tag has no NDEF TLV, or an empty one (``03 00 FE``), or nothing but zeros.

>>> m = text_message("tc1:demo:a:1:1:ABCD")
>>> first_text(m)
'tc1:demo:a:1:1:ABCD'
>>> find_message(wrap_tlv(m) + b"\\x00" * 4) == m
True
"""

TNF_WELL_KNOWN = 1
TNF_URI_PREFIXES = ("", "http://www.", "https://www.", "http://", "https://")


class NdefError(ValueError):
    """An NDEF message or TLV that cannot be read: truncated, inconsistent or unsupported."""


def text_message(text, lang="en"):
    """One short Text record (MB|ME|SR, TNF 1, type 'T'), as a complete NDEF message."""
    lang_b = lang.encode()
    payload = bytes([len(lang_b)]) + lang_b + text.encode()
    if len(payload) > 255:
        raise NdefError("text of %d bytes is too long for a short record" % len(payload))
    return bytes([0xD1, 1, len(payload)]) + b"T" + payload


def parse(message):
    """``[(tnf, type, id, payload), ...]``; NdefError if the bytes are not a whole message."""
    message = bytes(message)
    records = []
    i = 0
    n = len(message)
    if n == 0:
        raise NdefError("the NDEF message is empty")
    while i < n:
        hdr = message[i]
        mb, me, sr, il = hdr & 0x80, hdr & 0x40, hdr & 0x10, hdr & 0x08
        tnf = hdr & 0x07
        if hdr & 0x20:
            raise NdefError("chunked NDEF records are not supported")
        if not records and not mb:
            raise NdefError("the first NDEF record lacks the message-begin flag")
        i += 1
        if i >= n:
            raise NdefError("NDEF record header is truncated")
        type_len = message[i]
        i += 1
        if sr:
            if i >= n:
                raise NdefError("NDEF record header is truncated")
            plen = message[i]
            i += 1
        else:
            if i + 4 > n:
                raise NdefError("NDEF record header is truncated")
            plen = (message[i] << 24) | (message[i + 1] << 16) | (message[i + 2] << 8) | message[i + 3]
            i += 4
        id_len = 0
        if il:
            if i >= n:
                raise NdefError("NDEF record header is truncated")
            id_len = message[i]
            i += 1
        if i + type_len + id_len + plen > n:
            raise NdefError("NDEF record claims %d payload bytes but the message ends first"
                            % plen)
        rtype = message[i:i + type_len]
        i += type_len
        rid = message[i:i + id_len]
        i += id_len
        payload = message[i:i + plen]
        i += plen
        records.append((tnf, rtype, rid, payload))
        if me:
            if i != n:
                raise NdefError("bytes follow the last NDEF record")
            return records
    raise NdefError("the NDEF message has no message-end flag")


def record_text(tnf, rtype, payload):
    """The text of a Text record or the URI of a URI record, else None."""
    if tnf != TNF_WELL_KNOWN:
        return None
    if rtype == b"T":
        if not payload:
            raise NdefError("empty Text record")
        status = payload[0]
        if status & 0x80:
            raise NdefError("UTF-16 Text records are not supported")
        lang_len = status & 0x3F
        if 1 + lang_len > len(payload):
            raise NdefError("Text record language code is truncated")
        try:
            return bytes(payload[1 + lang_len:]).decode()
        except Exception:
            raise NdefError("Text record is not valid UTF-8")
    if rtype == b"U":
        if not payload:
            raise NdefError("empty URI record")
        code = payload[0]
        prefix = TNF_URI_PREFIXES[code] if code < len(TNF_URI_PREFIXES) else ""
        try:
            return prefix + bytes(payload[1:]).decode()
        except Exception:
            raise NdefError("URI record is not valid UTF-8")
    return None


def first_text(message):
    """Text of the first Text or URI record of a message, or None if it has neither."""
    for tnf, rtype, _rid, payload in parse(message):
        text = record_text(tnf, rtype, payload)
        if text is not None:
            return text
    return None


def wrap_tlv(message):
    """The bytes to write to user memory (page 4 on): NDEF TLV + terminator TLV."""
    n = len(message)
    if n < 0xFF:
        head = bytes([0x03, n])
    elif n <= 0xFFFE:
        head = bytes([0x03, 0xFF, n >> 8, n & 0xFF])
    else:
        raise NdefError("NDEF message too long for a Type 2 tag")
    return head + bytes(message) + b"\xFE"


def tlv_length_needed(memory):
    """How many bytes of user memory must be read to hold the whole NDEF TLV, given the
    bytes read so far; None once enough is there (or there is no NDEF TLV)."""
    i = 0
    n = len(memory)
    while i < n:
        t = memory[i]
        if t == 0x00:          # NULL TLV
            i += 1
            continue
        if t == 0xFE:          # terminator
            return None
        if i + 1 >= n:
            return i + 4
        ln = memory[i + 1]
        hl = 2
        if ln == 0xFF:
            if i + 3 >= n:
                return i + 4
            ln = (memory[i + 2] << 8) | memory[i + 3]
            hl = 4
        end = i + hl + ln
        if t == 0x03:
            return end if end > n else None
        if end > n:
            return end + 2
        i = end
    return None


def find_message(memory):
    """The NDEF message in a Type 2 tag's user memory; None for a blank tag (no NDEF TLV, an
    empty one, or all zeros); NdefError for a TLV that runs off the end or makes no sense."""
    memory = bytes(memory)
    i = 0
    n = len(memory)
    while i < n:
        t = memory[i]
        if t == 0x00:
            i += 1
            continue
        if t == 0xFE:
            return None
        if i + 1 >= n:
            raise NdefError("TLV header is truncated")
        ln = memory[i + 1]
        hl = 2
        if ln == 0xFF:
            if i + 3 >= n:
                raise NdefError("TLV header is truncated")
            ln = (memory[i + 2] << 8) | memory[i + 3]
            hl = 4
        start = i + hl
        if start + ln > n:
            raise NdefError("TLV claims %d bytes but only %d were read" % (ln, n - start))
        if t == 0x03:
            return memory[start:start + ln] if ln else None
        if t not in (0x01, 0x02, 0xFD):
            raise NdefError("unknown TLV type 0x%02X" % t)
        i = start + ln
    return None


def is_blank(memory):
    """True when user memory holds no NDEF message (and is not damaged)."""
    return find_message(memory) is None
