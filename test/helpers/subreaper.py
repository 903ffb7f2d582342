"""A parent that never reaps, as a container whose PID 1 is no init.

Usage: python3 subreaper.py COMMAND [ARG...]

Becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every orphaned
descendant of COMMAND -- a daemon the evidex CLI starts detached -- becomes its
child once COMMAND exits; runs COMMAND and collects COMMAND's own exit only
(waitpid on its pid; COMMAND's output goes to stderr); prints `exit N`; and
then reaps nothing, ever, until its stdin is closed. A daemon killed meanwhile
stays a zombie (state Z) all that time.
"""
import ctypes
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36

libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER) failed: errno {ctypes.get_errno()}")
result = subprocess.run(sys.argv[1:], stdout=sys.stderr)
print(f"exit {result.returncode}", flush=True)
sys.stdin.read()
