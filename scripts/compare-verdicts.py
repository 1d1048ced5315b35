#!/usr/bin/env python3
"""Compare two `convoy reproduce` verdicts.json files: every figure, range, check, pass and status must match.

Usage: scripts/compare-verdicts.py OLD/verdicts.json NEW/verdicts.json

The text fields (source, claim, note) are only counted: they change when a citation or a note is reworded, which
changes no measurement. Exit status 1 when anything else differs, with each difference printed.
"""
import json
import sys

TEXT = {"source", "claim", "note"}


def main(old_path, new_path):
    old = json.load(open(old_path))
    new = json.load(open(new_path))
    if [v["id"] for v in old] != [v["id"] for v in new]:
        print("the experiments differ:", [v["id"] for v in old], [v["id"] for v in new])
        return 1
    differences = 0
    for a, b in zip(old, new):
        for key in sorted(set(a) | set(b)):
            if key not in TEXT and a.get(key) != b.get(key):
                differences += 1
                print(f"{a['id']}: {key}\n  old {json.dumps(a.get(key), ensure_ascii=False)[:400]}\n"
                      f"  new {json.dumps(b.get(key), ensure_ascii=False)[:400]}")
    texts = sum(1 for a, b in zip(old, new) for k in TEXT if a.get(k) != b.get(k))
    print(f"{len(old)} experiments; {differences} differences in figures, ranges, checks or verdicts; "
          f"{texts} text fields reworded")
    return 1 if differences else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
