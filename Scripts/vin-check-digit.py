#!/usr/bin/env python3
"""Prints each VIN with its ISO 3779 check digit (position 9) computed, used to build Samples/.

    python3 Scripts/vin-check-digit.py WVWZZZ1KZ_W000123 ...   # '_' (or any char) at position 9
"""
import sys

VALUES = {**{str(d): d for d in range(10)},
          **dict(zip("ABCDEFGH", range(1, 9))), **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
          **dict(zip("STUVWXYZ", range(2, 10)))}
WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]


def check_digit(vin):
    total = sum(VALUES.get(c, 0) * w for c, w in zip(vin, WEIGHTS))  # position 9 weighs 0
    r = total % 11
    return "X" if r == 10 else str(r)


def with_check_digit(vin):
    vin = vin.upper()
    assert len(vin) == 17, vin
    return vin[:8] + check_digit(vin) + vin[9:]


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        fixed = with_check_digit(arg)
        print(fixed, "ok" if fixed == arg.upper() else f"(check digit {fixed[8]}, was {arg[8]})")
