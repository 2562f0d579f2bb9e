#!/usr/bin/env python3
"""Runs syncway-soak-report on fabricated soak samples with known verdicts.

usage: soak-report-check.py SYNCWAY_SOAK_REPORT

Each case is 400 samples over four million frames (bench/soak-guest.sh's
columns) with fixed pseudo-random noise: everything flat; a leak (malloc's
bytes in use, the heap and VmRSS grow); VmRSS growing only in resident
pages of a [heap] that does not grow (bounded); VmRSS growing outside the
heap; a leak that the heap's free space still absorbs (bytes in use grow,
the heap's size does not: a leak, not bounded); fds that grow; samples
from before the heap columns. The exit status and the verdict in the
table must be those; too few samples and bad options must be refused.
"""
import os
import random
import subprocess
import sys
import tempfile

import subtests
from subtests import check

N = 400
FRAMES = 4_000_000


def fabricate(path, rss_extra=0.0, heap_rss_extra=0.0, heap_size_extra=0.0, in_use_extra=0.0,
              fds_extra=0.0, heap_columns=True, n=N):
    """The *_extra arguments are growth per million frames (kB, bytes for
    malloc's in use, fds); rss_extra is VmRSS outside the heap."""
    rnd = random.Random(7)
    lines = []
    for i in range(n):
        frames = (i + 1) * FRAMES // n
        m = frames / 1e6
        heap_size = 1200 + heap_size_extra * m
        heap_rss = 800 + heap_rss_extra * m + rnd.gauss(0, 4)
        rest = 8000 + rss_extra * m + rnd.gauss(0, 4)
        in_use = 600_000 + in_use_extra * m + rnd.gauss(0, 2000)
        fds = 30 + round(fds_extra * m) + rnd.choice((0, 1))
        row = [i * 10.0, frames, round(rest + heap_rss), round(rest + heap_rss - 3000), fds, 12, 1.5, 800,
               i * 100, 2900, 100, round(in_use), round(heap_size * 1024 - in_use), 8]
        if heap_columns:
            row += [round(heap_size), round(heap_rss)]
        lines.append('\t'.join(str(v) for v in row))
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def report(work, *args, **fabric):
    samples = os.path.join(work, 'samples.tsv')
    fabricate(samples, **fabric)
    return subprocess.run([TOOL, *args, samples, os.path.join(work, 'table.md')], capture_output=True,
                          text=True, timeout=30)


def row(out, name):
    for line in out.splitlines():
        if line.startswith('| %s |' % name):
            return line
    raise subtests.Failure('no row for %s in:\n%s' % (name, out))


def verdict_of(r, name):
    return row(r.stdout, name).rstrip(' |').rsplit('|', 1)[1].strip()


def flat_is_flat(work):
    r = report(work)
    check(r.returncode == 0, 'exit %d: %s' % (r.returncode, r.stderr))
    check(verdict_of(r, 'VmRSS') == 'flat within measurement error', row(r.stdout, 'VmRSS'))
    check('soak: verdict: flat' in r.stderr, r.stderr)


def leak_is_growing(work):
    r = report(work, heap_rss_extra=40, heap_size_extra=40, in_use_extra=40_000)
    check(r.returncode == 1, 'exit %d: %s' % (r.returncode, r.stderr))
    check(verdict_of(r, 'VmRSS') == '**growing**', row(r.stdout, 'VmRSS'))
    check('GROWING' in r.stderr, r.stderr)


def heap_pages_in_a_fixed_heap_are_bounded(work):
    r = report(work, heap_rss_extra=6)
    check(r.returncode == 0, 'exit %d: %s' % (r.returncode, r.stderr))
    v = verdict_of(r, 'VmRSS')
    # The heap's size is 1200 kB; VmRSS but the heap stays near 8000 kB.
    check(v.startswith('**bounded**: grows only in [heap], whose size stays at most 1.23 MB'), v)
    check(verdict_of(r, '[heap] resident').startswith('**growing**'), row(r.stdout, '[heap] resident'))
    check('soak: verdict: bounded' in r.stderr, r.stderr)


def growth_outside_the_heap_is_growing(work):
    r = report(work, rss_extra=6)
    check(r.returncode == 1, 'exit %d: %s' % (r.returncode, r.stderr))
    check(verdict_of(r, 'VmRSS') == '**growing**', row(r.stdout, 'VmRSS'))


def leak_inside_a_fixed_heap_is_growing(work):
    r = report(work, heap_rss_extra=6, in_use_extra=6_000)
    check(r.returncode == 1, 'exit %d: %s' % (r.returncode, r.stderr))
    check(verdict_of(r, 'VmRSS') == '**growing**', row(r.stdout, 'VmRSS'))
    check(verdict_of(r, 'heap in use').startswith('**growing**'), row(r.stdout, 'heap in use'))


def growing_fds_decide(work):
    r = report(work, fds_extra=3)
    check(r.returncode == 1, 'exit %d: %s' % (r.returncode, r.stderr))
    check(verdict_of(r, 'open fds') == '**growing**', row(r.stdout, 'open fds'))
    check(verdict_of(r, 'VmRSS') == 'flat within measurement error', row(r.stdout, 'VmRSS'))


def samples_without_the_heap_are_not_bounded(work):
    r = report(work, heap_rss_extra=6, heap_columns=False)
    check(r.returncode == 1, 'exit %d: %s' % (r.returncode, r.stderr))
    check(verdict_of(r, '[heap] size') == 'not measured', row(r.stdout, '[heap] size'))
    check(verdict_of(r, 'VmRSS') == '**growing**', row(r.stdout, 'VmRSS'))


def tolerance_is_applied(work):
    # 6 kB per million frames is far below 16 bytes a frame.
    r = report(work, '--rss-tolerance', '16', rss_extra=6)
    check(r.returncode == 0, 'exit %d: %s' % (r.returncode, r.stderr))
    check(verdict_of(r, 'VmRSS') == 'growing, within the tolerance', row(r.stdout, 'VmRSS'))


def bad_input_is_refused(work):
    r = report(work, n=3)
    check(r.returncode == 2 and 'too few' in r.stderr, 'exit %d: %s' % (r.returncode, r.stderr))
    r = report(work, '--warmup', '95')
    check(r.returncode == 2 and 'usage:' in r.stderr, 'exit %d: %s' % (r.returncode, r.stderr))
    r = subprocess.run([TOOL, os.path.join(work, 'absent.tsv'), os.path.join(work, 't.md')],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 2 and 'absent.tsv' in r.stderr, 'exit %d: %s' % (r.returncode, r.stderr))


CHECKS = [flat_is_flat, leak_is_growing, heap_pages_in_a_fixed_heap_are_bounded,
          growth_outside_the_heap_is_growing, leak_inside_a_fixed_heap_is_growing, growing_fds_decide,
          samples_without_the_heap_are_not_bounded, tolerance_is_applied, bad_input_is_refused]


def main():
    global TOOL
    TOOL = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        return subtests.run('soak-report', CHECKS, work)


if __name__ == '__main__':
    sys.exit(main())
