#!/usr/bin/env python3
"""Ratios from ab.sh's forks: per configuration, new/base (hits-*, insert-*) or kind/priority
(kinds-*) for each round, as min..max and median, with the throughputs and B/op (-prof gc); and
the ratio of the best 1-second iterations of each side over all rounds, which load from other
processes can only lower (the least disturbed estimate on a shared machine).
Usage: docs/results/entry-kinds/ratios.py DIR (ab.sh's OUT)."""
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

out = Path(sys.argv[1])
runs = defaultdict(dict)  # label -> {(side, round): (score, B/op)}
for path in sorted(out.glob("*.json")):
    m = re.fullmatch(r"(.+)-(base|new|priority|kind)-(\d+)\.json", path.name)
    text = path.read_text().strip()
    if not m or not text:
        continue
    rows = json.loads(text)
    if len(rows) != 1:
        continue
    r = rows[0]
    alloc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score", float("nan"))
    best = max(x for fork in r["primaryMetric"]["rawData"] for x in fork)
    runs[m.group(1)][(m.group(2), int(m.group(3)))] = (r["primaryMetric"]["score"], alloc, best)

print("| configuration | ratio per round, min..max (median) | rounds | M ops/s, before -> after"
      " | best iterations, ratio | B/op before -> after (max) |")
print("|---|---|---|---|---|---|")
for label in sorted(runs):
    sides = ("priority", "kind") if label.startswith("kinds-") else ("base", "new")
    rounds = sorted({rnd for (_, rnd) in runs[label]})
    ratios, before, after, alloc_b, alloc_a, best_b, best_a = [], [], [], [], [], [], []
    for rnd in rounds:
        b, a = runs[label].get((sides[0], rnd)), runs[label].get((sides[1], rnd))
        if b and a:
            ratios.append(a[0] / b[0])
            before.append(b[0] / 1e6)
            after.append(a[0] / 1e6)
            alloc_b.append(b[1])
            alloc_a.append(a[1])
            best_b.append(b[2])
            best_a.append(a[2])
    if not ratios:
        continue
    print(f"| {label} | {min(ratios):.2f}..{max(ratios):.2f} ({statistics.median(ratios):.2f})"
          f" | {len(ratios)} | {statistics.median(before):.2f} -> {statistics.median(after):.2f}"
          f" (medians) | {max(best_b) / 1e6:.2f} -> {max(best_a) / 1e6:.2f}:"
          f" {max(best_a) / max(best_b):.2f} | {max(alloc_b):.3f} -> {max(alloc_a):.3f} |")
