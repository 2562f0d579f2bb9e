#!/usr/bin/env python3
"""The man page lints clean with mandoc, and names exactly the long options
that syncway --help lists.

    manpage-check.py MANPAGE SYNCWAY
Exits 77 (skipped) where mandoc is not installed."""
import re
import shutil
import subprocess
import sys

man, syncway = sys.argv[1], sys.argv[2]
failed = False
if not shutil.which("mandoc"):
    print("mandoc is not installed")
    sys.exit(77)
lint = subprocess.run(["mandoc", "-Tlint", "-W", "warning", man], capture_output=True, text=True)
if lint.returncode != 0 or lint.stdout.strip() or lint.stderr.strip():
    print("mandoc -Tlint:\n" + lint.stdout + lint.stderr)
    failed = True
help_text = subprocess.run([syncway, "--help"], capture_output=True, text=True, check=True).stdout
help_opts = set(re.findall(r"--([a-z][a-z-]+)", help_text.split("Backends come")[0]))
man_text = open(man).read().replace("\\-", "-")
man_opts = set(re.findall(r"^\.B[IR]? .*?--([a-z][a-z-]+)", man_text, re.M))
for opt in sorted(help_opts - man_opts):
    print(f"--{opt} is in syncway --help but not in the man page")
    failed = True
for opt in sorted(man_opts - help_opts):
    print(f"--{opt} is in the man page but not in syncway --help")
    failed = True
if not help_opts:
    print("no options found in syncway --help")
    failed = True
print(f"{len(help_opts)} options in both" if not failed else "FAIL")
sys.exit(1 if failed else 0)
