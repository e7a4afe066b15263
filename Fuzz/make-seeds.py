#!/usr/bin/env python3
"""Regenerates Fuzz/seeds/: small files from Samples/ and hand-made edge cases. Each seed starts
with the harness's control byte (see Fuzz/support/FuzzSupport.swift and each harness)."""
import gzip, os, shutil, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
seeds = os.path.join(root, "Fuzz", "seeds")
shutil.rmtree(seeds, ignore_errors=True)

def sample(name, limit=3500):
    with open(os.path.join(root, "Samples", name), "rb") as f:
        data = f.read()
    if len(data) > limit:  # cut at a line end
        data = data[: data.rfind(b"\n", 0, limit) + 1]
    return data

def put(harness, name, control, payload):
    d = os.path.join(seeds, harness)
    os.makedirs(d, exist_ok=True)
    data = bytes([control]) + payload
    assert len(data) < 4096, name
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def gz(data):  # /bin/gzip, as the task asks for real gzip files
    return subprocess.run(["gzip", "-c", "-n"], input=data, capture_output=True, check=True).stdout

ALL = 0xC0  # auto encoding, one read
# csv
fleet_csv = sample("fleet.csv")
put("csv", "fleet.csv", ALL, fleet_csv)
put("csv", "fleet-1byte-reads.csv", 0x00, fleet_csv[:1500])
put("csv", "fleet-forced-semicolon.csv", ALL | 4, b";" + fleet_csv[:1500])
put("csv", "fleet-padded.csv", ALL | 8 | 16, fleet_csv[:800])
put("csv", "fleet-small-buffer.csv", 0x60 | 16, fleet_csv[:1500])
put("csv", "quotes.csv", ALL, b'a,b,c\n"x ""y"" z","multi\nline",3\n"ab"c,"",\n"open\r\n')
put("csv", "crlf-cr.csv", 0x20, b"a;b\r\n1;2\r3;4\r\n\r\n5;6")
put("csv", "ambiguous.csv", ALL, b"a,b;c\n1,2;3\n4;5,6\n")
put("csv", "cp1252.csv", ALL, b"name,city\nJos\xe9,K\xf6ln\n\x80,\x9f\n")
put("csv", "cp1252-forced.csv", ALL | 2, b"name|city\nJos\xe9|K\xf6ln\n")
put("csv", "bom-ragged.csv", ALL, b"\xef\xbb\xbfa\tb\n1\t2\t3\n4\n\n\n")
put("csv", "unterminated.csv", ALL, b'a,b\n1,"2\n3,4\n')
put("csv", "quote-at-end.csv", 0x20, b'a,b\n1,"2"')
# json
put("json", "autoscout.json", ALL, sample("autoscout.json"))
put("json", "fleet-record.json", ALL, sample("fleet-record.json"))
put("json", "locations.json", 0x20, sample("locations.json"))
put("json", "fleet.jsonl", ALL, sample("fleet.jsonl"))
put("json", "fleet-small.jsonl", 0x60 | 4, sample("fleet.jsonl")[:900])
put("json", "wrapper.json", ALL, b'{"vehicles": [{"vin": "1HGCM82633A004352"}, {"a": [1, 2.5e-3, null, true]}], "count": 2}')
put("json", "array-wrapper.json", 0x00, b'[{"data": [{"a": 1}, {"b": "x\\u00e9\\ud83d\\ude00"}]}]')
put("json", "rejects.json", ALL, b'[{"a":1}, 2, "s", [], {"b":{"c":[{}]}}]')
put("json", "escapes.json", ALL, b'{"s": "\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\ud800x\\udc00", "n": -0.0e+1}')
put("json", "cp1252.jsonl", ALL, b'{"name": "Jos\xe9"}\n\n{"bad": }\n[1]\n{"a": 1} x\n{"ok": "\xc3\xa9"}\r\n')
put("json", "deep.json", ALL | 8, b"[" + b'{"a":' * 20 + b"1" + b"}" * 20 + b"]")
put("json", "numbers.jsonl", 0x20, b'{"n": 0}\n{"n": 01}\n{"n": 1.}\n{"n": 1e}\n{"n": -}\n{"n": 123456789012345678901234567890}')
# gzip
text = sample("fleet.csv", 1500)
put("gzip", "fleet.csv.gz", ALL, sample("fleet-export.csv.gz"))
put("gzip", "small.gz", ALL, gz(b"hello, gzip\n"))
put("gzip", "multi-member.gz", 0x20 | 3, gz(b"first member\n") + gz(b"second member\n") + gz(b""))
put("gzip", "empty-member.gz", ALL, gz(b""))
put("gzip", "truncated.gz", ALL, gz(text)[:-5])
put("gzip", "trailing-garbage.gz", ALL, gz(b"abc\n") + b"\x00\x00")
put("gzip", "1byte-reads.gz", 0x00 | 1, gz(text) + gz(b"x"))
put("gzip", "stored.gz", 0x40, gzip.compress(b"stored block " * 20, compresslevel=0, mtime=0))
put("gzip", "plain.txt", ALL, b"not gzip at all")
# vin
for i, v in enumerate([b"1HGCM82633A004352", b" 1hg-cm8 2633A004352 ", b"1HGCM82633AO04352", b"11111111111111111",
                       b"WVWZZZ1JZ3W386752", b"JH4KA7561PC008269", b"1M8GDM9AXKP042788", b"SALVA2AE4EH877322",
                       b"VF1AAAAAAAA0000000", b"1HGCM8263\xc3\xa93A00435", b"YV1\xe2\x80\x93LS55A72", b"ABCDEFGHJKLMNPRST",
                       b"1ZVBP8AM5E5230000", b"", b"\t-\xc2\xa0", b"WDB12345678901234"]):
    d = os.path.join(seeds, "vin"); os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "vin%02d" % i), "wb") as f:  # the vin harness has no control byte
        f.write(v)
# mapper
put("mapper", "fleet.jsonl", ALL, sample("fleet.jsonl"))
put("mapper", "fleet.csv", ALL | 4, sample("fleet.csv"))
put("mapper", "fleet-comma.csv", (ALL | 4) + 8, sample("fleet.csv")[:1500])
put("mapper", "fleet-point.jsonl", ALL + 16, sample("fleet.jsonl")[:1200])
put("mapper", "odd-values.jsonl", ALL, b'{"vin": "1HGCM82633A004352", "year": "19x9", "lat": "91,5", "lng": 1e400, "odometer_km": "1.234,5", "make": ["a"], "registered": "31/02/2020"}\n{"vin": null, "year": -1e308, "lat": "N 52\\u00b0 21\' 17\\"", "status": {"x": 1}}\n')
put("mapper", "odd-values.csv", ALL | 4, b"VIN;Make;Model;Model Year;Odometer (km);Latitude;Longitude;First registration\n1HGCM82633A004352;;Civic;99999999999999999999;-0,5;1.234,5;abc;13/13/2013\n")
print("seeds written to", seeds)
# utf16 (control & 1: big-endian)
put("utf16", "bom-le", 0x00, b"\xff\xfe" + "VIN;Marke\r\nWBA;Grün 🚗\n".encode("utf-16-le"))
put("utf16", "be-lone-surrogate", 0x01, "vin\n".encode("utf-16-be") + b"\xd8\x3d\x00A\xde\x97")
put("utf16", "odd-byte", 0x20, "abc".encode("utf-16-le") + b"d")
