"""The test suite: ``.venv/bin/python -m pytest -q tests/...``.

No test's outcome depends on how fast the machine is (CI shares 2 cores with other jobs, at a load
average of 5-10). A time limit in a test is one of two kinds:

* far above need: what must happen in time (a bot's answer or start, a step, a poll for a file or a
  process) has a limit met on a machine ten times slower than a quiet one, and a passing test never
  waits it out;
* never met: what must be too slow never finishes by itself. It blocks until killed, or answers only
  once the arena has shown that it gave up (``tests/bots/fault_timeout.py``'s ``late``), never after a
  sleep a busy arena might fail to notice in time.

An order is checked by what one side leaves for the other (a file, a line, a call's place in a list),
not by comparing durations, and no test asserts how long something took.
"""
