# SPDX-License-Identifier: GPL-2.0-only
"""Read a patchsite trace directory from Python: its calls and its report rows.

    import patchsite
    t = patchsite.Trace("patchsite.data")
    for ctx in t.events():          # what `patchsite script` hands a script
        if ctx["cb"] == "exit":
            print(ctx["name"], ctx["duration"])
    rows = t.report()               # `patchsite report --json`, one dict per row

The data come from the patchsite command (`patchsite script --json`,
`patchsite report --json`): this module parses no trace file itself, so it
reads what every other reader reads.  See patchsite-script(1).
"""
import json
import os
import shutil
import subprocess
import tempfile
import warnings

__all__ = ["Trace", "PatchsiteError"]


class PatchsiteError(Exception):
    """The patchsite command refused or failed: its message, as it said it."""


class Trace:
    """One trace directory (patchsite record -d DIR), read through the command.

    pid, tid: only that process or thread, as --pid and --tid.  patchsite: the
    command to run (default: patchsite on PATH).  What the recording lost is
    in .losses (the lines the other readers print) and .lost (events), read
    with the first events() or begin(), and said once with warnings.warn.
    """

    def __init__(self, dir="patchsite.data", pid=None, tid=None, patchsite=None):
        self.dir = dir
        self.patchsite = patchsite or shutil.which("patchsite") or "patchsite"
        self._select = []
        if pid is not None:
            self._select.append("--pid=%d" % pid)
        if tid is not None:
            self._select.append("--tid=%d" % tid)
        self.losses = None
        self.lost = None

    def _run(self, verb, *args):
        """The command's stdout lines, streamed; PatchsiteError when it fails."""
        cmd = [self.patchsite, verb, "-d", self.dir] + self._select + list(args)
        with tempfile.TemporaryFile(mode="w+") as err:
            try:
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
            except OSError as e:
                raise PatchsiteError("%s: %s" % (self.patchsite, e.strerror)) from None
            with proc:
                yield from proc.stdout
            err.seek(0)
            said = err.read().strip()
            if proc.returncode:
                raise PatchsiteError(said or "%s exited %d" % (" ".join(cmd), proc.returncode))

    def _note_begin(self, ctx):
        self.losses, self.lost = ctx["losses"], ctx["lost"]
        if self.losses:
            warnings.warn("%s: the recording is not whole: %s" % (self.dir, "; ".join(self.losses)),
                          stacklevel=4)

    def events(self):
        """Each ctx `patchsite script` gives a script, with its callback's name in
        "cb": begin first, then entry, exit and event in replay's order, end last."""
        for line in self._run("script", "--json"):
            ctx = json.loads(line)
            if ctx["cb"] == "begin":
                self._note_begin(ctx)
            yield ctx

    def calls(self):
        """The entries and exits only (no begin, end or trace events)."""
        return (c for c in self.events() if c["cb"] in ("entry", "exit"))

    def begin(self):
        """begin's ctx: record, version, cmds, dir, losses, lost."""
        return next(iter(self.events()))

    def report(self, sort=None):
        """`patchsite report --json`: a dict per function (name, calls, total_ns, self_ns, ...)."""
        args = ["--json"] + (["--sort=" + sort] if sort else [])
        return json.loads("".join(self._run("report", *args)))
