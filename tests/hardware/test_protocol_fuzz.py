"""Property-based fuzzing of the frame decoder (the one in firmware/protocol.py the hub uses)."""
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol as p

kinds = st.sampled_from(["hb", "scan", "err", "ack", "hello", "x-1", "who"])
texts = st.text(max_size=40)
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), texts)
json_value = st.recursive(json_leaf, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(texts, kids, max_size=4)), max_leaves=12)
bodies = st.dictionaries(texts, json_value, max_size=5)


def valid_frame(kind, body):
    """A body that passes its kind's schema (the fuzz is about framing, not schemas)."""
    if kind == "hb":
        body = dict(body, up=1)
    elif kind == "scan":
        body = dict(body, src="qr", data="41")
    elif kind == "err":
        body = dict(body, kind="x")
    elif kind == "ack":
        body = dict(body, re=1, ok=True)
    elif kind == "hello":
        body = dict(body, fw="1", proto=1, caps=[])
    return body


def chunked(data, cuts):
    pieces, last = [], 0
    for c in sorted(set(min(c, len(data)) for c in cuts)):
        pieces.append(data[last:c])
        last = c
    pieces.append(data[last:])
    return pieces


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.integers(0, 3000), max_size=8))
def test_no_exception_escapes_for_any_bytes(data, cuts):
    d = p.Decoder(max_line=256)
    out = []
    for piece in chunked(data, cuts):
        out += d.feed(piece)
    assert all(isinstance(x, (p.Frame, p.FrameError)) for x in out)
    assert d.errors == sum(isinstance(x, p.FrameError) for x in out)
    assert d.errors == sum(d.counts.values())
    assert len(d.buf) < 256


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=1500), st.lists(st.tuples(kinds, bodies), min_size=1, max_size=4),
       st.lists(st.integers(0, 4000), max_size=6))
def test_valid_frames_after_garbage_are_still_read(garbage, frames, cuts):
    wanted = []
    stream = garbage
    for i, (kind, body) in enumerate(frames):
        body = valid_frame(kind, body)
        try:
            line = p.encode(kind, i, body)
        except ValueError:       # too long for a frame: not a frame the firmware would send
            continue
        wanted.append(p.Frame(kind, i, body))
        stream += line
    d = p.Decoder()
    got = []
    for piece in chunked(stream, cuts):
        got += [x for x in d.feed(piece) if isinstance(x, p.Frame)]
    assert got == wanted


@settings(max_examples=300, deadline=None)
@given(kinds, bodies, st.integers(0, 65535))
def test_encode_decode_round_trip(kind, body, seq):
    body = valid_frame(kind, body)
    try:
        line = p.encode(kind, seq, body)
    except ValueError:
        return
    assert line.count(b"@") == 1 and line.endswith(b"\n") and line.isascii()
    (frame,) = p.Decoder().feed(line)
    assert frame == p.Frame(kind, seq, body)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_single_byte_change_is_caught(data):
    line = p.encode("scan", 42, {"src": "qr", "data": "7463313A78"})
    i = data.draw(st.integers(0, len(line) - 2))      # not the final newline
    b = data.draw(st.integers(0, 255).filter(lambda b: b != line[i]))
    bad = line[:i] + bytes([b]) + line[i + 1:]
    out = p.Decoder().feed(bad)
    frames = [x for x in out if isinstance(x, p.Frame)]
    # the CRC catches every single-byte change, except a case change of the check's own hex
    if frames:
        assert frames == [p.Frame("scan", 42, {"src": "qr", "data": "7463313A78"})]
        assert bad[:-6] == line[:-6] and bad[-6:].upper() == line[-6:]
