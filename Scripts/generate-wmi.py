#!/usr/bin/env python3
"""Regenerates Sources/VinyardKit/Validation/WMIData.swift, the offline WMI table of the VIN decoder.

Data sources:
  * NHTSA vPIC (Product Information Catalog and Vehicle Listing, US government data, public domain),
    as extracted into the SQLite file `vin/vehicle.db` shipped by the MIT-licensed PyPI package `vin`
    (https://pypi.org/project/vin/). Tables used: wmi, manufacturer, make, pattern, make_model.
  * Scripts/wmi-supplement.tsv: WMIs of makers that never filed with NHTSA (Europe, Asia), and
    primary-make corrections, compiled by the Vinyard authors (see that file's header).

Usage:
  pip download --no-deps vin==0.6.2 -d /tmp/vinpkg
  python3 Scripts/generate-wmi.py /tmp/vinpkg/vin-0.6.2-py3-none-any.whl
  (a path to vehicle.db works too)

Output: two compact string literals, parsed lazily by WMITable.swift:
  * table: `WMI|manufacturer|make1,make2,...|country|flags` per line (primary make first; flag H marks
    makers of heavy trucks, buses, trailers and motorcycles, to which the position-7 model-year rule
    does not apply). WMIs are three
    characters, or six for low-volume makers (positions 1-3 and 12-14 when position 3 is `9`).
  * rules: `WMI|vds pattern|from-to|make` per line, only for WMIs that vPIC shows used by more than one
    make. The pattern is vPIC's regular expression over positions 4-8, `|`, positions 10-17, limited to
    `.`, literals and `[...]` classes with ranges; the decoder votes among matching rules.
"""
import collections
import os
import re
import sqlite3
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources", "VinyardKit", "Validation", "WMIData.swift")
SUPPLEMENT = os.path.join(ROOT, "Scripts", "wmi-supplement.tsv")

# vPIC make spellings -> the common canonical spelling used by Vinyard.
CANONICAL = {
    "Rolls Royce": "Rolls-Royce",
    "smart": "Smart",
    "HMC": "Hyundai",
    "Korando": "SsangYong",
    "Autocar Ltd": "Autocar",
    "Autocar Industries": "Autocar",
    "Karma Automotive LLC": "Karma",
    "Seagrave ": "Seagrave",
    "Nikola ": "Nikola",
    "Automobili Pininfarina": "Pininfarina",
    "Volvo Truck": "Volvo Trucks",
    "Sprinter (Dodge or Freightliner)": "Sprinter",
    "Whitegmc": "White GMC",
    "Th!nk": "Think",
    "FF": "Faraday Future",
    "RUF": "Ruf",
}


# Truck makers whose vehicles are mostly over 10,000 lb GVWR: the North American position-7 model-year
# rule (49 CFR 565.15) does not apply to them.
# vPIC vehicle types without the position-7 rule: motorcycle, bus, trailer, low-speed, incomplete, off-road.
NO_POSITION7_TYPES = {1, 5, 6, 9, 10, 13}

HEAVY_MAKES = {
    "Freightliner", "Kenworth", "Peterbilt", "Mack", "Western Star", "Sterling Truck", "Volvo Trucks", "Hino",
    "International", "Autocar", "Blue Bird", "White", "Marmon Motor Co", "American LaFrance", "E-One",
    "Capacity Trucks", "Terex Advance Mixer", "UD", "Mitsubishi Fuso", "Superior Coaches", "Scammell",
    "Oshkosh", "Kalmar Industries LLC", "Rainier Truck and Chassis", "Lion Electric Manufacturing USA Inc.",
    "Xos", "Ukeycheyma", "Terberg Benschop B.V.", "Kubvan", "Utilimaster Motor Corporation",
}


def canonical(make):
    if make is None:
        return None
    make = make.strip()
    if not make:
        return None
    return CANONICAL.get(make, make)


def clean(text):
    text = (text or "").replace("|", "/").replace("\n", " ").replace('"""', "")
    return re.sub(r"\s+", " ", text).strip()


def open_db(path):
    if path.endswith(".whl") or path.endswith(".zip"):
        tmp = tempfile.mkdtemp()
        with zipfile.ZipFile(path) as z:
            z.extract("vin/vehicle.db", tmp)
        path = os.path.join(tmp, "vin", "vehicle.db")
    return sqlite3.connect(path)


SIMPLE_PATTERN = re.compile(r"^(?:\.|[A-Z0-9*|]|\[[A-Z0-9-]+\])+$")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    db = open_db(sys.argv[1])
    version = db.execute("select version, released from vpic_version").fetchone()

    entries = {}  # wmi -> [manufacturer, [makes], country, flags]
    for code, manufacturer, make, country, vtype, ttype in db.execute(
        "select w.code, m.name, k.name, w.country, w.vehicle_type_id, w.truck_type_id from wmi w "
        "join manufacturer m on m.id = w.manufacturer_id left join make k on k.id = w.make_id order by w.code"
    ):
        makes = [canonical(make)] if canonical(make) else []
        # Position 7 tells the model-year cycle only for passenger cars, MPVs and light trucks: not for
        # heavy trucks, motorcycles, buses, trailers, low-speed, incomplete or off-road vehicles.
        heavy = (vtype == 3 and (ttype == 2 or canonical(make) in HEAVY_MAKES)) or vtype in NO_POSITION7_TYPES
        entries[code] = [clean(manufacturer), makes, country or "", "H" if heavy else ""]

    # Makes seen in vPIC's VDS patterns, most frequent first (after the WMI's own make).
    pattern_makes = collections.defaultdict(collections.Counter)
    rules = collections.defaultdict(dict)  # wmi -> {(vds, make): [from, to]}
    for wmi, vds, make, y0, y1 in db.execute(
        "select p.wmi, p.vds, k.name, p.from_year, p.to_year from pattern p "
        "join make_model mm on mm.model_id = p.model_id join make k on k.id = mm.make_id"
    ):
        make = canonical(make)
        if not make:
            continue
        pattern_makes[wmi][make] += 1
        if SIMPLE_PATTERN.match(vds):
            key = (vds, make)
            span = rules[wmi].setdefault(key, [y0, y1])
            span[0], span[1] = min(span[0], y0), max(span[1], y1)
    for wmi, counter in pattern_makes.items():
        if wmi not in entries:
            continue
        makes = entries[wmi][1]
        if not makes:
            makes.append(counter.most_common(1)[0][0])
        for make, _ in counter.most_common():
            if make not in makes:
                makes.append(make)

    with open(SUPPLEMENT, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            code, manufacturer, makes, country = fields[:4]
            flags = fields[4] if len(fields) > 4 else ""
            makes = [canonical(m) for m in makes.split(",") if m.strip()]
            if code in entries:
                old = entries[code]
                merged = makes + [m for m in old[1] if m not in makes]
                entries[code] = [clean(manufacturer) or old[0], merged, country or old[2], flags or old[3]]
            else:
                entries[code] = [clean(manufacturer), makes, country, flags]

    table_lines = []
    for code in sorted(entries):
        manufacturer, makes, country, flags = entries[code]
        if not makes:
            continue  # vPIC names no make at all: no use to the decoder
        table_lines.append(f"{code}|{manufacturer}|{','.join(clean(m) for m in makes)}|{country}|{flags}")

    rule_lines = []
    for wmi in sorted(rules):
        if wmi not in entries or len({make for (_, make) in rules[wmi]}) < 2:
            continue
        for (vds, make), (y0, y1) in sorted(rules[wmi].items()):
            rule_lines.append(f"{wmi}|{vds}|{y0}-{min(y1, 2999)}|{make}")

    with open(OUT, "w", encoding="utf-8") as out:
        out.write(
            "// GENERATED by Scripts/generate-wmi.py; do not edit by hand.\n"
            f"// Source: NHTSA vPIC {version[0]} ({version[1]}), US government data (public domain), as\n"
            "// extracted by the PyPI package `vin` 0.6.2 (MIT), plus Scripts/wmi-supplement.tsv.\n"
            f"// {len(table_lines)} WMIs, {len(rule_lines)} make rules.\n\n"
            "enum WMIData {\n"
            "    /// `WMI|manufacturer|makes (primary first)|ISO country|flags`, one per line; flag `H`: no position-7 model-year rule (heavy trucks, buses, trailers, motorcycles), `P`: the country is the plant's (wins over the ISO 3780 range).\n"
            '    static let table = #"""\n'
        )
        out.write("\n".join(table_lines))
        out.write(
            '\n"""#\n\n'
            "    /// `WMI|vPIC VDS pattern|first-last model year|make`, for WMIs shared by several makes.\n"
            '    static let rules = #"""\n'
        )
        out.write("\n".join(rule_lines))
        out.write('\n"""#\n}\n')
    print(f"wrote {OUT}: {len(table_lines)} WMIs, {len(rule_lines)} rules")


if __name__ == "__main__":
    main()
