"""tests/lib/result.sh under dash and bash, in the C and a UTF-8 locale: its
JSON lines parse and give back exactly the suite, subtest and message they
were given (quotes, backslashes, tabs, newlines, other control characters,
UTF-8), each result's ms is the time since the one before, its
PASS/FAIL/SKIP lines and summary count right, and log_lacks,
log_problems and run_problems find what syncway's runs and logs lack and
report.
    usage: result-sh-check.py RESULT_SH"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import subtests
from subtests import check

MESSAGES = [
    '',
    'plain words, digits 0123 and (parentheses); no escapes',
    'a "quoted" word',
    'back\\slash, two \\\\ and a trailing one\\',
    'tab\there',
    'two\nlines',
    '\nleading and trailing newlines\n\n',
    'carriage\rreturn, bell\a, escape\x1b[0m, unit\x1f, delete\x7f',
    'UTF-8: \u2013 \u0394 \u00e9',
    '\'single\' and "double" \\" mixed\t\n\\n',
]

# Runs its arguments as result calls; the messages come from the environment,
# so no shell quoting stands between the test and result.sh.
SCRIPT = '''
. "$RESULT_SH"
result_suite=$SUITE
i=0
while [ $i -lt $COUNT ]; do
	eval "msg=\\$MSG$i"
	result "sub-$i" "$1" "$msg"
	i=$((i + 1))
done
result plain pass
result_summary
'''


def shells():
    found = [s for s in ('dash', 'bash') if shutil.which(s)]
    check(found, 'neither dash nor bash is installed')
    return found


def call(shell, result_sh, fn, *args, cwd=None):
    """FN ARGS in SHELL after sourcing result.sh: 'STATUS|TEXT', TEXT being what
    the function left in the variable of its own name."""
    p = subprocess.run([shell, '-uc', '. "$1"; shift; "$@"; s=$?; eval "v=\\$$1"; '
                        'printf "%s|%s" $s "$v"', shell, result_sh, fn, *args],
                       capture_output=True, timeout=60, cwd=cwd)
    return p.stdout.decode()


def run_script(result_sh, shell, lang, kind, suite='suite "q" \\ \t'):
    work = tempfile.mkdtemp()
    try:
        out = os.path.join(work, 'results.jsonl')
        env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'LANG': lang, 'LC_ALL': lang,
               'RESULT_SH': result_sh, 'SUITE': suite, 'COUNT': str(len(MESSAGES)),
               'SYNCWAY_TEST_JSON': out}
        env.update({'MSG%d' % i: m for i, m in enumerate(MESSAGES)})
        p = subprocess.run([shell, '-uc', SCRIPT, shell, kind], env=env, capture_output=True,
                           timeout=60)
        with open(out, 'rb') as f:
            lines = f.read().decode().splitlines()
        return p, lines
    finally:
        shutil.rmtree(work)


def json_round_trip(result_sh):
    for shell in shells():
        for lang in ('C', 'C.UTF-8'):
            where = '%s, LANG=%s' % (shell, lang)
            p, lines = run_script(result_sh, shell, lang, 'fail')
            check(p.returncode == 1, '%s: status %d, expected 1: %s' %
                  (where, p.returncode, p.stderr.decode()))
            check(len(lines) == len(MESSAGES) + 1, '%s: %d JSON lines' % (where, len(lines)))
            for i, line in enumerate(lines):
                d = json.loads(line)
                check(list(d) == ['suite', 'subtest', 'result', 'ms', 'message'],
                      '%s: keys %s' % (where, list(d)))
                check(d['suite'] == 'suite "q" \\ \t', '%s: suite %r' % (where, d['suite']))
                if i < len(MESSAGES):
                    check(d['subtest'] == 'sub-%d' % i and d['result'] == 'fail',
                          '%s: line %d: %r' % (where, i, d))
                    check(d['message'] == MESSAGES[i], '%s: message %r came back as %r' %
                          (where, MESSAGES[i], d['message']))
                else:
                    check(d == {'suite': d['suite'], 'subtest': 'plain', 'result': 'pass',
                                'ms': d['ms'], 'message': ''}, '%s: last line %r' % (where, d))
                check(isinstance(d['ms'], int) and 0 <= d['ms'] < 60000 and d['ms'] % 10 == 0,
                      '%s: line %d: ms %r, not a time in hundredths of a second' % (where, i, d['ms']))


def ms_since_previous_result(result_sh):
    """A result's ms is the time since the one before it (or since the file
    was sourced), whatever ran in between."""
    script = ('. "$RESULT_SH"; result_suite=s; sleep 0.3; result first pass; '
              'result second pass; sleep 0.5; result third pass')
    for shell in shells():
        work = tempfile.mkdtemp()
        try:
            out = os.path.join(work, 'results.jsonl')
            p = subprocess.run([shell, '-uc', script], capture_output=True, timeout=60,
                               env={'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
                                    'RESULT_SH': result_sh, 'SYNCWAY_TEST_JSON': out})
            check(p.returncode == 0, '%s: status %d: %s' % (shell, p.returncode, p.stderr.decode()))
            with open(out) as f:
                ms = [json.loads(line)['ms'] for line in f]
            check(len(ms) == 3 and 250 <= ms[0] <= 2000 and ms[1] <= 100 and 450 <= ms[2] <= 2500,
                  '%s: ms %r after sleeps of 0.3 s, none and 0.5 s' % (shell, ms))
        finally:
            shutil.rmtree(work)


def result_lines(result_sh):
    for shell in shells():
        for kind, status in (('fail', 1), ('skip', 0), ('pass', 0)):
            p, _ = run_script(result_sh, shell, 'C.UTF-8', kind, suite='s')
            where = '%s, %s' % (shell, kind)
            check(p.returncode == status, '%s: status %d' % (where, p.returncode))
            out = p.stdout.decode()
            want = '%s s/sub-2: a "quoted" word\n' % kind.upper()
            if kind == 'pass':
                want = 'PASS s/sub-2\n'
            check(want in out, '%s: no line %r in %r' % (where, want, out[:300]))
            check(out.startswith(kind.upper() + ' s/sub-0' + '\n'),
                  '%s: an empty message adds nothing: %r' % (where, out[:40]))
            n = len(MESSAGES)
            counts = {'pass': (n + 1, 0, 0), 'fail': (1, n, 0), 'skip': (1, 0, n)}[kind]
            summary = 's: %d subtests passed, %d failed, %d skipped\n' % counts
            check(out.endswith(summary), '%s: summary %r' % (where, out[-80:]))


def no_json_without_file(result_sh):
    for shell in shells():
        p = subprocess.run([shell, '-uc', '. "$1"; result_suite=s; result x fail "m"; '
                            'result_summary', shell, result_sh],
                           env={'PATH': os.environ.get('PATH', '/usr/bin:/bin')},
                           capture_output=True, timeout=60)
        check(p.returncode == 1 and p.stderr == b'', '%s: status %d, stderr %r' %
              (shell, p.returncode, p.stderr))
        check(p.stdout == b'FAIL s/x: m\ns: 0 subtests passed, 1 failed, 0 skipped\n',
              '%s: %r' % (shell, p.stdout))


LOGS = {
    'clean': ('syncway: 120 frames in 2.0 s\n(0 alive)\n', ''),
    'leak': ('syncway: fd 7 sync_file LEAK?\n', 'fd leak reported'),
    'asan': ('==12==ERROR: AddressSanitizer: heap-use-after-free\n', 'sanitizer report'),
    'lsan': ('==12==ERROR: LeakSanitizer: detected memory leaks\n', 'sanitizer report'),
    'ubsan': ('x.c:3:5: runtime error: signed integer overflow\n', 'sanitizer report'),
    'both': ('LEAK?\nruntime error: x\n', 'fd leak reported; sanitizer report'),
}


def log_problems(result_sh):
    work = tempfile.mkdtemp()
    try:
        for name, (text, want) in LOGS.items():
            log = os.path.join(work, name + '.log')
            with open(log, 'w') as f:
                f.write(text)
            for shell in shells():
                got = call(shell, result_sh, 'log_problems', log)
                check(got == '%d|%s' % (1 if want else 0, want),
                      '%s: %s log: %r, expected %r' % (shell, name, got, want))
    finally:
        shutil.rmtree(work)


def log_lacks(result_sh):
    work = tempfile.mkdtemp()
    try:
        log = os.path.join(work, 'syncway.log')
        with open(log, 'w') as f:
            f.write('all checks passed\n(0 alive)\n[95 %] *\n')
        cases = [('all checks passed|(0 alive)', 0, ''),
                 ('all checks passed', 0, ''),
                 ('[95 %] *', 0, ''),
                 ('(0 alive)|1 waited|all checks passed|2 waited', 1,
                  "missing '1 waited'; missing '2 waited'"),
                 # glob characters stay literal, even where a file matches
                 ('*.log', 1, "missing '*.log'")]
        for shell in shells():
            for expect, status, want in cases:
                got = call(shell, result_sh, 'log_lacks', log, expect, cwd=work)
                check(got == '%d|%s' % (status, want), '%s: %r: %r, expected %r' %
                      (shell, expect, got, want))
    finally:
        shutil.rmtree(work)


def run_problems(result_sh):
    work = tempfile.mkdtemp()
    try:
        log = os.path.join(work, 'syncway.log')
        with open(log, 'w') as f:
            f.write('all checks passed\nfd 9 LEAK?\n')
        cases = [('0', 'all checks passed', 1, 'fd leak reported'),
                 ('124', 'all checks passed|(0 alive)', 1,
                  "exit status 124; missing '(0 alive)'; fd leak reported")]
        for shell in shells():
            for status, expect, rc, want in cases:
                got = call(shell, result_sh, 'run_problems', log, status, expect)
                check(got == '%d|%s' % (rc, want), '%s: %r: %r, expected %r' %
                      (shell, expect, got, want))
        os.remove(log)
        with open(log, 'w') as f:
            f.write('all checks passed\n')
        for shell in shells():
            got = call(shell, result_sh, 'run_problems', log, '0', 'all checks passed')
            check(got == '0|', '%s: a clean run: %r' % (shell, got))
    finally:
        shutil.rmtree(work)


CHECKS = [json_round_trip, ms_since_previous_result, result_lines, no_json_without_file, log_lacks,
          log_problems, run_problems]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    return subtests.run('result-sh', CHECKS, os.path.abspath(sys.argv[1]))


if __name__ == '__main__':
    sys.exit(main())
