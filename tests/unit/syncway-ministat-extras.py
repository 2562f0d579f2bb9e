#!/usr/bin/env python3
"""Tests syncway-ministat's own options; needs no reference ministat.

usage: syncway-ministat-extras.py SYNCWAY_MINISTAT

Each check is a subtest with a PASS/FAIL line (and a JSON line in
$SYNCWAY_TEST_JSON, like tests/lib/harness.h); ends with "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import tempfile

import subtests
from subtests import check

IGUANA = '50\n200\n150\n400\n750\n400\n150\n'
CHAMELEON = '150\n400\n720\n500\n930\n'
EXTRA_PREFIXES = ('\tmedian ', "Welch's t", '\t(t = ', 'Mann-Whitney', 'Hodges-Lehmann',
                  'Bootstrap difference', '\t(B = ')


class Tool:
    def __init__(self, path, work):
        self.path = path
        self.work = work
        for name, text in (('iguana', IGUANA), ('chameleon', CHAMELEON),
                           ('shifted', ''.join('%d\n' % (v + 1000) for v in range(1, 31))),
                           ('base', ''.join('%d\n' % v for v in range(1, 31)))):
            with open(os.path.join(work, name), 'w') as f:
                f.write(text)

    def run(self, *args, status=0):
        p = subprocess.run([self.path] + list(args), capture_output=True, text=True,
                           cwd=self.work, timeout=60)
        check(p.returncode == status, '%s: status %d, expected %d (%s)' % (
            ' '.join(args), p.returncode, status, p.stderr.strip()))
        return p.stdout, p.stderr


def extras_keep_ministat_output(t):
    plain, _ = t.run('iguana', 'chameleon')
    for opts in (['--welch'], ['--mann-whitney'], ['--bootstrap=500'],
                 ['--welch', '--mann-whitney', '--bootstrap=200', '--seed=3', '-c', '80']):
        out, _ = t.run(*opts, 'iguana', 'chameleon')
        kept = [line for line in out.splitlines() if not line.startswith(EXTRA_PREFIXES)]
        base = plain if '-c' not in opts else t.run('-c', '80', 'iguana', 'chameleon')[0]
        check(kept == base.splitlines(), '%s changed ministat\'s lines' % ' '.join(opts))
        check(len(out.splitlines()) > len(kept), '%s printed nothing more' % ' '.join(opts))


def json_lines(t):
    out, _ = t.run('--json', '--welch', '--mann-whitney', '--bootstrap=300',
                   'iguana', 'chameleon', 'base')
    rows = [json.loads(line) for line in out.splitlines()]
    check([r['type'] for r in rows] == ['dataset'] * 3 + ['comparison'] * 2,
          'unexpected objects: %s' % [r['type'] for r in rows])
    iguana, chameleon = rows[0], rows[1]
    check(iguana['name'] == 'iguana' and iguana['n'] == 7 and iguana['median'] == 200
          and iguana['mean'] == 300 and abs(iguana['stddev'] - 238.04761) < 1e-5,
          'iguana summary: %s' % iguana)
    check(chameleon['p50'] == 500 and chameleon['p99_9'] == 930, 'percentiles: %s' % chameleon)
    cmp1 = rows[3]
    student = cmp1['student']
    check(cmp1['index'] == 1 and cmp1['reference'] == 0 and student['nu'] == 10
          and student['t'] == 2.228 and student['significant'] is False, 'student: %s' % student)
    for key in ('welch', 'mann_whitney', 'hodges_lehmann', 'bootstrap_median_difference'):
        check(key in cmp1, 'comparison lacks %s' % key)
    w = cmp1['welch']
    check(w['lo'] < w['difference'] < w['hi'] and 0 < w['p'] < 1, 'welch: %s' % w)
    plain, _ = t.run('--json', '-n', 'iguana', 'chameleon')
    check([json.loads(line)['type'] for line in plain.splitlines()] == ['dataset'] * 2,
          '-n still compares in JSON')


def json_names_escaped(t):
    name = 'we"ird\\name\t'
    with open(os.path.join(t.work, name), 'w') as f:
        f.write('1\n2\n3\n')
    out, _ = t.run('--json', name)
    check(json.loads(out)['name'] == name, 'name not escaped: %r' % out)


def bootstrap_deterministic(t):
    a, _ = t.run('--bootstrap=1000', '--seed=11', 'base', 'shifted')
    b, _ = t.run('--bootstrap=1000', '--seed=11', 'base', 'shifted')
    c, _ = t.run('--bootstrap=1000', '--seed=12', 'base', 'shifted')
    check(a == b, 'same seed, different output')
    check(a != c, 'seed has no effect')
    line = [x for x in a.splitlines() if x.startswith('Bootstrap difference')][0]
    lo, hi = (float(v) for v in line.split('[')[1].split(']')[0].split(','))
    check(lo <= 1000 <= hi and hi - lo < 30, 'difference of medians interval: %s' % line)


def clear_significance(t):
    out, _ = t.run('--welch', '--mann-whitney', 'base', 'shifted')
    check('Difference at 95.0% confidence' in out, 'Student missed a shift of 1000')
    welch = [x for x in out.splitlines() if x.startswith('\t(t = ')][0]
    check(float(welch.split('p = ')[1].rstrip(')')) < 1e-30, 'Welch p: %s' % welch)
    hl = [x for x in out.splitlines() if x.startswith('Hodges-Lehmann')][0]
    # Differences 1000 + k, k = −29..29, each 30 − |k| times; n = m = 30 at 95 %
    # gives C = ⌊450 − 1.96·√(900·61/12)⌋ = 317, and 300 < 317 ≤ 325 of them are ≤ 995.
    check(hl.endswith(': 1000 [995, 1005]'), 'Hodges-Lehmann: %s' % hl)


def bad_input(t):
    cases = [
        (['-w', '0', 'iguana'], 2, 'width of at least 2'),
        (['-w', '1', 'iguana', 'chameleon'], 2, 'width of at least 2'),
        (['--bootstrap=0', 'iguana'], 2, 'Invalid number of bootstrap resamples'),
        (['--bootstrap=x', 'iguana'], 2, 'Invalid number of bootstrap resamples'),
        (['--seed=', 'iguana'], 2, 'Invalid seed'),
        (['--nope', 'iguana'], 2, 'Unknown option'),
        (['.'], 1, 'Cannot read .'),
        (['missing'], 1, 'Cannot open missing'),
    ]
    for name, text in (('nan', '1\nnan\n3\n4\n'), ('inf', '1\n2\n-inf\n4\n'), ('huge', '1e999\n1\n2\n')):
        with open(os.path.join(t.work, name), 'w') as f:
            f.write(text)
        cases.append(([name], 2, 'Invalid data on line'))
    for args, status, words in cases:
        out, err = t.run(*args, status=status)
        check(words in err, '%s: stderr %r lacks %r' % (' '.join(args), err, words))
        check(out == '', '%s: printed %r' % (' '.join(args), out))
    out, _ = t.run('-w', '0', '-A', 'iguana', 'chameleon')
    check('No difference proven' in out, '-w 0 without a plot is fine')
    out, _ = t.run('--help')
    check(out.startswith('Usage: syncway-ministat'), '--help: %r' % out[:40])


def moments(t):
    """The cover letter's blocks, from N, average and stddev alone."""
    out, _ = t.run('--moments=135,22307.707,198.75011', '--moments=118,22671.442,192.10609')
    check(out.splitlines()[-4:] == ['Difference at 95.0% confidence', '\t363.735 +/- 48.3345',
                                    '\t1.63054% +/- 0.216672%', '\t(Student\'s t, pooled s = 195.681)'],
          'Steam Deck: %r' % out)
    check('x 135             -             -             -     22307.707     198.75011' in out,
          'summary row: %r' % out)
    out, _ = t.run('--moments', '55,7754.5195,191.69526', '--moments', '55,8150.6303,105.84085',
                   '--welch')
    check('\t396.111 +/- 57.8717\n\t5.10813% +/- 0.746296%\n\t(Student\'s t, pooled s = 154.838)\n'
          in out, 'Alder Lake: %r' % out)
    check("Welch's t at 95.0% confidence: 396.111 [" in out, 'no Welch line: %r' % out)
    for args, words in ((['--moments=5,1,1', 'iguana'], 'either files or --moments'),
                        (['--moments=5,1,1', '--bootstrap'], 'need the data points'),
                        (['--moments=1,1,1'], 'Invalid --moments'),
                        (['--moments=5,1,-1'], 'Invalid --moments'),
                        (['--moments=5,1'], 'Invalid --moments')):
        _, err = t.run(*args, status=2)
        check(words in err, '%s: %r' % (args, err))


CHECKS = [moments, extras_keep_ministat_output, json_lines, json_names_escaped, bootstrap_deterministic,
          clear_significance, bad_input]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        return subtests.run('syncway-ministat', CHECKS, Tool(path, work))


if __name__ == '__main__':
    sys.exit(main())
