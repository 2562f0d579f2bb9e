#!/usr/bin/env python3
"""The tables of docs/results/2026-12-07-offload-modes.md from runs.csv
(summarize.py's output): per condition and kind of run, the runs' mean and
sd of busy instructions per client frame, the sd of a run around its boot's
mean (pooled), the sd of the boots' means, the sd one window's own noise
gives (250 ms bins), and the context switches per frame.

  stats.py runs.csv"""
import csv
import math
import statistics
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
groups = defaultdict(list)
for r in rows:
    kind = r['run'] if r['run'].startswith('ab-') else 'run1' if r['run'] == 'run1' else 'run2+'
    groups[(r['condition'], r['sync'], kind)].append(r)
    groups[(r['condition'], r['sync'], 'all runs')].append(r)
print('| condition | sync | runs | n | mean | sd | min – max | sd within a boot | sd of boot means '
      '| window noise | ctxsw/frame |')
print('|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|')
for (cond, sync, kind), rs in groups.items():
    v = [float(r['busy']) for r in rs]
    byboot = defaultdict(list)
    for r in rs:
        byboot[r['boot']].append(float(r['busy']))
    ss = sum((x - statistics.mean(b)) ** 2 for b in byboot.values() for x in b)
    df = sum(len(b) - 1 for b in byboot.values())
    within = '%.1f' % math.sqrt(ss / df) if df else '–'
    means = [statistics.mean(b) for b in byboot.values()]
    between = '%.1f' % statistics.stdev(means) if len(means) > 1 and df else '–'
    noise = math.sqrt(statistics.mean(float(r['bin_noise']) ** 2 for r in rs))
    cs = statistics.mean(float(r['ctxsw']) for r in rs)
    print('| %s | %s | %s | %d | %.1f | %s | %.0f – %.0f | %s | %s | %.1f | %.4f |' % (
        cond, sync, kind, len(v), statistics.mean(v), '%.1f' % statistics.stdev(v) if len(v) > 1 else '–',
        min(v), max(v), within, between, noise, cs))
