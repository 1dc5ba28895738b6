"""Firmware test cases that run under BOTH CPython (pytest, test_firmware_cpython.py) and the
MicroPython unix port (run_fw_cases.py, driven by test_firmware_micropython.py).

Plain functions named ``case_*`` with asserts; no pytest, no dataclasses, no f-string tricks.
Time is a SimClock: nothing here sleeps.
"""
import json

from firmware import app as app_mod
from firmware import gm65, ndef, pn532
from firmware import protocol as p
from firmware.compat import SimClock, from_hex, to_hex
from firmware.fakes import (FakeBeeper, FakeGM65Bus, FakeLed, FakePN532Bus, FakeTag,
                            FakeUsb)

_vectors = None


def vectors():
    global _vectors
    if _vectors is None:
        import firmware
        path = firmware.__file__.replace("\\", "/").rsplit("/", 1)[0] + "/vectors.json"
        with open(path) as f:
            _vectors = json.load(f)
    return _vectors


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        return e
    raise AssertionError("%s was not raised" % exc.__name__)


def kinds(items):
    out = []
    for x in items:
        out.append(("frame:" if isinstance(x, p.Frame) else "error:") + x.kind)
    return out


# --- protocol ---------------------------------------------------------------------------------

def case_crc16_vectors():
    for v in vectors()["crc16"]:
        assert "%04X" % p.crc16(v["data"].encode()) == v["crc"], v


def case_encode_golden_frames_exactly():
    for v in vectors()["frames"]:
        got = p.encode(v["kind"], v["seq"], v["body"])
        assert got == v["line"].encode(), (v["name"], got)


def case_decode_golden_frames():
    for v in vectors()["frames"]:
        d = p.Decoder()
        out = d.feed(v["line"].encode())
        assert len(out) == 1 and isinstance(out[0], p.Frame), (v["name"], out)
        f = out[0]
        assert f.kind == v["kind"] and f.seq == v["seq"] and f.body == v["body"], v["name"]
        assert d.errors == 0


def case_bad_vectors_give_their_error():
    for v in vectors()["bad"]:
        d = p.Decoder()
        out = d.feed(v["line"].encode())
        assert kinds(out) == ["error:" + v["error"]], (v["name"], kinds(out))
        assert d.counts[v["error"]] == 1
    for v in vectors()["bad_hex"]:
        out = p.Decoder().feed(from_hex(v["hex"]))
        assert kinds(out) == ["error:" + v["error"]], (v["name"], kinds(out))


def case_stream_with_garbage_resyncs():
    s = vectors()["stream"]
    data = from_hex(s["hex"])
    assert kinds(p.Decoder().feed(data)) == s["expect"]
    d = p.Decoder()
    out = []
    for i in range(len(data)):             # one byte at a time: same result
        out += d.feed(data[i:i + 1])
    assert kinds(out) == s["expect"]


def case_overlong_line_is_dropped_then_frames_resume():
    d = p.Decoder(max_line=64)
    good = p.encode("hb", 1, {"up": 1})
    out = d.feed(b"x" * 200)
    assert kinds(out) == ["error:overlong"]
    out = d.feed(b"yyyy\n" + good)
    assert kinds(out) == ["error:garbage", "frame:hb"], kinds(out)
    out = d.feed(b"z" * 100 + good)         # long garbage, then a frame on the same line
    assert kinds(out)[-1] == "frame:hb", kinds(out)


def case_encoder_refuses_bad_arguments():
    raises(ValueError, p.encode, "BAD", 1, {})
    raises(ValueError, p.encode, "hb", 70000, {})
    raises(TypeError, p.encode, "hb", 1, {"x": 1.5})
    raises(ValueError, p.encode, "hb", 1, {"x": "a" * 3000})


def case_seq_counter_wraps_and_gaps():
    c = p.SeqCounter(65534)
    assert [c.next(), c.next(), c.next()] == [65534, 65535, 0]
    assert p.seq_gap(65535, 0) == 0
    assert p.seq_gap(3, 6) == 2


# --- NDEF -------------------------------------------------------------------------------------

def case_ndef_text_vectors():
    for v in vectors()["ndef"]:
        m = ndef.text_message(v["text"])
        assert to_hex(m) == v["message"], v
        assert ndef.first_text(m) == v["text"]


def case_ndef_tlv_vectors():
    for v in vectors()["tlv"]:
        mem = from_hex(v["memory"])
        if v.get("error"):
            raises(ndef.NdefError, ndef.find_message, mem)
        else:
            got = ndef.find_message(mem)
            assert (to_hex(got) if got else None) == v["message"], v["name"]


def case_ndef_rejects_damaged_messages():
    m = ndef.text_message("tc1:x")
    for bad in (m[:-2], m[:2], b"\x11\x01\x01T\x02", m + b"\x00"):
        raises(ndef.NdefError, ndef.parse, bad)
    raises(ndef.NdefError, ndef.text_message, "x" * 300)


# --- PN532 ------------------------------------------------------------------------------------

def case_pn532_frame_bytes_match_the_manual():
    # GetFirmwareVersion, PN532 User Manual 7.2.2
    assert pn532.build_frame(0x02) == from_hex("0000FF02FED4022A00")
    frames, rest = pn532.parse_frames(from_hex("0000FF00FF00" + "0000FF06FAD50332010607E800"))
    assert frames == ["ack", from_hex("D50332010607")], frames
    raises(pn532.PN532FrameError, pn532.parse_frames, from_hex("0000FF06FAD50332010607E900"))


def _nfc(tag=None):
    bus = FakePN532Bus(tag)
    clock = SimClock()
    return pn532.PN532(bus, clock=clock), bus, clock


def case_pn532_firmware_version_and_poll():
    chip, bus, _ = _nfc()
    chip.wakeup()
    assert chip.firmware_version() == (0x32, 1, 6, 7)
    assert chip.poll() is None
    tag = FakeTag(b"\x04\x01\x02\x03\x04\x05\x06")
    bus.place(tag)
    assert chip.poll() == b"\x04\x01\x02\x03\x04\x05\x06"


def case_pn532_reads_and_writes_user_memory():
    msg = ndef.text_message("tc1:trade-warz:export-014:2:2024.11:42E1")
    tag = FakeTag(b"\x04\x01\x02\x03\x04\x05\x06")
    chip, bus, _ = _nfc(tag)
    chip.poll()
    assert ndef.is_blank(chip.read_ndef_area())
    chip.write_user(ndef.wrap_tlv(msg))
    assert ndef.find_message(chip.read_ndef_area()) == msg
    assert bus.writes == (len(ndef.wrap_tlv(msg)) + 3) // 4


def case_pn532_timeout_does_not_hang():
    chip, bus, clock = _nfc()
    bus.silent = True
    e = raises(pn532.PN532Timeout, chip.firmware_version)
    assert "200 ms" in str(e)
    assert clock.t >= 200


def case_pn532_corrupt_answer_is_detected():
    chip, bus, _ = _nfc()
    bus.corrupt = 1
    raises(pn532.PN532FrameError, chip.firmware_version)
    assert chip.firmware_version()[0] == 0x32      # the next command works again


# --- GM65 -------------------------------------------------------------------------------------

def case_gm65_codes_and_overflow():
    bus = FakeGM65Bus()
    qr = gm65.GM65(bus, max_len=16)
    assert qr.poll() is None
    bus.inject(b"abc")
    assert qr.poll() is None                    # no suffix yet
    bus.inject(b"def\r\n")
    assert qr.poll() == b"abcdef"
    assert qr.poll() is None                    # the LF of CR LF is not a second code
    bus.inject(b"x" * 40)
    assert qr.poll() is None
    bus.inject(b"yy\r")
    raises(gm65.QROverflow, qr.poll)
    bus.show(b"ok")
    assert qr.poll() == b"ok"
    assert gm65.zone_write_frame(0x0000, b"\x01") == from_hex("7E0008010000" + "01ABCD")
    qr.write_zone(0x0000, b"\x01")
    assert qr.read_reply()


# --- the app ----------------------------------------------------------------------------------

class Rig:
    def __init__(self, nfc=True, qr=True, silent_nfc=False):
        self.clock = SimClock(1000)
        self.usb = FakeUsb()
        self.nfc_bus = FakePN532Bus()
        self.nfc_bus.silent = silent_nfc
        self.qr_bus = FakeGM65Bus()
        self.beeper = FakeBeeper()
        self.led = FakeLed()
        self.app = app_mod.ReaderApp(
            self.usb, nfc=pn532.PN532(self.nfc_bus, clock=self.clock) if nfc else None,
            qr=gm65.GM65(self.qr_bus) if qr else None, beeper=self.beeper, led=self.led,
            clock=self.clock, reader_id="T1")
        self.decoder = p.Decoder()
        self.app.start()

    def frames(self):
        out = self.decoder.feed(self.usb.take())
        for x in out:
            assert isinstance(x, p.Frame), x     # the reader only ever sends valid frames
        return out

    def step(self, ms=10):
        self.clock.advance(ms)
        self.app.step()
        return self.frames()

    def command(self, kind, seq, body):
        self.usb.send(p.encode(kind, seq, body))
        return self.step()


def case_app_says_hello_with_capabilities():
    r = Rig()
    f = r.frames()
    assert [x.kind for x in f] == ["hello"]
    assert f[0].body["caps"] == ["nfc", "ndef-write", "qr", "beep", "led"]
    assert f[0].body["proto"] == 1 and f[0].body["id"] == "T1"
    r2 = Rig(nfc=False)
    assert r2.frames()[0].body["caps"] == ["qr", "beep", "led"]


def case_app_reports_a_tag_once_while_it_stays():
    r = Rig()
    r.frames()
    text = "tc1:trade-warz:export-014:2:2024.11:42E1"
    tag = FakeTag(b"\x04\x0A\x0B\x0C\x0D\x0E\x0F", ndef.wrap_tlv(ndef.text_message(text)))
    r.nfc_bus.place(tag)
    f = r.step()
    assert [x.kind for x in f] == ["scan"]
    b = f[0].body
    assert b["src"] == "nfc" and b["uid"] == "040A0B0C0D0E0F"
    assert ndef.first_text(from_hex(b["ndef"])) == text
    for _ in range(20):                         # resting on the reader: no repeats
        assert [x for x in r.step(10) if x.kind == "scan"] == []
    r.nfc_bus.remove()
    r.step(100)
    r.step(400)                                 # away longer than ABSENT_MS
    r.nfc_bus.place(tag)
    assert [x.kind for x in r.step()] == ["scan"]


def case_app_blank_and_damaged_tags():
    r = Rig()
    r.frames()
    r.nfc_bus.place(FakeTag(b"\x04\x00\x00\x00\x00\x00\x01"))
    b = r.step()[0].body
    assert b["ndef"] == "" and "bad" not in b
    damaged = FakeTag(b"\x04\x00\x00\x00\x00\x00\x02", from_hex("03FF0FFFD101"))
    r.nfc_bus.place(damaged)
    b = r.step()[0].body
    assert b["ndef"] == "" and b["bad"].startswith("damaged tag"), b


def case_app_tag_leaving_mid_read_is_an_error_then_read_again():
    r = Rig()
    r.frames()
    r.nfc_bus.fail_reads = 1
    r.nfc_bus.place(FakeTag(b"\x04\x00\x00\x00\x00\x00\x03"))
    f = r.step()
    assert [x.kind for x in f] == ["err"] and f[0].body["kind"] == "nfc-read"
    f = r.step()
    assert [x.kind for x in f] == ["scan"]


def case_app_qr_scan_and_overflow():
    r = Rig()
    r.frames()
    r.qr_bus.show(b"tc1:demo:a:1:1:D0B6")
    f = r.step()
    assert f[0].kind == "scan" and from_hex(f[0].body["data"]) == b"tc1:demo:a:1:1:D0B6"
    r.qr_bus.inject(b"q" * 600)
    r.step()
    r.qr_bus.inject(b"\r")
    f = r.step()
    assert f[0].kind == "err" and f[0].body["kind"] == "qr-overflow"


def case_app_heartbeat_every_second():
    r = Rig()
    r.frames()
    seen = []
    for _ in range(35):
        seen += [x for x in r.step(100) if x.kind == "hb"]
    assert len(seen) == 3, seen
    assert seen[0].body["up"] >= 1000
    seqs = [x.seq for x in seen]
    assert seqs == sorted(seqs)


def case_app_commands():
    r = Rig()
    r.frames()
    f = r.command("who", 0, {})
    assert [x.kind for x in f] == ["hello"]
    f = r.command("beep", 1, {"ms": 80, "n": 2})
    assert f[0].kind == "ack" and f[0].body["re"] == 1 and f[0].body["ok"] is True
    assert r.beeper.beeps == [(80, 2)]
    f = r.command("led", 2, {"rgb": "00FFFF"})
    assert f[0].body["ok"] is True and r.led.colours == [(0, 255, 255)]
    f = r.command("led", 3, {"rgb": "zz"})
    assert f[0].body["ok"] is False and "RRGGBB" in f[0].body["detail"]
    f = r.command("beep", 4, {"ms": 0})
    assert f[0].body["ok"] is False
    f = r.command("dance", 5, {})
    assert f[0].body["ok"] is False and "unknown command" in f[0].body["detail"]


def case_app_survives_garbage_from_the_hub():
    r = Rig()
    r.frames()
    r.usb.send(b"\x00\x01\x02\xff@@@TC1 9 beep {\"ms\":5}*0000\n" + bytes(range(256)) + b"\n")
    f = r.step()
    assert [x.kind for x in f] and all(x.kind == "err" for x in f), f
    assert r.app.errors == len(f)
    f = r.command("beep", 10, {"ms": 5})
    assert f[0].kind == "ack" and f[0].body["ok"] is True


def case_app_writes_a_blank_tag():
    r = Rig()
    r.frames()
    code = "tc1:demo:a:1:1:D0B6"
    r.command("write", 7, {"ndef": to_hex(ndef.text_message(code)), "ms": 5000})
    tag = FakeTag(b"\x04\x00\x00\x00\x00\x00\x04")
    r.nfc_bus.place(tag)
    f = r.step()
    assert [x.kind for x in f] == ["ack"], f      # a write is not also a scan
    b = f[0].body
    assert b["re"] == 7 and b["ok"] is True and b["uid"] == "04000000000004"
    assert ndef.first_text(ndef.find_message(tag.user())) == code


def case_app_refuses_to_overwrite_and_times_out():
    r = Rig()
    r.frames()
    used = FakeTag(b"\x04\x00\x00\x00\x00\x00\x05", ndef.wrap_tlv(ndef.text_message("keep me")))
    r.command("write", 8, {"ndef": to_hex(ndef.text_message("new")), "ms": 5000})
    r.nfc_bus.place(used)
    b = r.step()[0].body
    assert b["ok"] is False and "not blank" in b["detail"]
    assert ndef.first_text(ndef.find_message(used.user())) == "keep me"
    r.nfc_bus.remove()
    r.command("write", 9, {"ndef": to_hex(ndef.text_message("new")), "ms": 500})
    f = r.step(600)
    assert f[0].kind == "ack" and f[0].body["ok"] is False and f[0].body["re"] == 9
    f = r.command("write", 10, {"ndef": "D1"})
    assert f[0].body["ok"] is False and "NDEF" in f[0].body["detail"]


def case_app_keeps_going_without_nfc_chip():
    r = Rig(silent_nfc=True)
    f = r.frames()
    assert [x.kind for x in f] == ["err", "hello"]
    assert f[0].body["kind"] == "nfc-init"
    r.qr_bus.show(b"still works")
    assert r.step()[0].kind == "scan"


# --- main.py, with tests/firmware/fakeboard/machine.py standing in for the board --------------

def case_main_builds_the_board_and_runs():
    import machine
    from firmware import main
    a = main.build(usb=FakeUsb())          # the real UsbCdc would take over the test's stdin
    assert machine.made["uart"][0].config == (0, 115200, 0, 1)
    assert machine.made["uart"][1].config == (1, 9600, 4, 5)
    assert a.reader_id == "E6614103E7452D2F"
    assert a.caps() == ["nfc", "ndef-write", "qr", "beep", "led"]
    a.start()
    d = p.Decoder()
    f = d.feed(a.usb.take())
    assert [x.kind for x in f] == ["hello"], f
    assert f[0].body["id"] == "E6614103E7452D2F"
    machine.made["uart"][1].show(b"tc1:demo:a:1:1:D0B6")
    a.step()
    f = d.feed(a.usb.take())
    assert f[0].kind == "scan" and f[0].body["src"] == "qr"
    a.usb.send(p.encode("beep", 1, {"ms": 5000, "n": 1}))
    a.step()
    buzzer = machine.made["pwm"][main.BUZZER_PIN]
    assert buzzer.hz == main.BUZZER_HZ and buzzer.duties[-1] == 32768     # switched on
    a.usb.send(p.encode("led", 2, {"rgb": "FF8000"}))
    a.step()
    assert [machine.made["pwm"][n].duties[-1] for n in main.LED_PINS] == [65535, 32896, 0]


def case_main_loop_guards_ctrl_c_and_stops_on_bootsel():
    import micropython
    from firmware import main
    presses = []

    def stop():
        presses.append(1)
        return len(presses) >= 3                # BOOTSEL seen on the third check

    usb = FakeUsb()
    app = main.main(grace_ms=0, stop=stop, usb=usb, idle_ms=0)
    assert len(presses) == 3
    assert [f.kind for f in p.Decoder().feed(usb.take())][:1] == ["hello"]
    if hasattr(micropython, "interrupt_char"):           # the CPython stand-in records it
        assert micropython.interrupt_char == 3           # Ctrl-C given back at the end
