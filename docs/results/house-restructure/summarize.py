#!/usr/bin/env python3
"""The table of docs/benchmarks.md's restructure section from ab-forks.sh's JSON files:
summarize.py <dir>. Per row: each build's score per fork (M ops/s), the ratio of the sums
(after / before, the forks pooled), the lowest and highest fork-by-fork ratio, and the most
B/op (gc.alloc.rate.norm) any fork of each build allocated."""
import glob
import json
import os
import sys

rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    side = 'after' if '-after-' in path else 'before'
    rnd = int(path.rsplit('-', 1)[1].split('.')[0])
    try:
        results = json.load(open(path))
    except ValueError:
        continue  # a fork still running
    for r in results:
        p = r['params']
        name = r['benchmark'].rsplit('.', 1)[1]
        shape = ' '.join(p[k] for k in ('table', 'cache', 'entries', 'valueBytes') if k in p)
        row = rows.setdefault((r['benchmark'].split('.')[-2], name, shape), {})
        alloc = r.get('secondaryMetrics', {}).get('gc.alloc.rate.norm', {}).get('score', 0.0)
        row.setdefault(side, {})[rnd] = (r['primaryMetric']['score'] / 1e6, alloc)

print('| benchmark | shape | before, M ops/s | after, M ops/s | after/before (sums) '
      '| fork ratios | B/op before / after |')
print('|---|---|---|---|---|---|---|')
pooled = []
for (bench, name, shape), row in sorted(rows.items()):
    b, a = row.get('before', {}), row.get('after', {})
    rounds = sorted(set(b) & set(a))
    if not rounds:
        continue
    ratio = sum(a[r][0] for r in rounds) / sum(b[r][0] for r in rounds)
    forks = [a[r][0] / b[r][0] for r in rounds]
    pooled.append((ratio, f'{name} {shape}'))
    fmt = lambda d: ', '.join(f'{d[r][0]:.2f}' for r in rounds)
    print(f'| `{bench}.{name}` | {shape} | {fmt(b)} | {fmt(a)} | **{ratio:.3f}** '
          f'| {min(forks):.2f}..{max(forks):.2f} '
          f'| {max(b[r][1] for r in rounds):.2g} / {max(a[r][1] for r in rounds):.2g} |')
if pooled:
    pooled.sort()
    print(f'\n{len(pooled)} rows; after/before (sums) {pooled[0][0]:.3f} ({pooled[0][1]}) '
          f'.. {pooled[-1][0]:.3f} ({pooled[-1][1]}); '
          f'{sum(1 for r, _ in pooled if r >= 0.98)} rows at 0.98 or more')
