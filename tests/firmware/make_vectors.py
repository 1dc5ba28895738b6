"""Write firmware/vectors.json, the golden frames both test suites check byte for byte.

Run only when the protocol changes on purpose (and bump the version if old readers break):
    .venv/bin/python tests/firmware/make_vectors.py
The encoder must then reproduce every line exactly, under CPython and MicroPython.
"""
import json
import pathlib

from firmware import ndef, protocol as p
from firmware.compat import to_hex

OUT = pathlib.Path(__file__).resolve().parents[2] / "firmware" / "vectors.json"

frames = [
    ("hello", "hello", 0, p.hello_body("1.0.0", ["nfc", "ndef-write", "qr", "beep", "led"],
                                       "pico", "E6614103E7452D2F")),
    ("scan-nfc", "scan", 1, p.nfc_scan_body("04A1B2C3D4E5F6", to_hex(ndef.text_message(
        "tc1:trade-warz:export-014:2:2024.11:42E1")))),
    ("scan-nfc-blank", "scan", 2, p.nfc_scan_body("04112233445566", "")),
    ("scan-nfc-damaged", "scan", 3, p.nfc_scan_body("04112233445566", "",
                                                    bad="damaged tag: TLV claims 40 bytes but only 12 were read")),
    ("scan-qr", "scan", 4, p.qr_scan_body(to_hex(b"tc1:trade-warz:export-014:2:2024.11:42E1"))),
    ("heartbeat", "hb", 5, p.heartbeat_body(60000, 12, 0)),
    ("error", "err", 6, p.error_body("nfc", "the PN532 did not answer within 200 ms", 1)),
    ("ack", "ack", 7, p.ack_body(3, True, "written", uid="04A1B2C3D4E5F6")),
    ("seq-wrap", "hb", 65535, p.heartbeat_body(1, 0, 0)),
    ("escapes", "err", 8, p.error_body("frame-garbage", 'quote " backslash \\ at @ tab \t nl \n caf\u00e9')),
    ("who", "who", 0, {}),
    ("beep", "beep", 1, {"ms": 80, "n": 3}),
    ("led", "led", 2, {"rgb": "00FFFF"}),
    ("write", "write", 3, {"ndef": to_hex(ndef.text_message("tc1:demo:a:1:1:D0B6")), "ms": 10000}),
]

good = [{"name": n, "kind": k, "seq": s, "body": b, "line": p.encode(k, s, b).decode()}
        for n, k, s, b in frames]

hb = p.encode("hb", 9, {"up": 1}).decode()
bad = [
    {"name": "checksum", "line": hb.replace("*", "*F") [:-2] + "\n", "error": "checksum"},
    {"name": "bit-flip", "line": hb.replace('"up":1', '"up":3'), "error": "checksum"},
    {"name": "version-2", "line": "@TC2 1 hb {}*0000\n", "error": "version"},
    {"name": "no-star", "line": "@TC1 1 hb {}\n", "error": "malformed"},
    {"name": "bad-seq", "line": "@TC1 x hb {}*%04X\n" % p.crc16(b"TC1 x hb {}"), "error": "malformed"},
    {"name": "seq-too-big", "line": "@TC1 65536 hb {}*%04X\n" % p.crc16(b"TC1 65536 hb {}"), "error": "malformed"},
    {"name": "bad-kind", "line": "@TC1 1 HB {}*%04X\n" % p.crc16(b"TC1 1 HB {}"), "error": "malformed"},
    {"name": "not-json", "line": "@TC1 1 hb {up}*%04X\n" % p.crc16(b"TC1 1 hb {up}"), "error": "body"},
    {"name": "not-object", "line": "@TC1 1 hb [1]*%04X\n" % p.crc16(b"TC1 1 hb [1]"), "error": "body"},
    {"name": "missing-field", "line": "@TC1 1 hb {}*%04X\n" % p.crc16(b"TC1 1 hb {}"), "error": "body"},
    {"name": "scan-bad-src", "line": '@TC1 1 scan {"src":"rfid"}*%04X\n' % p.crc16(b'TC1 1 scan {"src":"rfid"}'), "error": "body"},
    {"name": "bool-as-int", "line": '@TC1 1 hb {"up":true}*%04X\n' % p.crc16(b'TC1 1 hb {"up":true}'), "error": "body"},
    {"name": "garbage-line", "line": "hello world\n", "error": "garbage"},
]
bad_bin = [
    {"name": "non-ascii", "hex": to_hex(b"@TC1 1 hb {\"up\":1\xff}*0000\n"), "error": "encoding"},
]

stream = (b"\x00\xff\xfe noise" + good[0]["line"].encode() + b"\r\n\r\n" + b"@@@" + good[4]["line"].encode()
          + b"@TC1 1 hb {}*0000\n" + good[5]["line"].encode()[:20] + b"\n" + good[7]["line"].encode())
stream_expect = ["error:garbage", "frame:hello", "error:garbage", "frame:scan", "error:checksum",
                 "error:malformed", "frame:ack"]

texts = ["tc1:trade-warz:export-014:2:2024.11:42E1", "caf\u00e9 \u2615", ""]
ndef_vectors = [{"text": t, "message": to_hex(ndef.text_message(t))} for t in texts]
msg = ndef.text_message(texts[0])
tlv_vectors = [
    {"name": "short", "memory": to_hex(ndef.wrap_tlv(msg) + b"\x00" * 3), "message": to_hex(msg)},
    {"name": "factory-blank", "memory": "0300FE00" + "00" * 12, "message": None},
    {"name": "all-zero", "memory": "00" * 16, "message": None},
    {"name": "lock-tlv-first", "memory": "0103A00C34" + to_hex(ndef.wrap_tlv(msg)), "message": to_hex(msg)},
    {"name": "long-form", "memory": "03FF0005D1010154" + "41" + "FE", "message": "D101015441"},
    {"name": "truncated", "memory": "0328D101" + "00" * 10, "message": None, "error": True},
]

data = {
    "about": "Golden vectors of the Table Companion reader protocol v1 (docs/serial-protocol.md). "
             "Shared by tests/firmware (CPython and MicroPython) and tests/hardware (hub side).",
    "crc16": [{"data": "123456789", "crc": "29B1"}, {"data": "", "crc": "FFFF"},
              {"data": "TC1 0 who {}", "crc": "%04X" % p.crc16(b"TC1 0 who {}")}],
    "frames": good,
    "bad": bad,
    "bad_hex": bad_bin,
    "stream": {"hex": to_hex(stream), "expect": stream_expect},
    "ndef": ndef_vectors,
    "tlv": tlv_vectors,
}
OUT.write_text(json.dumps(data, indent=1, ensure_ascii=True) + "\n")
print("wrote", OUT)
