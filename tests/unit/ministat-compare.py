#!/usr/bin/env python3
"""Compares syncway-ministat with the real ministat(1), byte for byte.

usage: ministat-compare.py SYNCWAY_MINISTAT [--cases N] [--seed S] [--keep DIR]

Checks, each one a subtest with a PASS/FAIL line:
  t-table   every cell of ministat's t table that inputs can reach (nu 4..102
            and beyond, six levels), through crafted pairs of datasets;
  random    N random cases (SYNCWAY_MINISTAT_CASES, default 2000): 1 to 7
            datasets, sizes 1 to 300 (below 3 is an error), ties, negative,
            tiny and huge values, -0, comments, CRLF, multi-column input with
            -C and -d, stdin, and random -A -n -s -c -w;
  errors    bad options and bad input: same status, same first line of stderr
            (the program name aside);
  terminal  default width taken from the terminal, through a pseudo-terminal.
stdout and the exit status must be identical. Exits 77 (skipped) when ministat
is not installed, 0 when all pass, 1 otherwise; ends with "N passed, N failed".
"""
import argparse
import difflib
import json
import fcntl
import os
import pty
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time

LEVELS = ['80', '90', '95', '98', '99', '99.5']


class Runner:
    def __init__(self, ours, workdir, keep):
        self.ours = ours
        self.workdir = workdir
        self.keep = keep
        self.failures = 0
        self.case = 0
        self.tally = {}

    def run(self, prog, args, stdin):
        p = subprocess.run([prog] + args, input=stdin, capture_output=True,
                           cwd=self.workdir, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def compare(self, args, stdin=None, files=None):
        """Writes files (name -> text), runs both programs; True when alike."""
        for name, text in (files or {}).items():
            with open(os.path.join(self.workdir, name), 'w', newline='') as f:
                f.write(text)
        theirs = self.run('ministat', args, stdin)
        mine = self.run(self.ours, args, stdin)
        self.tally['status %d' % theirs[0]] = self.tally.get('status %d' % theirs[0], 0) + 1
        for word in (b'Difference at', b'No difference', b'[no plot', b'+--'):
            if word in theirs[1]:
                self.tally[word.decode()] = self.tally.get(word.decode(), 0) + 1
        problem = self.difference(theirs, mine)
        if problem:
            self.report(args, stdin, files, problem, theirs, mine)
            return False
        return True

    def difference(self, theirs, mine):
        if theirs[0] < 0:
            return None  # ministat crashed: nothing to match
        if theirs[0] != mine[0]:
            return 'exit status %d, ministat %d' % (mine[0], theirs[0])
        if theirs[1] != mine[1]:
            return 'stdout differs'
        first = [e.split(b'\n', 1)[0] for e in (theirs[2], mine[2])]
        # err() names the program by its base name, getopt by its argv[0].
        for prefix in (b'ministat: ', self.ours.encode() + b': ',
                       os.path.basename(self.ours).encode() + b': '):
            first = [f[len(prefix):] if f.startswith(prefix) else f for f in first]
        if first[0] != first[1]:
            return 'stderr differs: %r, ministat %r' % (first[1], first[0])
        return None

    def report(self, args, stdin, files, problem, theirs, mine):
        self.failures += 1
        if self.failures > 5:
            return
        print('# mismatch: %s: %s' % (problem, ' '.join(args)))
        if self.keep:
            self.case += 1
            d = os.path.join(self.keep, 'case%d' % self.case)
            os.makedirs(d, exist_ok=True)
            for name, text in (files or {}).items():
                with open(os.path.join(d, name), 'w', newline='') as f:
                    f.write(text)
            with open(os.path.join(d, 'args'), 'w') as f:
                f.write(' '.join(args) + '\n')
            if stdin is not None:
                with open(os.path.join(d, 'stdin'), 'wb') as f:
                    f.write(stdin)
            print('# kept in %s' % d)
        show = lambda b: b.decode(errors='replace').splitlines()
        print('# status: ministat %d, syncway-ministat %d' % (theirs[0], mine[0]))
        for line in list(difflib.unified_diff(show(theirs[1]), show(mine[1]), 'ministat',
                                              'syncway-ministat', lineterm=''))[:30]:
            print('#   ' + line)
        for tag, out in (('ministat', theirs), ('syncway-ministat', mine)):
            for line in show(out[2])[:2]:
                print('#   %s stderr: %s' % (tag, line))


def t_table(r):
    """Pairs whose pooled s and difference make ministat print t itself."""
    ok = True
    for nu in list(range(4, 103)) + [150, 500]:
        na = (nu + 2) // 2
        nb = nu + 2 - na
        files = {'A': ''.join('%d\n' % i for i in range(na)),
                 'B': ''.join('%d\n' % (1000 + i) for i in range(nb))}
        for level in LEVELS:
            ok &= r.compare(['-A', '-c', level, 'A', 'B'], files=files)
            files = None
    return ok


def number_text(rng, v):
    """The ways a number may be written in a data file."""
    k = rng.random()
    if k < 0.55:
        return repr(v)
    if k < 0.7:
        return '%.6g' % v
    if k < 0.8:
        return '%e' % v
    if k < 0.9 and v == int(v) and abs(v) < 1e15:
        return '%d' % v
    return '%.17g' % v


def sample(rng, n, style):
    if style == 'ints':
        lo = rng.randint(-50, 50)
        return [float(rng.randint(lo, lo + rng.choice([0, 1, 3, 10, 100]))) for _ in range(n)]
    if style == 'normal':
        mu = rng.choice([0, 1, 100, 22000, -5, 1e6]) * rng.uniform(0.5, 1.5)
        sd = abs(mu) * rng.choice([0.001, 0.01, 0.1, 1]) + rng.choice([0, 0.1, 1])
        return [rng.gauss(mu, sd) for _ in range(n)]
    if style == 'magnitude':
        e = rng.choice([-300, -30, -9, -3, 3, 9, 30, 100, 150])
        return [rng.uniform(-1, 1) * 10 ** e for _ in range(n)]
    if style == 'offset':
        base = rng.choice([1e6, 1e8, 1e12, -1e9])
        return [base + rng.randint(0, 5) * rng.choice([0.1, 0.25, 1]) for _ in range(n)]
    if style == 'skewed':
        return [rng.expovariate(1 / rng.choice([1, 10, 1000])) for _ in range(n)]
    if style == 'zeros':
        return [rng.choice([0.0, -0.0, 0.0, rng.choice([1.0, -1.0])]) for _ in range(n)]
    return [float(rng.choice([5, 5, 5, 7])) for _ in range(n)]


STYLES = ['ints', 'normal', 'magnitude', 'offset', 'skewed', 'zeros', 'flat']


def dataset_text(rng, values, column, delim, decorate):
    """One file: values in the given column, other columns filled with noise."""
    lines = []
    if decorate and rng.random() < 0.3:
        lines.append('# comment line')
    for v in values:
        cells = [number_text(rng, rng.uniform(-9, 9)) for _ in range(column - 1)]
        cells.append(number_text(rng, v))
        if rng.random() < 0.3:
            cells.append(rng.choice(['extra', '7', '#tail']))
        line = delim.join(cells)
        if decorate:
            k = rng.random()
            if k < 0.05:
                lines.append('')
            elif k < 0.1:
                line = delim * 2 + line  # strtok skips leading delimiters
            elif k < 0.15:
                line += ' \t'
            elif k < 0.2:
                line += '\r'
        lines.append(line)
    if decorate and rng.random() < 0.2:
        lines.append('#' + delim + '5')
    text = '\n'.join(lines)
    return text if decorate and rng.random() < 0.1 else text + '\n'


def random_case(r, rng):
    count = rng.choice([1, 1, 2, 2, 2, 2, 3, 3, 4, 5, 6, 7])
    column = rng.choice([1, 1, 1, 2, 3])
    delim = rng.choice([' ', ' ', '\t', ',', ';'])
    style = rng.choice(STYLES)
    files = {}
    names = []
    for i in range(count):
        k = rng.random()
        n = rng.randint(1, 2) if k < 0.02 else rng.randint(3, 6) if k < 0.4 else rng.randint(3, 300)
        vals = sample(rng, n, style if rng.random() < 0.7 else rng.choice(STYLES))
        if rng.random() < 0.3:
            shift = rng.choice([0.5, 1, 10]) * (max(vals) - min(vals) + 1)
            vals = [v + shift for v in vals]
        name = 'set%d%s' % (i, rng.choice(['', '.txt', '_long-name.dat']))
        files[name] = dataset_text(rng, vals, column, delim, rng.random() < 0.5)
        names.append(name)
    args = []
    for flag in ('-A', '-n', '-s'):
        if rng.random() < 0.2:
            args.append(flag)
    if rng.random() < 0.5:
        args += ['-c', rng.choice(LEVELS)]
    if rng.random() < 0.7:
        args += ['-w', str(rng.choice([2, 3, 5, 10, 20, 40, 60, 74, 80, 100, 150, 250]))]
    if column != 1 or rng.random() < 0.1:
        args += ['-C', str(column)]
    if delim not in ' \t' or rng.random() < 0.1:
        args += ['-d', delim if delim not in ' \t' or rng.random() < 0.5 else ' \t']
    stdin = None
    if rng.random() < 0.1:
        stdin = files[names[0]].encode()
        # "-" names stdin; a lone dataset may also come from stdin unnamed.
        names[0] = '-' if count > 1 else rng.choice(['-', None])
    return r.compare(args + [n for n in names if n is not None], stdin=stdin, files=files)


def random_cases(r, seed, cases):
    rng = random.Random(seed)
    r.tally = {}
    ok = all([random_case(r, rng) for _ in range(cases)])
    print('# %d random cases (seed %d), by ministat\'s output: %s' % (
        cases, seed, ', '.join('%s: %d' % kv for kv in sorted(r.tally.items()))))
    return ok


def errors(r):
    good = {'g1': '1\n2\n3\n', 'g2': '4\n5\n9\n'}
    bad = {
        'letters': '1\nabc\n3\n', 'two': '1\n2\n', 'empty': '', 'trail': '1 \n2x\n3\n',
        'exp': '1e\n2\n3\n', 'hex': '0x10\n2\n3\n', 'nul': '1\n2\n3\x00junk\n4\n',
        'cr-mid': '1\r2\n2\n3\n', 'vtab': '\v\n1\n\v2\n3\n', 'long': '5' + ' ' * 8190 + '7\n3\n4\n',
        'long-bad': '5' + ' ' * 8200 + 'x\n3\n4\n', 'hash': '1 #x\n#2\n 3\n4#\n',
        'plus': '+5\n.5\n-.5e1\n', 'under': '1e-400\n2\n3\n',
    }
    cases = [
        ['-h'], ['-x', 'g1'], ['-C'], ['g1', '-w'], ['-C', '0', 'g1'], ['-C', '-1', 'g1'],
        ['-C', 'x', 'g1'], ['-C', '1x', 'g1'], ['-C', '', 'g1'], ['-C', '4294967297', '-n', 'g1'],
        ['-C', '2147483648', 'g1'], ['-C', '99999999999', 'g1'], ['-c', '97', 'g1'],
        ['-c', '95x', 'g1'], ['-c', '', 'g1'], ['-c', '8e1', 'g1', 'g2'], ['-c', '0x50', 'g1', 'g2'],
        ['-c', ' 99.5', 'g1', 'g2'], ['-c', '99.50', 'g1', 'g2'], ['-w', 'x', 'g1'], ['-w', '-1', 'g1'],
        ['-w', '5x', 'g1'], ['-w', '4294967370', 'g1', 'g2'], ['-w', ' 20', 'g1'], ['-w', '0', '-n', 'g1'],
        ['-w', '1', '-A', 'g1', 'g2'], ['nofile'], ['g1', 'nofile'], [''], ['two', 'nofile'],
        ['nofile', 'two'], ['letters', 'two'], ['g1'] * 8, ['nofile'] + ['g1'] * 7, ['--', 'g1'],
        ['-nA', 'g1', 'g2'], ['-Cx', 'g1'], ['g1', 'g2', '-n'], ['-d', '', 'g1'],
    ] + [[name] for name in sorted(bad)] + [['-C', '2', 'hash'], ['-C', '2', 'long']]
    r.compare([], files=dict(good, **bad))
    return all([r.compare(args) for args in cases]) & r.compare(['-', 'g1'], stdin=b'7\n8\n9\n')


def terminal(r):
    """The plot is as wide as the terminal, less two, when stdout is one."""
    def run(prog, cols):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, cols, 0, 0))
        p = subprocess.Popen([prog, 'g1', 'g2'], stdout=slave, stderr=slave, cwd=r.workdir)
        os.close(slave)
        out = b''
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        return p.wait(), out
    ok = True
    for cols in (80, 120, 40, 0):
        theirs, mine = run('ministat', cols), run(r.ours, cols)
        if theirs != mine:
            print('# terminal of %d columns: ministat %r, ours %r' % (cols, theirs, mine))
            ok = False
    return ok


def record(result, name, ms, message=''):
    """A PASS/FAIL/SKIP line, and a JSON line like the C harness's (tests/lib/harness.h)."""
    print('%s ministat-compare/%s%s' % (result.upper(), name, ': ' + message if message else
                                        ' (%.0f ms)' % ms if result == 'pass' else ''))
    sys.stdout.flush()
    path = os.environ.get('SYNCWAY_TEST_JSON')
    if path:
        with open(path, 'a') as f:
            f.write(json.dumps({'suite': 'ministat-compare', 'subtest': name, 'result': result,
                                'ms': round(ms, 3), 'message': message}, separators=(',', ':')) + '\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ours')
    ap.add_argument('--cases', type=int, default=int(os.environ.get('SYNCWAY_MINISTAT_CASES', 2000)))
    ap.add_argument('--seed', type=int, default=int(os.environ.get('SYNCWAY_MINISTAT_SEED', 20150715)))
    ap.add_argument('--keep', help='directory for the files of mismatching cases')
    a = ap.parse_args()
    checks = ('t-table', 'random', 'errors', 'terminal')
    if not shutil.which('ministat'):
        for name in checks:
            record('skip', name, 0, 'the reference ministat is not installed (apt-get install ministat)')
        return 77
    ours = os.path.abspath(a.ours)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        r = Runner(ours, work, a.keep)
        run = {'t-table': lambda: t_table(r),
               'random': lambda: random_cases(r, a.seed, a.cases),
               'errors': lambda: errors(r),
               'terminal': lambda: terminal(r)}
        for name in checks:
            before = r.failures
            start = time.monotonic()
            ok = run[name]() and r.failures == before
            ms = (time.monotonic() - start) * 1000
            if ok:
                passed += 1
                record('pass', name, ms)
            else:
                failed += 1
                record('fail', name, ms, '%d mismatching runs (seed %d)' % (r.failures - before, a.seed))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
