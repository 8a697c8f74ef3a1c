"""What check-deploy prints: sections, one line per check, notes, and the counts at the end."""
import os
import sys
import time


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = []

    def section(self, title):
        print(f"== {title}", flush=True)

    def ok(self, message):
        self.passed += 1
        print(f"   ok    {message}", flush=True)

    def fail(self, message):
        self.failed += 1
        print(f"   FAIL  {message}", flush=True)

    def note(self, message):
        self.notes.append(message)
        print(f"   note  {message}", flush=True)

    def check(self, condition, message, failure=None):
        """ok(message) when condition holds, else fail(failure or message); returns condition."""
        if condition:
            self.ok(message)
        else:
            self.fail(failure or message)
        return condition

    def finish(self):
        """Prints the notes and counts; exits 1 when any check failed."""
        elapsed = time.time() - int(os.environ["CHECK_DEPLOY_STARTED"])
        print()
        for message in self.notes:
            print(f"check-deploy: note: {message}")
        print(f"check-deploy: {elapsed:.0f} s")
        print(f"check-deploy: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


report = Report()
section, ok, fail, note, check = report.section, report.ok, report.fail, report.note, report.check
