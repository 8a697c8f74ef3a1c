"""No secret key is tracked by git under deploy/, and the key directories are ignored."""
import os
import re
import shutil

from common import ROOT, run
from report import check, note, section


def check_no_keys_in_git(findings):
    section("no secret keys in git")
    # .git is a directory in a clone and a file in a linked worktree.
    if not (shutil.which("git") and os.path.exists(os.path.join(ROOT, ".git"))):
        note("not a git work tree: tracked files not checked")
        return
    tracked = run(["git", "ls-files", "--", "deploy"], cwd=ROOT).stdout.split()
    leaked = [t for t in tracked if t.endswith(".key") or "/keys/" in t]
    for t in tracked:
        try:
            with open(os.path.join(ROOT, t), errors="replace") as f:
                if re.search(r'^\s*secret-key\s*=\s*"', f.read(), re.M):
                    leaked.append(t)
        except OSError:
            pass
    check(not leaked, f"{len(tracked)} tracked files under deploy/ hold no secret key", f"secret keys tracked by git: {leaked}")
    ignored_keys = all(run(["git", "check-ignore", "-q", p], cwd=ROOT).returncode == 0
                       for p in ("deploy/keys/coordinator.key", "deploy/kubernetes/keys/coordinator.key",
                                 "deploy/kubernetes-ha/keys/postgres.env", "deploy/kubernetes-ha/keys/dashboard.token"))
    check(ignored_keys, "deploy/keys/, deploy/kubernetes/keys/ and deploy/kubernetes-ha/keys/ (the database password) are ignored by git")
