"""The subtest loop of the Python unit tests, in tests/lib/harness.h's shape:
a PASS/FAIL line per subtest, a JSON line per subtest in $SYNCWAY_TEST_JSON,
and "N passed, N failed" at the end."""
import json
import os
import subprocess
import time


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def run(suite, checks, tool):
    """Calls each check with tool; returns the exit status (1 if any failed)."""
    passed = failed = 0
    for fn in checks:
        name = fn.__name__.replace('_', '-')
        start = time.monotonic()
        try:
            fn(tool)
            result, message = 'pass', ''
            passed += 1
        except (Failure, ValueError, KeyError, IndexError, subprocess.TimeoutExpired) as e:
            result, message = 'fail', '%s: %s' % (type(e).__name__, e)
            failed += 1
        ms = (time.monotonic() - start) * 1000
        print('%s %s/%s%s' % (result.upper(), suite, name,
                              ': ' + message if message else ' (%.0f ms)' % ms))
        if os.environ.get('SYNCWAY_TEST_JSON'):
            with open(os.environ['SYNCWAY_TEST_JSON'], 'a') as f:
                f.write(json.dumps({'suite': suite, 'subtest': name, 'result': result,
                                    'ms': round(ms, 3), 'message': message},
                                   separators=(',', ':')) + '\n')
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0
