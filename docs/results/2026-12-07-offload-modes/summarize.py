#!/usr/bin/env python3
"""Per-run values of the offload-modes experiments, from the raw directories
the runs wrote (docs/results/2026-12-07-offload-modes.md):

  summarize.py CONDITION=DIR... > runs.csv

DIR/bootN/ holds a boot of offload-runs.sh (runN-*) and/or of
bench/guest-ab.sh (raw/6.12/offload-icount-*). One CSV line per run:
busy instructions per client frame (the client's summary), the compositor's
context switches and EVENTFD calls per client frame in the window (syncway's
frame lines), the share of 250 ms bins' spread (the window's own noise), and
with busy-window the CPU time of syncway and of the client per frame."""
import glob
import json
import math
import os
import re
import statistics
import sys

BIN = 250_000_000


def run_values(client, syncway, window=None):
    s = json.loads(open(client).readline())
    t0, t1, frames = s['window_start_ns'], s['window_end_ns'], s['frames']
    switches = eventfd = 0
    bins = {}
    for line in open(syncway):
        d = json.loads(line)
        t = d.get('t_ns', -1)
        if not t0 <= t < t1:
            continue
        if d['type'] == 'frame':
            switches += d.get('ctxsw', 0)
            eventfd += d.get('syncobj', {}).get('eventfd', [0])[0]
        elif d['type'] == 'commit':
            bins[(t - t0) // BIN] = bins.get((t - t0) // BIN, 0) + 1
    counts = [bins.get(k, 0) for k in range((t1 - t0) // BIN)]
    # the sd a window's mean has from the spread of its 250 ms bins
    m = statistics.mean(counts)
    noise = s['busy_ns_per_frame'] * statistics.stdev(counts) / m / math.sqrt(len(counts))
    out = {'sync': s['sync'], 'window_s': (t1 - t0) / 1e9, 'frames': frames,
           'busy': s['busy_ns_per_frame'], 'ctxsw': switches / frames,
           'eventfd': eventfd / frames, 'bin_noise': noise, 'comp': '', 'client': ''}
    if window and os.path.exists(window) and os.path.getsize(window):
        w = json.loads(open(window).readline())
        a, b = w['window_start_ns'], w['window_end_ns']
        n = sum(1 for line in open(syncway) if '"type":"commit"' in line and
                a <= json.loads(line)['t_ns'] < b)
        out['comp'] = w['procs'][0]['busy_ns'] / n
        out['client'] = w['procs'][1]['busy_ns'] / n
        out['busy_bw'] = (b - a - w['idle_ns']) / n
    return out


def main():
    print('condition,boot,run,sync,window_s,frames,busy,ctxsw,eventfd,bin_noise,'
          'syncway_per_frame,client_per_frame,rest_per_frame')
    for arg in sys.argv[1:]:
        cond, top = arg.split('=', 1)
        for bdir in sorted(glob.glob(os.path.join(top, 'boot*')), key=lambda p: int(p.rsplit('boot', 1)[1])):
            boot = int(bdir.rsplit('boot', 1)[1])
            runs = []
            # guest-ab.sh's runs come first in the boot, then offload-runs.sh's
            for c in sorted(glob.glob(os.path.join(bdir, 'raw/6.12/offload-icount-*-client.jsonl'))):
                m = re.search(r'-(explicit|none)-client', c)
                runs.append(('ab-' + m.group(1), c, c.replace('-client.jsonl', '-syncway.jsonl'), None))
            for sub in ('', 'extra'):
                for c in sorted(glob.glob(os.path.join(bdir, sub, 'run*-client.jsonl')),
                                key=lambda p: int(re.search(r'run(\d+)-', p).group(1))):
                    n = re.search(r'run(\d+)-', c).group(1)
                    runs.append(('run' + n, c, c.replace('-client.jsonl', '-syncway.jsonl'),
                                 c.replace('-client.jsonl', '-window.jsonl')))
            for name, c, sw, win in runs:
                v = run_values(c, sw, win)
                rest = v['busy_bw'] - v['comp'] - v['client'] if v['comp'] != '' else ''
                fmt = lambda x: '' if x == '' else '%.1f' % x
                print('%s,%d,%s,%s,%.2f,%d,%.1f,%.4f,%.4f,%.1f,%s,%s,%s' % (
                    cond, boot, name, v['sync'], v['window_s'], v['frames'], v['busy'], v['ctxsw'],
                    v['eventfd'], v['bin_noise'], fmt(v['comp']), fmt(v['client']), fmt(rest)))


main()
