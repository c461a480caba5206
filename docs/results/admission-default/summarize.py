#!/usr/bin/env python3
"""summarize.py <dir>: admission on / off per row from on-off.sh's JSON, as a Markdown table.

For each row (benchmark, cache type, entries, threads) and round: on/off = ops/s with TinyLFU over
ops/s without, both from the same round; the table gives the rounds' ratios (min..max), the
median ops/s of each side, and the allocation (B/op, the largest of the round) of each side."""
import glob, json, os, re, statistics, sys, collections

d = sys.argv[1]
rows = collections.defaultdict(lambda: collections.defaultdict(dict))
for f in sorted(glob.glob(os.path.join(d, '*.json'))):
    kind, side, rnd = re.match(r'(\w+)-(on|off)-(\d+)\.json', os.path.basename(f)).groups()
    try:
        runs = json.load(open(f))
    except ValueError:
        continue  # a run still writing, or one that failed (its .log says why)
    for r in runs:
        p = r.get('params', {})
        bench = r['benchmark'].rsplit('.', 1)[1]
        table = p.get('table') or p.get('cache', '').replace('-none', '').replace('clockwork-', '')
        key = (kind, bench, table, p.get('entries', p.get('valueBytes', '')))
        gc = r.get('secondaryMetrics', {}).get('gc.alloc.rate.norm', {}).get('score', float('nan'))
        rows[key][rnd][side] = (r['primaryMetric']['score'], gc)
print('| benchmark | type | entries / value | on / off (rounds) | median | off, M ops/s | on, M ops/s'
      ' | B/op off / on |')
print('|---|---|---|---|---:|---:|---:|---|')
for key in sorted(rows):
    rs = [v for v in rows[key].values() if 'on' in v and 'off' in v]
    if not rs:
        continue
    ratios = [v['on'][0] / v['off'][0] for v in rs]
    off = statistics.median(v['off'][0] for v in rs) / 1e6
    on = statistics.median(v['on'][0] for v in rs) / 1e6
    boff = max(v['off'][1] for v in rs)
    bon = max(v['on'][1] for v in rs)
    rng = ' / '.join(f'{x:.2f}' for x in ratios)
    med = statistics.median(ratios)
    print(f'| {key[0]} {key[1]} | {key[2]} | {key[3]} | {rng} | {med:.2f} | {off:.2f} | {on:.2f}'
          f' | {boff:.3f} / {bon:.3f} |')
