#!/usr/bin/env python3
"""Runs sw-ab-report on small fabricated raw directories.

usage: ab-report-check.py SW_AB_REPORT SYNCWAY_MINISTAT

The fabricated data has known answers: a real difference that must be proven,
controls that must not be, a floor whose wall-clock time differs between the
kernel builds (as measured under TCG) that must be flagged as a differing
control and must not leak into the other cases, exact icount values; two
kernel families (raw/6.12, raw/7.3), each with its part, and their base
kernels compared per ioctl; a raw directory without families read as 6.12;
the result first (the per-frame verdicts, the key cases, the plot) and the
per-case blocks in an appendix file of their own, linked.
Also checks that a JSON line lacking a key the report needs stops it, naming
the file and the key. Each check is a subtest with a PASS/FAIL line (and a JSON
line in $SYNCWAY_TEST_JSON, like tests/lib/harness.h); ends with
"N passed, N failed".
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import subtests
from subtests import Failure, check

KERNELS = ('base', 'patched')
WALL_BOOTS = 6
# Per case: icount per-boot medians per kernel, wall ns per kernel in a fast boot.
ICOUNT = {
    ('floor', 0): ([494, 494], [494, 494]),
    ('wait', 1): ([1963, 1963], [1266, 1266]),
    ('timeline_wait', 1): ([2054, 2054], [1457, 1457]),
    ('timeline_wait_pending', 1): ([2237, 2237], [1569, 1569]),
    ('reset', 1): ([1345, 1345], [1010, 1010]),
    ('timeline_signal', 1): ([2343, 2343], [1841, 1841]),
    ('timeline_signal', 2): ([3048, 3048], [2546, 2546]),
    ('eventfd', 1): ([800, 800], [800, 800]),
    ('transfer', 1): ([900, 903], [901, 904]),
}
WALL = {('floor', 0): (1000, 870), ('wait', 1): (3000, 2000), ('eventfd', 1): (1500, 1500),
        ('transfer', 1): (1800, 1800)}


def micro_line(case, handles, samples):
    return json.dumps({'bench': 'syncobj', 'case': case, 'handles': handles,
                       'samples': samples}, separators=(',', ':')) + '\n'


def frame_lines(fps, rng):
    """12 s of presented frames at about fps, with a client commit each frame."""
    out, t, n = [], 10**9, 0
    while t < 14 * 10**9:
        n += 1
        frame = {'type': 'frame', 't_ns': t, 'output': 'HEADLESS-1', 'frame': n,
                 'presented': True}
        if n > 1:
            frame['interval_ns'] = int(1e9 / fps)
        frame.update({'cpu_user_ns': 4000, 'cpu_sys_ns': 2000, 'syncobj_ioctls': 2,
                      'syncobj_ns': 3000, 'syncobj': {'wait': [1, 0, 0, 1500],
                                                      'timeline_signal': [1, 0, 0, 1500]},
                      'commits': 1})
        out.append(json.dumps(frame, separators=(',', ':')) + '\n')
        out.append(json.dumps({'type': 'commit', 't_ns': t - 1000, 'surface': 1, 'seq': n},
                              separators=(',', ':')) + '\n')
        t += int(1e9 / fps * rng.uniform(0.98, 1.02))
    return out


# The GPU-offload runs: client frames/s per kernel and sync mode, per boot.
OFFLOAD_FPS = {('base', 'explicit'): (12000.5, 12003.7), ('patched', 'explicit'): (12515.2, 12519.6),
               ('base', 'none'): (16908.3, 16919.6), ('patched', 'none'): (16909.2, 16905.4)}
# Client calls per frame and their handles, as syncway-offload makes them.
OFFLOAD_CALLS = {'wait': 1, 'timeline_wait': 1, 'reset': 1, 'timeline_signal': 2}


def offload_files(raw, kernel, r, sync, fps, runs=2, shift=40):
    """One boot's offload runs of a sync mode, as bench/guest-ab.sh makes
    them: per run the client's summary line and the compositor's lines of its
    window (60 output frames a second, plus frames outside it), the runs one
    after another in the same two files. One run has a 10 s window; two have
    4 s and 6 s, the first shift frames short of fps and the second as many
    over, so that the boot's pooled value is fps exactly."""
    prefix = os.path.join(raw, 'offload-icount-%s-r%d-%s-' % (kernel, r, sync))
    explicit = sync == 'explicit'
    windows = (10,) if runs == 1 else (4, 6)
    total = round(fps * sum(windows))
    with open(prefix + 'client.jsonl', 'w') as fc, open(prefix + 'syncway.jsonl', 'w') as fs:
        t0 = 2 * 10**9
        for j, secs in enumerate(windows):
            t1 = t0 + secs * 10**9
            frames = total if runs == 1 else round(fps * secs) - shift if j == 0 else total - done
            done = frames
            calls = {k: [frames, 0, 0, 0] for k in OFFLOAD_CALLS} if explicit else {}
            fc.write(json.dumps({'type': 'summary', 'client': 'syncway-offload', 'sync': sync,
                                 'window_start_ns': t0, 'window_end_ns': t1, 'frames': frames,
                                 'fps': frames / secs, 'idle_ns': 0,
                                 'busy_ns_per_frame': secs * 1e9 / frames, 'cpu_user_ns': 10**8,
                                 'cpu_sys_ns': 10**8, 'syncobj': calls,
                                 'handles_per_call': OFFLOAD_CALLS}, separators=(',', ':')) + '\n')
            per_frame = frames / (60 * secs)
            times = [t0 - 10**9 // 2 + n * (10**9 // 60) for n in range(60 * (secs + 1))]
            inside = [t for t in times if t0 <= t < t1]
            # syncway's frame lines carry the thread's context switches since
            # the previous frame: one every other client frame, on both
            # kernels, so the schedule does not change. Halves add up
            # exactly: the window's lines hold frames / 2 of them.
            switches = [0.5 * (frames // len(inside) + (i < frames % len(inside))) for i in
                        range(len(inside))]
            for t in times:
                so = {'timeline_wait': [per_frame, 0, 0, 0],
                      'timeline_signal': [per_frame, 0, 0, 0]} if explicit else {}
                fs.write(json.dumps({'type': 'frame', 't_ns': t, 'presented': True,
                                     'ctxsw': switches.pop(0) if t0 <= t < t1 else 1, 'syncobj': so},
                                    separators=(',', ':')) + '\n')
            t0 = t1 + 2 * 10**9


# The virgl runs: busy instructions per client frame of the compositor and
# the client per boot (1000 client frames in a 2 s window), kernel by kernel:
# patched is 1000 instructions a frame cheaper in the compositor, with a
# spread of 60 on both kernels.
VIRGL_BUSY = {'base': [(70000 + j, 1100000) for j in (0, 20, 40, 60)],
              'patched': [(69000 + j, 1100000) for j in (0, 20, 40, 60)]}
# Per client frame: the compositor's calls (TIMELINE_WAIT 1.2, of which 0.7
# timed out on a pending point), the client's (a render sync_file into the
# acquire point: CREATE, IMPORT_SYNC_FILE, TRANSFER, DESTROY on 6.12, one
# FD_TO_HANDLE with the point on 7.3; an EVENTFD for the release).
VIRGL_COMP = {'timeline_wait': (24, 14), 'timeline_signal': (20, 0), 'eventfd': (8, 0)}
VIRGL_CLIENT = {'6.12': ('create', 'import_sync_file', 'transfer', 'destroy', 'eventfd'),
                '7.3': ('import_sync_file_point', 'eventfd')}


def virgl_files(raw, kernel, r, busy, family):
    """One virgl run: busy-window's line, syncway's commit and frame lines
    (1000 commits, 400 of them waited on, and 50 presented frames in the
    window; more outside it), the client's summary of 2000 frames."""
    prefix = os.path.join(raw, 'virgl-icount-%s-r%d-' % (kernel, r))
    t0, t1, frames = 2 * 10**9, 4 * 10**9, 1000
    comp, client = busy
    with open(prefix + 'window.jsonl', 'w') as f:
        f.write(json.dumps({'type': 'window', 'window_start_ns': t0, 'window_end_ns': t1,
                            'idle_ns': 10**7,
                            'procs': [{'pid': 40, 'comm': 'syncway', 'threads': 4,
                                       'busy_ns': comp * frames},
                                      {'pid': 90, 'comm': 'syncway-gears', 'threads': 2,
                                       'busy_ns': client * frames}]},
                           separators=(',', ':')) + '\n')
    with open(prefix + 'syncway.jsonl', 'w') as f:
        for n in range(1200):
            t = t0 - 10**8 + n * (2 * 10**6)
            f.write(json.dumps({'type': 'commit', 't_ns': t, 'surface': 1, 'seq': n,
                                'waited': n % 5 < 2}, separators=(',', ':')) + '\n')
        for n in range(60):
            t = t0 - 2 * 10**8 + n * (4 * 10**7)
            so = {k: [c, 1000 * c, 0, to] for k, (c, to) in VIRGL_COMP.items()}
            f.write(json.dumps({'type': 'frame', 't_ns': t, 'presented': True, 'syncobj': so},
                               separators=(',', ':')) + '\n')
    with open(prefix + 'client.jsonl', 'w') as f:
        f.write(json.dumps({'type': 'frame', 'seq': 0, 'result': 'presented'},
                           separators=(',', ':')) + '\n')
        f.write(json.dumps({'type': 'summary', 'committed': 2000,
                            'syncobj': {k: [2000, 2000000, 0, 0] for k in VIRGL_CLIENT[family]}},
                           separators=(',', ':')) + '\n')


FAMILY_META = {'6.12': 'PREEMPT_VOLUNTARY', '7.3': 'PREEMPT_LAZY'}


def fabricate(top, wall_boots=WALL_BOOTS, family='6.12', icount=ICOUNT, flat=False):
    """A family's raw directory, top/<family> (top itself when flat, the
    layout before there were families), and top/meta.txt."""
    rng = random.Random(7)
    raw = top if flat else os.path.join(top, family)
    os.makedirs(raw)
    if not os.path.exists(os.path.join(top, 'meta.txt')):
        with open(os.path.join(top, 'meta.txt'), 'w') as f:
            f.write('date=fabricated\ncommand=ab-report-check.py\n')
    if not flat:
        with open(os.path.join(raw, 'meta.txt'), 'w') as f:
            f.write('family=%s\nrelease_base=%s.0-syncway-base\nrelease_patched=%s.0-syncway-patched\n'
                    'preempt=%s\n' % (family, family, family, FAMILY_META[family]))
    for k, kernel in enumerate(KERNELS):
        for r in range(2):
            with open(os.path.join(raw, 'micro-icount-%s-r%d.jsonl' % (kernel, r + 1)), 'w') as f:
                for (case, handles), values in icount.items():
                    f.write(micro_line(case, handles, [values[k][r]] * 5))
            for sync in ('explicit', 'none'):
                offload_files(raw, kernel, r + 1, sync, OFFLOAD_FPS[(kernel, sync)][r])
        for r, busy in enumerate(VIRGL_BUSY[kernel]):
            virgl_files(raw, kernel, r + 1, busy, family)
        # Rounds 1 and 4 a little slower on both kernels: boots alternate,
        # so a busy host slows the base and the patched boot of a round.
        for r in range(wall_boots):
            state = 1.05 if r in (0, 3) else 1.0
            with open(os.path.join(raw, 'micro-wall-%s-r%d.jsonl' % (kernel, r + 1)), 'w') as f:
                for (case, handles), ns in WALL.items():
                    boot = ns[k] * state * rng.uniform(0.99, 1.01)
                    f.write(micro_line(case, handles,
                                       [round(boot * rng.uniform(0.98, 1.02), 3) for _ in range(8)]))
            with open(os.path.join(raw, 'frame-wall-%s-r%d.jsonl' % (kernel, r + 1)), 'w') as f:
                f.writelines(frame_lines((100, 110)[k] * rng.uniform(0.99, 1.01), rng))


class Tool:
    def __init__(self, report, ministat, work):
        self.report = report
        self.ministat = ministat
        self.work = work
        self.count = 0

    def run(self, raw, status=0):
        self.count += 1
        out = os.path.join(self.work, 'out%d' % self.count)
        os.makedirs(out)
        p = subprocess.run([self.report, '--raw', raw, '--out', os.path.join(out, 'ab.md'),
                            '--plots', os.path.join(out, 'ab'), '--ministat', self.ministat],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == status, 'status %d, expected %d: %s' % (p.returncode, status,
                                                                        p.stderr.strip()))
        md = ''
        self.stdout = p.stdout
        self.out = out
        if status == 0:
            with open(os.path.join(out, 'ab.md')) as f:
                md = f.read()
            # the per-case ministat blocks, a file of their own beside it
            with open(os.path.join(out, 'ab-appendix.md')) as f:
                self.appendix = f.read()
        return md, p.stderr

    def raw(self, name, **kw):
        """The top of a fabricated raw directory, with the family 6.12."""
        raw = os.path.join(self.work, name)
        fabricate(raw, **kw)
        return raw


def fam(raw, family='6.12'):
    return os.path.join(raw, family)


def section(md, title):
    start = md.index(title)
    end = md.find('\n## ', start + 1)
    return md[start:end if end >= 0 else len(md)]


def row(table, case, handles):
    for line in table.splitlines():
        if line.startswith('| %s | %d |' % (case, handles)):
            return line
    raise Failure('no row for %s/%d' % (case, handles))


def verdicts_per_boot(t):
    md, _ = t.run(t.raw('raw-full'))
    # The appendix is ministat's own output, which prints -nan where its
    # one-pass variance cancels; the report's own numbers never do.
    check(not re.search(r'\bnan\b', md[:md.index('## Appendix')], re.I), 'the report prints nan')
    wall = section(md, '## Per-ioctl cost, wall mode')
    check(re.search(r'\| -1[23]\.\d\d % \|', row(wall, 'floor', 0)),
          'the floor\'s own shift is not proven: %s' % row(wall, 'floor', 0))
    check(re.search(r'differ in this mode: floor \(-1[23]\.', wall),
          'the floor is not flagged as a differing control')
    check(re.search(r'\| -3[23]\.\d\d % \|', row(wall, 'wait', 1)),
          'wait not proven −33 %%: %s' % row(wall, 'wait', 1))
    for case in ('eventfd', 'transfer'):
        # Dividing by the floor would move them by its 13 %; they are not divided.
        check('| No difference proven |' in row(wall, case, 1), '%s: %s' % (case, row(wall, case, 1)))
    icount = section(md, '## Per-ioctl cost, icount mode')
    check('-35.51 % (exact)' in row(icount, 'wait', 1), 'icount wait: %s' % row(icount, 'wait', 1))
    check('No difference proven (exact)' in row(icount, 'eventfd', 1), row(icount, 'eventfd', 1))
    check('No difference proven (Δ within 3 × spread)' in row(icount, 'transfer', 1),
          row(icount, 'transfer', 1))
    frames = section(md, '## Frame benchmark (wall clock)')
    check(re.search(r'verdict: \+(9\.[5-9]|10\.[0-4])\d %', frames), 'frame verdict: %s' % frames[:2000])
    check('vkgears-compatible' not in md, 'output FPS called vkgears-compatible')


def too_few_boots(t):
    md, _ = t.run(t.raw('raw-3', wall_boots=3))
    wall = section(md, '## Per-ioctl cost, wall mode')
    check('No difference proven (3 boots a side; ≥ 4 needed)' in row(wall, 'wait', 1),
          row(wall, 'wait', 1))
    check('verdict: No difference proven (3 boots a side; ≥ 4 needed)' in md, 'frame verdict')


def offload_frames(t):
    md, _ = t.run(t.raw('raw-offload'))
    frames = section(md, '## Frame benchmark: GPU-offload client')
    check(re.search(r'\| client frames/s, explicit sync \| 2 / 2 \|.*\| \*\*\+4\.29 %\*\* \|', frames),
          'explicit-sync verdict: %s' % frames[:3000])
    check(re.search(r'\| client frames/s, no sync \(control\) \|.*\*\*No difference proven', frames),
          'control verdict')
    # Predicted, the waits at the full path's case (timeline_wait_pending,
    # 668 less): client 668 + 668 + 335 + 502, compositor (1 call each per
    # client frame) 668 + 502 instructions less per frame.
    check('| | **total** | | | | | | **-3343** |' in frames, 'prediction: %s' % frames)
    m = re.search(r'Measured / predicted = ([-+]\d+) / -3343 = \*\*(\d\.\d\d)', frames)
    check(m, 'no consistency ratio')
    check(1.0 < float(m.group(2)) < 1.1, 'ratio %s' % m.group(2))
    check('The series changed the frame' not in frames, 'a schedule change where there is none')
    check('Warning: a run idled' not in frames, 'idle warning without idle time')
    check('"handles"' not in md, 'stray JSON')
    # Two runs a boot, about 17 frames/s apart: the boot pools them, and
    # its row shows both runs' busy instructions per frame.
    m = re.search(r'\| base \| explicit \| 1 \| 2 \| 12000\.50 \| 83330 \| (\d+) – (\d+) \|', frames)
    check(m and int(m.group(1)) < 83330 < int(m.group(2)), 'pooled runs: %s' % frames[:2500])
    # the runs of a boot spread by some 115 instructions a frame, the boots
    # by 22 to 28: no more than the runs explain
    m = re.search(r'\| patched \| explicit \| 2 × 2 \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|', frames)
    check(m and float(m.group(4)) < 2, 'spread table: %s' % frames[:4000])
    check('The boot values spread no more than their runs explain' in frames, 'spread verdict')


def offload_report(t, name, **runs):
    """The report on two boots a kernel of the offload runs OFFLOAD_FPS
    gives, each written by offload_files() with RUNS."""
    raw = t.raw(name)
    for kernel in KERNELS:
        for r in range(2):
            for sync in ('explicit', 'none'):
                offload_files(fam(raw), kernel, r + 1, sync, OFFLOAD_FPS[(kernel, sync)][r], **runs)
    md, _ = t.run(raw)
    return md


def offload_boots_spread(t):
    """Runs of a boot that agree to a frame, boots that do not: a warning."""
    md = offload_report(t, 'raw-offload-spread', shift=1)
    frames = section(md, '## Frame benchmark: GPU-offload client')
    check('**The boot values spread up to' in frames, 'no warning: %s' % frames[:4000])
    check(re.search(r'\| client frames/s, explicit sync \| 2 / 2 \|.*\| \*\*\+4\.29 %\*\* \|', frames),
          'the verdict stays')


def offload_one_run(t):
    """A boot of one run (the raw data before 2026-12-07) reads as before."""
    md = offload_report(t, 'raw-offload-1', runs=1)
    frames = section(md, '## Frame benchmark: GPU-offload client')
    check(re.search(r'\| client frames/s, explicit sync \| 2 / 2 \|.*\| \*\*\+4\.29 %\*\* \|', frames),
          'one run a boot: %s' % frames[:3000])
    check(re.search(r'\| base \| explicit \| 1 \| 1 \| 12000\.50 \| 83330 \| 83330 – 83330 \|', frames),
          'one run a boot: the row')
    check('Too few runs or boots to compare' in frames, 'one run a boot: the spread')


def virgl_frames(t):
    md, _ = t.run(t.raw('raw-virgl'))
    frames = section(md, '## Frame benchmark: real GPU fences on virgl under the instruction clock')
    # 1000 client frames, 600 ready at commit, 50 presented frames in each window
    check('| base | 1 | 1000 | 50 | 60.0 % | 1170000 | 23400000 | 70000 | 1100000 |' in frames,
          'per-boot row: %s' % frames[:3000])
    row = [line for line in frames.splitlines()
           if line.startswith('| busy instr / client frame (both processes) | 4 / 4 |')]
    check(row, 'no verdict row: %s' % frames)
    # medians 1170030 and 1169030, spread 60 a side: the spread rule and the
    # test (4 a side, perfectly apart: p = 2 / C(8, 4)) both see -1000
    check('| 1170030 | 1169030 | -1000 (-0.085 %) | **-0.09 %** |' in row[0], row[0])
    check(re.search(r'p = 0\.0286 \| -0\.09 % \|$', row[0]), 'test: %s' % row[0])
    client = [line for line in frames.splitlines()
              if line.startswith('| client busy instr / client frame |') and '4 / 4' in line]
    check(client and 'No difference proven (exact)' in client[0], 'client: %s' % client)
    # compositor: TIMELINE_WAIT 0.5 signalled x -597 + 0.7 pending x -668,
    # TIMELINE_SIGNAL 1.0 x -502; client: TRANSFER 1.0 x +1 (medians 901.5
    # and 902.5); CREATE, IMPORT_SYNC_FILE and DESTROY are not benchmarked
    check('| compositor | timeline_wait, pending (timeline_wait_pending/1) | 0.700 | 2237 | 1569 | -468 |'
          in frames, 'pending row: %s' % frames)
    check('| | **total** | | | | **-1267** |' in frames, 'prediction: %s' % frames)
    check('| client | create | 1.000 | – | – | not benchmarked |' in frames, 'create row')
    check('the predicted effect is above it' in frames, 'resolution: %s' % frames)
    check(re.search(r'3 × the larger spread, here 180 instructions', frames), 'resolution size')
    check('| import_sync_file | 0.000 | 1.000 | 0.000 | 0.000 |' in frames, 'model table: %s' % frames)
    more = re.search(r'\*\*The model makes more\*\* of ([^;]*); \*\*fewer\*\* of (.*?)\. What that means', frames)
    check(more, 'no over/under sentence')
    check("the client's reset (1.00 vs 0.00)" in more.group(1), 'over: %s' % more.group(1))
    check("the compositor's eventfd (0.00 vs 0.40)" in more.group(2), 'under: %s' % more.group(2))
    check("timeline_wait (1.00 vs 1.20)" in more.group(2), 'under: %s' % more.group(2))
    # an asynchronous device: no frames per guest second
    check('frames/s' not in frames and 'FPS' not in frames, 'a rate per guest second')
    check('virgl busy instr/client frame: base 1170030, patched 1169030' in t.stdout,
          'summary line: %s' % t.stdout)


# Per-patch icount medians: base, then the kernels of two prefixes.
PREFIXES = (('base', {('floor', 0): 494, ('wait', 1): 2000, ('wait', 2): 2100, ('eventfd', 1): 800}),
            ('0001', {('floor', 0): 494, ('wait', 1): 1500, ('wait', 2): 2100, ('eventfd', 1): 800}),
            ('0002', {('floor', 0): 494, ('wait', 1): 1200, ('wait', 2): 2000, ('eventfd', 1): 800}))


def prefix_files(raw, prefixes=PREFIXES):
    for label, values in prefixes:
        with open(os.path.join(raw, 'prefix-icount-%s.jsonl' % label), 'w') as f:
            for (case, handles), v in values.items():
                f.write(json.dumps({'case': case, 'handles': handles, 'mode': 'icount',
                                    'median': v, 'samples': [v] * 3}, separators=(',', ':')) + '\n')


def per_patch_table(t):
    md, _ = t.run(t.raw('raw-no-prefixes'))
    check('Not measured in this run' in section(md, '## Instructions per call after each patch'),
          'a report without prefix runs does not say the table was not measured')
    raw = t.raw('raw-prefixes')
    prefix_files(fam(raw))
    md, _ = t.run(raw)
    table = section(md, '## Instructions per call after each patch, Linux 6.12')
    check('| ioctl | handles | base | 0001 | 0002 | all patches |\n' in table, 'header: %s' % table)
    check('(fix)' not in table and 'optimisations' not in table, 'a fix without series.txt')
    check(row(table, 'wait', 1) == '| wait | 1 | 2000 | 1500 (-25.0 %) | 1200 (-20.0 %) | -40.0 % |',
          row(table, 'wait', 1))
    check(row(table, 'floor', 0) == '| floor | 0 | 494 | 494 (+0.0 %) | 494 (+0.0 %) | +0.0 % |',
          row(table, 'floor', 0))
    # two handles is not one of the table's rows
    check('| wait | 2 |' not in table, 'a row for two handles')
    raw = t.raw('raw-prefixes-no-base')
    prefix_files(fam(raw), PREFIXES[1:])
    _, err = t.run(raw, status=1)
    check('prefix-icount-base.jsonl is missing' in err, err)
    raw = t.raw('raw-prefixes-wall')
    prefix_files(fam(raw))
    with open(os.path.join(fam(raw), 'prefix-icount-0002.jsonl')) as f:
        text = f.read().replace('"icount"', '"wall"')
    with open(os.path.join(fam(raw), 'prefix-icount-0002.jsonl'), 'w') as f:
        f.write(text)
    _, err = t.run(raw, status=1)
    check('where the instruction clock is needed' in err, err)


def hardened_table(t):
    md, _ = t.run(t.raw('raw-no-hardened'))
    check('Not measured in this run' in section(md, '## On a hardened kernel'),
          'a report without hardened runs does not say the table was not measured')
    raw = t.raw('raw-hardened')
    # wait/1: boots 2400 and 2424 on base, 1600 and 1616 on patched
    for kernel, values in (('base', (2400, 2424)), ('patched', (1600, 1616))):
        for r, v in enumerate(values):
            with open(os.path.join(fam(raw), 'hardened-icount-%s-r%d.jsonl' % (kernel, r + 1)), 'w') as f:
                for case, handles, median in (('floor', 0, 600), ('wait', 1, v)):
                    f.write(json.dumps({'case': case, 'handles': handles, 'mode': 'icount',
                                        'median': median}, separators=(',', ':')) + '\n')
    with open(os.path.join(fam(raw), 'hardened-vulnerabilities-patched.txt'), 'w') as f:
        f.write('/sys/devices/system/cpu/vulnerabilities/spectre_v1:Mitigation: usercopy/swapgs '
                'barriers\n')
    md, _ = t.run(raw)
    table = section(md, '## On a hardened kernel')
    # medians 2412 and 1608: -33.3 %; the range 24/2412 = 1.0 %; unhardened -35.5 %
    check(row(table, 'wait', 1) == '| wait | 1 | 2412 | 1608 | -33.3 % | 1.0 % | -35.5 % |',
          row(table, 'wait', 1))
    check('spectre_v1:Mitigation: usercopy/swapgs barriers' in table, 'vulnerabilities: %s' % table)
    os.remove(os.path.join(fam(raw), 'hardened-icount-base-r1.jsonl'))
    os.remove(os.path.join(fam(raw), 'hardened-icount-base-r2.jsonl'))
    _, err = t.run(raw, status=1)
    check('the hardened table needs both kernels' in err, err)


# Linux 7.3's icount per-boot medians: the floor 26 instructions dearer
# than on 6.12, wait/1 137 (so 111 beyond the floor), transfer 29 with a
# spread that still lets the rule call it, reset 45 cheaper, timeline_wait/1
# within its spread, the rest as on 6.12; query/1 measured on 7.3 only.
ICOUNT_73 = dict(ICOUNT)
ICOUNT_73.update({
    ('floor', 0): ([520, 520], [520, 520]),
    ('wait', 1): ([2100, 2100], [1300, 1300]),
    ('timeline_wait', 1): ([2054, 2056], [1400, 1400]),
    ('reset', 1): ([1300, 1300], [1000, 1000]),
    ('eventfd', 1): ([800, 800], [800, 800]),
    ('transfer', 1): ([930, 931], [930, 931]),
    ('query', 1): ([700, 700], [650, 650]),
})
# The 7.3 series starts with a bug fix (a Fixes: tag in series.txt).
PREFIXES_73 = (('base', {('floor', 0): 520, ('wait', 1): 2100}),
               ('0001', {('floor', 0): 520, ('wait', 1): 2100}),
               ('0002', {('floor', 0): 520, ('wait', 1): 1575}))
SERIES_73 = ('0001 fix drm/syncobj: Fix references leaked by a failed import at a timeline point\n'
             '0002 - drm/syncobj: Remove the drm_syncobj_array_wait helper\n')


def kmalloc_file(raw, kernel, allocs):
    with open(os.path.join(raw, 'kmalloc-%s.json' % kernel), 'w') as f:
        for (ioctl, count), n in allocs.items():
            f.write(json.dumps({'ioctl': ioctl, 'count': count, 'allocs': n,
                                'calls': 200}, separators=(',', ':')) + '\n')


def two_families(t):
    raw = t.raw('raw-families')
    fabricate(raw, family='7.3', icount=ICOUNT_73)
    kmalloc_file(fam(raw), 'base', {('WAIT', 1): 2})
    kmalloc_file(fam(raw, '7.3'), 'base', {('WAIT', 1): 1})
    prefix_files(fam(raw, '7.3'), PREFIXES_73)
    with open(os.path.join(fam(raw, '7.3'), 'series.txt'), 'w') as f:
        f.write(SERIES_73)
    md, _ = t.run(raw)
    # a part per family, 6.12 first
    for title in ('## Frame benchmark: GPU-offload client under the instruction clock',
                  '## Per-ioctl cost, icount mode', '## Per-ioctl cost, wall mode',
                  '## Instructions per call after each patch', '## Plots'):
        at = [md.find('%s, Linux %s\n' % (title, f)) for f in ('6.12', '7.3')]
        check(0 <= at[0] < at[1], '%s: not once per family in order (%s)' % (title, at))
    check('| Linux 7.3, preemption model | `CONFIG_PREEMPT_LAZY` |' in md, 'no preemption model')
    check('| Linux 6.12, base kernel | `6.12.0-syncway-base`' in md, 'no 6.12 base kernel')
    icount = section(md, '## Per-ioctl cost, icount mode, Linux 7.3')
    check('-38.10 % (exact)' in row(icount, 'wait', 1), 'icount wait on 7.3: %s' % row(icount, 'wait', 1))
    # base's allocations from 7.3's own kmalloc-base.json, none for patched
    check(row(icount, 'wait', 1).endswith('| 1 → – |'), 'kmallocs on 7.3: %s' % row(icount, 'wait', 1))
    offload = section(md, '## Frame benchmark: GPU-offload client under the instruction clock, Linux 7.3')
    check(re.search(r'\| client frames/s, explicit sync \| 2 / 2 \|', offload), 'no 7.3 offload verdict')
    # the per-patch table of 7.3 with its fix
    table = section(md, '## Instructions per call after each patch, Linux 7.3')
    check('| ioctl | handles | base | 0001 (fix) | 0002 | all patches | optimisations |' in table,
          'header: %s' % table)
    check('**A bug fix, not an optimisation** (a `Fixes:` tag), is marked *(fix)*: 0001 (*drm/syncobj: '
          'Fix references leaked by a failed import at a timeline point*)' in table, table)
    check(row(table, 'wait', 1) == '| wait | 1 | 2100 | 2100 (+0.0 %) | 1575 (-25.0 %) | -25.0 % | -25.0 % |',
          row(table, 'wait', 1))
    check('(fix)' not in section(md, '## Instructions per call after each patch, Linux 6.12'),
          'a fix in the 6.12 table')
    # 7.3's client imports its render sync_file at the point in one call
    virgl = section(md, '## Frame benchmark: real GPU fences on virgl under the instruction clock, Linux 7.3')
    check('| client | import_sync_file_point | 1.000 | – | – | not benchmarked |' in virgl,
          'no one-call import in the 7.3 prediction: %s' % virgl)
    check('| client | create |' not in virgl, 'a four-call import on 7.3: %s' % virgl)
    check('| import_sync_file_point | 0.000 | 1.000 | 0.000 | 0.000 |' in virgl,
          '7.3 model table: %s' % virgl)
    # the base kernels side by side
    fams = section(md, '## Linux 6.12 vs 7.3: the base kernels per ioctl, icount')
    check('`CONFIG_PREEMPT_VOLUNTARY`' in fams and '`CONFIG_PREEMPT_LAZY`' in fams, 'preemption models')
    check(row(fams, 'floor', 0) == '| floor | 0 | 494.0 | 520.0 | +26.0 (+5.26 %) | 0 / 0 | +5.26 % (exact) '
          '| – | – | none proven | none proven |', row(fams, 'floor', 0))
    check(row(fams, 'wait', 1) == '| wait | 1 | 1963.0 | 2100.0 | +137.0 (+6.98 %) | 0 / 0 | +6.98 % (exact) '
          '| +111.0 | 2 → 1 | -35.51 % | -38.10 % |', row(fams, 'wait', 1))
    check(row(fams, 'transfer', 1).startswith('| transfer | 1 | 901.5 | 930.5 | +29.0 (+3.22 %) | 3 / 1 | '
                                              '+3.22 % | +3.0 |'), row(fams, 'transfer', 1))
    check('No difference proven (Δ within 3 × spread)' in row(fams, 'timeline_wait', 1),
          row(fams, 'timeline_wait', 1))
    check('No difference proven (exact) | -26.0 |' in row(fams, 'eventfd', 1), row(fams, 'eventfd', 1))
    check('-45.0 (-3.35 %)' in row(fams, 'reset', 1), row(fams, 'reset', 1))
    check('| query |' not in fams, 'a case of one family in the table')
    check('Of 9 cases measured on both, 3 cost more instructions on 7.3\'s base kernel than on 6.12\'s, '
          '1 fewer, 5 no difference proven; the floor moved by +26.0 instructions. Cases measured on '
          'one family only are left out.' in fams, 'summary: %s' % fams)
    check('Linux 6.12 vs 7.3 base kernels: of 9 cases, 3 more instructions on 7.3, 1 fewer' in t.stdout,
          t.stdout)
    # the appendix in its own file, linked last, a block per family
    check(md.index('## Appendix') > md.index('## Linux 6.12 vs 7.3'), 'appendix before the comparison')
    check('[ab-appendix.md](ab-appendix.md)' in section(md, '## Appendix'), 'no link to the appendix')
    for f in ('6.12', '7.3'):
        check('### Linux %s, icount, wait, 1 handles\n\n```\n' % f in t.appendix, 'no %s appendix' % f)
    check('[ab.md](ab.md)' in t.appendix, 'no link back from the appendix')
    check('### Linux 6.12, icount,' not in md and '### Linux 7.3, wall,' not in md,
          'per-case blocks in the main file')
    first_screen(t, md)


def first_screen(t, md):
    """The result before everything else: each family's per-frame verdicts,
    the key cases and the main plot, then the run and the parts."""
    top = section(md, '## Result')
    check(md.index('## Result') < md.index('## The run') < md.index('\n| ioctl | handles |'),
          'the result does not come first')
    # 6.12: base 12000.5 and 12003.7, patched 12515.2 and 12519.6: +4.29 %
    check('| 6.12 | GPU-offload model, explicit sync: client frames per guest second | 2 / 2 | '
          '12002.10 | 12517.40 | +4.293 % | **+4.29 %** | No difference proven (2 boots a side; '
          '≥ 4 needed) | syncobj share ' in top, 'offload row: %s' % top)
    check(re.search(r'\| 6\.12 \| GPU-offload model, no sync \(the control\).*\*\*No difference proven', top),
          'control row: %s' % top)
    check(re.search(r'\| 7\.3 \| virgl, real GPU fences: busy instructions per client frame \| 4 / 4 \| '
                    r'1170030 \| 1169030 \| -0\.085 % \| \*\*-0\.09 %\*\* \|', top), 'virgl row: %s' % top)
    # wait/1: floors 494 and 520, the series -35.51 % and -38.10 %, 7.3's base +137
    check('| wait/1 | WAIT on one signalled fence | 1963 → 1266 | 3.97 → 2.56 | -35.51 % | '
          '2100 → 1300 | 4.04 → 2.50 | -38.10 % | +6.98 % |' in top, 'key wait/1: %s' % top)
    check('| floor/0 |' in top and '| wait/64 |' not in top, 'key cases not measured: %s' % top)
    check(len(re.findall(r'^\| (6\.12|7\.3) \| ', top, re.M)) == 6, 'per-frame rows: %s' % top)
    check(len(re.findall(r'^\| \w+/\d+ \| ', top, re.M)) == 5, 'key rows (signal/1 unmeasured): %s' % top)
    check('![GPU-offload client frames per guest second, every boot](ab-result.png)' in top, 'no plot')
    with open(os.path.join(t.out, 'ab-plots.gp')) as f:
        gp = f.read()
    check("set output 'ab-result.png'" in gp and "'ab-data/7.3/offload.dat' using ($1+4):2" in gp,
          'result plot: %s' % gp)


def main_file_short(t):
    """With a real run's 45 cases a family (and no wall-clock rounds, as by
    default), the main file has a row per case and table, the appendix a
    block: the main file is much the shorter, and the key cases are all
    there."""
    many = dict(ICOUNT)
    for i, name in enumerate(('wait', 'timeline_wait', 'timeline_wait_pending', 'query', 'reset', 'signal',
                              'timeline_signal')):
        for h in (1, 2, 4, 5, 8, 64):
            v = 1000 + 100 * i + 50 * h
            many[(name, h)] = ([v, v], [v - 300, v - 300])
    md, _ = t.run(t.raw('raw-many', icount=many, wall_boots=0))
    lines, appendix = len(md.splitlines()), len(t.appendix.splitlines())
    check(3 * lines < appendix, 'main file %d lines, appendix %d' % (lines, appendix))
    top = section(md, '## Result')
    check(len(re.findall(r'^\| \w+/\d+ \| ', top, re.M)) == 8, 'key rows: %s' % top)
    # query/64: 1000 + 300 + 3200 on base, 300 less patched, the floor 494
    check('| query/64 | an array read without a wait | 4500 → 4200 | 9.11 → 8.50 | -6.67 % |' in top,
          'key query/64: %s' % top)


def one_family(t):
    raw = os.path.join(t.work, 'raw-7.3-only')
    # icount boots without the GPU-offload runs (--offload-families), no
    # virgl boots, no wall-clock rounds (the default)
    fabricate(raw, family='7.3', icount=ICOUNT_73, wall_boots=0)
    for name in os.listdir(fam(raw, '7.3')):
        if name.startswith('offload-') or name.startswith('virgl-'):
            os.remove(os.path.join(fam(raw, '7.3'), name))
    md, _ = t.run(raw)
    check('## Per-ioctl cost, icount mode, Linux 7.3' in md and 'Linux 6.12' not in md, 'not 7.3 alone')
    check('One kernel family in this run (Linux 7.3)' in md, 'no word on the missing comparison')
    check(section(md, '## Frame benchmark: GPU-offload client under the instruction clock, Linux 7.3')
          .startswith('## Frame benchmark: GPU-offload client under the instruction clock, Linux 7.3\n\n'
                      'Not measured in this run'), 'no word on the missing GPU-offload runs')
    for title in ('## Frame benchmark: real GPU fences on virgl under the instruction clock, Linux 7.3',
                  '## Per-ioctl cost, wall mode, Linux 7.3', '## Frame benchmark (wall clock), Linux 7.3'):
        check(section(md, title).startswith(title + '\n\nNot measured in this run'), 'no word: %s' % title)
    check('.png' in section(md, '## Plots, Linux 7.3') and 'fps.png' not in md, 'plots without frames')
    # no GPU-offload runs: the first screen shows the per-ioctl plot
    check('](ab-7.3-micro.png)' in section(md, '## Result'), 'first screen: %s' % section(md, '## Result'))


def flat_is_612(t):
    """A raw directory from before the families: one family, 6.12."""
    raw = t.raw('raw-flat', flat=True)
    md, _ = t.run(raw)
    icount = section(md, '## Per-ioctl cost, icount mode, Linux 6.12')
    check('-35.51 % (exact)' in row(icount, 'wait', 1), 'flat icount wait: %s' % row(icount, 'wait', 1))
    check('One kernel family in this run (Linux 6.12)' in md, 'flat: comparison')


def edit_line(path, index, drop):
    with open(path) as f:
        lines = f.readlines()
    obj = json.loads(lines[index])
    del obj[drop]
    lines[index] = json.dumps(obj, separators=(',', ':')) + '\n'
    with open(path, 'w') as f:
        f.writelines(lines)


def missing_keys_stop(t):
    for name, index, key in (('micro-wall-base-r2.jsonl', 1, 'handles'),
                             ('micro-icount-patched-r1.jsonl', 0, 'samples'),
                             ('micro-wall-patched-r1.jsonl', 2, 'case'),
                             ('frame-wall-base-r1.jsonl', 600, 'presented'),
                             ('frame-wall-patched-r3.jsonl', 800, 'cpu_sys_ns'),
                             ('frame-wall-patched-r3.jsonl', 801, 't_ns'),
                             ('offload-icount-base-r1-explicit-client.jsonl', 0, 'busy_ns_per_frame'),
                             ('offload-icount-patched-r2-none-syncway.jsonl', 40, 'presented'),
                             ('virgl-icount-base-r2-window.jsonl', 0, 'window_end_ns'),
                             ('virgl-icount-patched-r1-syncway.jsonl', 300, 'waited'),
                             ('virgl-icount-base-r3-client.jsonl', 1, 'committed')):
        raw = t.raw('raw-%s-%s' % (name, key))
        edit_line(os.path.join(fam(raw), name), index, key)
        _, err = t.run(raw, status=1)
        check(name in err and '"%s"' % key in err, 'missing %s in %s: %r' % (key, name, err))


def optional_key_is_optional(t):
    raw = t.raw('raw-optional')
    edit_line(os.path.join(fam(raw), 'frame-wall-base-r1.jsonl'), 600, 'interval_ns')
    t.run(raw)


CHECKS = [verdicts_per_boot, too_few_boots, offload_frames, offload_boots_spread, offload_one_run,
          virgl_frames, per_patch_table, hardened_table,
          two_families, main_file_short, one_family, flat_is_612, missing_keys_stop, optional_key_is_optional]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    report, ministat = (os.path.abspath(a) for a in sys.argv[1:])
    work = tempfile.mkdtemp()
    try:
        return subtests.run('ab-report', CHECKS, Tool(report, ministat, work))
    finally:
        shutil.rmtree(work)


if __name__ == '__main__':
    sys.exit(main())
