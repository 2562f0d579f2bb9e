#!/usr/bin/env python3
"""Runs syncway-pacing-report on fabricated syncway --stats lines.

usage: pacing-report-check.py SYNCWAY_PACING_REPORT

Two clients with known presentation times on a 60 Hz output: one shown at
every refresh but for one skipped refresh, one paced at every second refresh
(cadence 2) with one commit dropped. The table's FPS, frame times, missed
refreshes, drops and latencies must be exactly those; the data files and the
gnuplot script must exist; bad arguments must be refused with a message.
"""
import os
import subprocess
import sys
import tempfile

import subtests
from subtests import check

REFRESH = 16666667


def fabricate(path):
    lines = ['{"type":"frame","t_ns":1,"output":"HEADLESS-1","frame":1,"presented":true,'
             '"refresh_ns":%d}' % REFRESH]
    t0 = 10_000_000_000
    # Client A (surface 1): refreshes 0..10 but 5, latency 4 ms.
    for k in [0, 1, 2, 3, 4, 6, 7, 8, 9, 10]:
        t = t0 + k * REFRESH
        lines.append('{"type":"commit","t_ns":%d,"surface":1,"seq":%d,"result":"presented",'
                     '"present_ns":4000000}' % (t - 4_000_000, k))
    # Client B (surface 2): every second refresh, latency 10 ms, one dropped.
    for k in range(0, 12, 2):
        t = t0 + k * REFRESH
        lines.append('{"type":"commit","t_ns":%d,"surface":2,"seq":%d,"result":"presented",'
                     '"present_ns":10000000}' % (t - 10_000_000, k))
    lines.append('{"type":"commit","t_ns":%d,"surface":2,"seq":99,"result":"dropped"}' % t0)
    lines.append('{"type":"surface_summary","surface":1,"app_id":"a","presented":10}')
    lines.append('{"type":"surface_summary","surface":2,"app_id":"b","presented":6}')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def run(tool, work, *specs):
    return subprocess.run([tool, os.path.join(work, 'stats.jsonl'), work, *specs],
                          capture_output=True, text=True, timeout=30)


def row(out, label):
    for line in out.splitlines():
        if line.startswith('| %s |' % label):
            return [c.strip() for c in line.strip('|').split('|')]
    raise subtests.Failure('no row for %s in:\n%s' % (label, out))


class Tool:
    def __init__(self, path, work):
        self.path, self.work = path, work


def table_has_known_answers(t):
    r = run(t.path, t.work, 'a:1:client A', 'b:2:client B')
    check(r.returncode == 0, 'exit %d: %s' % (r.returncode, r.stderr))
    a, b = row(r.stdout, 'client A'), row(r.stdout, 'client B')
    # A: 10 frames over 10 refreshes; one interval of 2 refreshes.
    check(a[1] == '%.2f' % (9 / (10 * REFRESH / 1e9)), 'A FPS %s' % a[1])
    check(a[2] == '16.67 / 33.33', 'A frame times %s' % a[2])
    check(a[4] == '1', 'A missed %s' % a[4])
    check(a[5] == '0' and a[6] == '4.00 / 4.00', 'A dropped/latency %s %s' % (a[5], a[6]))
    # B: cadence 2, so its 33 ms intervals miss nothing; one dropped.
    check(b[2] == '33.33 / 33.33' and b[3] == '0.00', 'B frame times %s jitter %s' % (b[2], b[3]))
    check(b[4] == '0' and b[5] == '1' and b[6] == '10.00 / 10.00', 'B %s' % b)
    with open(os.path.join(t.work, 'pacing-table.md')) as f:
        check(f.read() == r.stdout, 'pacing-table.md differs from stdout')


def plots_are_scripted(t):
    r = run(t.path, t.work, 'a:1:client A', 'b:2:client B')
    check(r.returncode == 0, r.stderr)
    for name in ('pacing-a.dat', 'pacing-b.dat', 'pacing.gp'):
        check(os.path.exists(os.path.join(t.work, name)), 'no %s' % name)
    with open(os.path.join(t.work, 'pacing-a.dat')) as f:
        data = [l for l in f if not l.startswith('#')]
    check(len(data) == 9, '%d intervals of A in its data file' % len(data))
    with open(os.path.join(t.work, 'pacing.gp')) as f:
        gp = f.read()
    check('pacing-frametimes.png' in gp and 'pacing-latency.png' in gp, 'plots missing')


def absent_client_is_said(t):
    r = run(t.path, t.work, 'a:1:client A', 'nobody:1:client C')
    check(r.returncode == 0, r.stderr)
    check('no surface with app id nobody' in r.stderr, 'stderr: %s' % r.stderr)
    check('| client C | 0 presented: not measured' in r.stdout, r.stdout)


def bad_specs_are_refused(t):
    for spec in ('a', 'a:0:x', 'a:1'):
        r = run(t.path, t.work, spec)
        check(r.returncode != 0 and 'syncway-pacing-report:' in r.stderr,
              '%s: exit %d, stderr %r' % (spec, r.returncode, r.stderr))


CHECKS = [table_has_known_answers, plots_are_scripted, absent_client_is_said, bad_specs_are_refused]


def main():
    with tempfile.TemporaryDirectory() as work:
        fabricate(os.path.join(work, 'stats.jsonl'))
        return subtests.run('pacing-report', CHECKS, Tool(sys.argv[1], work))


if __name__ == '__main__':
    sys.exit(main())
