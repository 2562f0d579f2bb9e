#!/usr/bin/env python3
"""Runs syncway-peers-report on fabricated probe and busy-window lines.

usage: peers-report-check.py SYNCWAY_PEERS_REPORT

Two boots of syncway, of its variant syncway-plain and of sway with one
client: a window of one second, 59 frames presented inside it (one refresh
skipped), 5 ms from commit to presentation, syncway busy 10 us per frame,
syncway-plain 15 us and sway 20 us; weston skipped. The table, the verdicts
(the spread rule under the instruction clock: syncway against every other,
the variant against the peers only), the ratios, the summary lines and the
plot script must say exactly that; bad arguments must be refused with a
message.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'unit'))
import subtests  # noqa: E402
from subtests import check  # noqa: E402

REFRESH = 16666667
T0, T1 = 10_000_000_000, 11_000_000_000


def fabricate(work):
    manifest = []
    for boot in (1, 2):
        for comp, busy, refresh in (('syncway', 590_000, REFRESH), ('syncway-plain', 885_000, REFRESH),
                                    ('sway', 1_180_000, 0)):
            base = os.path.join(work, 'b%d-%s' % (boot, comp))
            lines = ['{"type":"probe","pid":1,"clock_id":1,"presentation":true}',
                     '{"type":"request","what":"get_toplevel_decoration"}',
                     '{"type":"request","what":"decoration_set_mode","mode":2}',
                     # before the window: not counted
                     '{"type":"present","commit_ns":%d,"present_ns":%d,"refresh_ns":%d,"msc":0,"flags":0}'
                     % (T0 - 20_000_000, T0 - 15_000_000, refresh)]
            for k in range(60):
                if k == 30:
                    continue
                t = T0 + 1_000_000 + k * REFRESH
                lines.append('{"type":"present","commit_ns":%d,"present_ns":%d,"refresh_ns":%d,'
                             '"msc":%d,"flags":1}' % (t - 5_000_000, t, refresh, k))
            with open(base + '.probe.jsonl', 'w') as f:
                f.write('\n'.join(lines) + '\n')
            with open(base + '.window.jsonl', 'w') as f:
                f.write('{"type":"window","window_start_ns":%d,"window_end_ns":%d,"idle_ns":0,'
                        '"procs":[{"pid":1,"comm":"%s","threads":1,"busy_ns":%d},'
                        '{"pid":2,"comm":"c","threads":1,"busy_ns":2950000}]}\n' % (T0, T1, comp, busy))
            manifest.append({'boot': boot, 'compositor': comp, 'client': 'c',
                             'probe': base + '.probe.jsonl', 'window': base + '.window.jsonl'})
        base = os.path.join(work, 'b%d-weston' % boot)
        with open(base + '.window.jsonl', 'w') as f:
            f.write('{"type":"skip","why":"no linux-drm-syncobj-v1"}\n')
        manifest.append({'boot': boot, 'compositor': 'weston', 'client': 'c',
                         'probe': base + '.probe.jsonl', 'window': base + '.window.jsonl'})
    with open(os.path.join(work, 'manifest.jsonl'), 'w') as f:
        for m in manifest:
            f.write(json.dumps(m, separators=(',', ':')) + '\n')


def run(tool, work, *args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=30, cwd=work)


def rows(out, first):
    return [[c.strip() for c in line.strip().strip('|').split('|')]
            for line in out.splitlines() if line.startswith('| %s |' % first)]


class Tool:
    def __init__(self, path, work):
        self.path, self.work = path, work


def table_has_known_answers(t):
    r = run(t.path, t.work, 'manifest.jsonl', '.', 'icount', '60')
    check(r.returncode == 0, 'exit %d: %s' % (r.returncode, r.stderr))
    by_comp = {row[1]: row for row in rows(r.stdout, 'c') if len(row) == 10}
    sw, sway, weston = by_comp['syncway'], by_comp['sway'], by_comp['weston']
    check(sw[2] == '2' and sw[3] == '0.010 (0.010–0.010)', 'syncway cost %s' % sw)
    check(sway[3] == '0.020 (0.020–0.020)', 'sway cost %s' % sway)
    check(sw[4] == '0.050 (0.050–0.050)', 'client cost %s' % sw[4])
    check(sw[5] == '59.0 (59.0–59.0)' and sw[6] == '1.0 (1.0–1.0)', 'FPS, missed %s' % sw)
    check(sw[7] == '5.00 (5.00–5.00)' and sw[8] == '16.67', 'latency, refresh %s' % sw)
    check(sway[6] == '1.0 (1.0–1.0)' and sway[8] == '0 (interval 16.67)',
          'sway: missed at the nominal refresh %s' % sway)
    check(sw[9] == '0, 2 (asked server-side)', 'decorations %s' % sw[9])
    check(weston[3].startswith('not run: no linux-drm-syncobj-v1'), 'weston %s' % weston)
    verdicts = {(row[1], row[2]): row for row in rows(r.stdout, 'c') if len(row) == 6}
    check(sorted(verdicts) == [('syncway', 'sway'), ('syncway', 'syncway-plain'), ('syncway', 'weston'),
                               ('syncway-plain', 'sway'), ('syncway-plain', 'weston')],
          'verdict rows %s' % sorted(verdicts))
    check(verdicts[('syncway', 'sway')][3] == '0.500' and verdicts[('syncway', 'sway')][4] == '-50.00 % (exact)',
          'verdict %s' % verdicts[('syncway', 'sway')])
    check(verdicts[('syncway-plain', 'sway')][3] == '0.750', 'variant %s' % verdicts[('syncway-plain', 'sway')])
    check(verdicts[('syncway', 'weston')][4] == 'not both run', 'weston %s' % verdicts[('syncway', 'weston')])
    with open(os.path.join(t.work, 'peers-table.md')) as f:
        check(f.read() == r.stdout, 'peers-table.md differs from stdout')


def summary_and_plots_are_written(t):
    r = run(t.path, t.work, 'manifest.jsonl', '.', 'icount', '60')
    check(r.returncode == 0, r.stderr)
    with open(os.path.join(t.work, 'peers-summary.jsonl')) as f:
        summary = [json.loads(line) for line in f]
    cells = {s['compositor']: s for s in summary if 'compositor' in s}
    check(cells['syncway']['min_frames'] == 59 and cells['syncway']['cpu_per_frame'] == 10000,
          'summary %s' % cells['syncway'])
    check(cells['weston']['boots'] == 0 and cells['weston']['skipped'] == 2, 'weston %s' % cells['weston'])
    ratio = [s for s in summary if s.get('syncway') == 'syncway' and s.get('syncway_vs') == 'sway']
    check(ratio and ratio[0]['ratio'] == 0.5 and ratio[0]['proven'], 'ratio %s' % ratio)
    with open(os.path.join(t.work, 'cpu-c-sway.txt')) as f:
        check(f.read() == '20000\n20000\n', 'ministat input of sway')
    with open(os.path.join(t.work, 'peers.gp')) as f:
        gp = f.read()
    check('peers-cpu.png' in gp and 'peers-fps.png' in gp, 'plots missing')


def wall_clock_needs_more_boots(t):
    r = run(t.path, t.work, 'manifest.jsonl', '.', 'wall', '60')
    check(r.returncode == 0, r.stderr)
    verdict = [row for row in rows(r.stdout, 'c') if len(row) == 6 and row[1:3] == ['syncway', 'sway']]
    check(verdict and verdict[0][4].startswith('No difference proven'), 'verdict %s' % verdict)


def bad_arguments_are_refused(t):
    for args in ([], ['manifest.jsonl', '.', 'sundial', '60'], ['manifest.jsonl', '.', 'icount', '0'],
                 ['missing.jsonl', '.', 'icount', '60']):
        r = run(t.path, t.work, *args)
        check(r.returncode != 0 and 'syncway-peers-report:' in r.stderr,
              '%s: exit %d, stderr %r' % (args, r.returncode, r.stderr))


CHECKS = [table_has_known_answers, summary_and_plots_are_written, wall_clock_needs_more_boots,
          bad_arguments_are_refused]


def main():
    with tempfile.TemporaryDirectory() as work:
        fabricate(work)
        return subtests.run('peers-report', CHECKS, Tool(os.path.abspath(sys.argv[1]), work))


if __name__ == '__main__':
    sys.exit(main())
