#!/usr/bin/env python3
"""How much of the runs' spread the schedule explains: busy instructions per
client frame against the compositor's context switches and EVENTFD calls
(commits whose acquire point was not signalled yet) per client frame, a
least-squares fit over the explicit-sync runs of runs.csv on one kernel
(the conditions named base are the base kernel's and are left out).

  schedule.py runs.csv"""
import csv
import statistics
import sys


def solve(a, b):
    """Gaussian elimination for the small normal equations."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r['sync'] == 'explicit' and r['condition'] != 'base']
y = [float(r['busy']) for r in rows]
xs = [[1.0, float(r['ctxsw']), float(r['eventfd'])] for r in rows]
ata = [[sum(x[i] * x[j] for x in xs) for j in range(3)] for i in range(3)]
aty = [sum(x[i] * v for x, v in zip(xs, y)) for i in range(3)]
b = solve(ata, aty)
pred = [sum(bi * xi for bi, xi in zip(b, x)) for x in xs]
res = [v - p for v, p in zip(y, pred)]
ss = sum((v - statistics.mean(y)) ** 2 for v in y)
print('runs %d; busy = %.0f + %.0f x switches/frame + %.0f x eventfd/frame; R^2 %.2f; '
      'sd of busy %.1f, of the residual %.1f' % (len(y), b[0], b[1], b[2],
                                                1 - sum(r * r for r in res) / ss,
                                                statistics.stdev(y), (sum(r * r for r in res) / (len(y) - 3)) ** 0.5))
for name, i in (('switches/frame', 1), ('eventfd/frame', 2)):
    x = [row[i] for row in xs]
    print('correlation of busy with %s: %.2f' % (name, statistics.correlation(x, y)))
