"""A job's steps judged by what they leave, not only by their exit code: a step that ends with 1 ("done, some
rows with errors") but left no recalculated book has failed, and the line the scorer reads names no path of the
server's own. In process, with the step itself replaced (the steps' real runs are the other modules' work)."""

from __future__ import annotations

import asyncio
import shutil

from serve_helpers import PAIRS, command
from xlbridge.serve import jobs as jobs_mod
from xlbridge.serve.storage import Storage


def test_exit_1_without_a_book_is_a_failed_job_and_names_no_server_path(tmp_path, monkeypatch):
    assert command(tmp_path, "--add-club", "hearts").returncode == 0
    store = Storage(tmp_path)
    store_jobs = jobs_mod.JobStore(store)
    job = store_jobs.create("hearts", "pairs.xlsx", "pairs.xlsx", max_queued=4)
    store.job_dir("hearts", job).mkdir(parents=True)
    shutil.copy(PAIRS, store.job_dir("hearts", job) / "pairs.xlsx")
    calls = []

    async def step(args, cwd, limits, nice=0):
        calls.append(args[0])
        if args[0] == "recalc":  # what an interpreter prints when it cannot start the command: exit 1
            return jobs_mod.StepResult(1, "", "/opt/site/venv/bin/python3: No module named xlbridge\n")
        return jobs_mod.StepResult(2, "", "xlbridge publish: pairs.xlsx: refused\n")

    monkeypatch.setattr(jobs_mod, "_step", step)
    state, message = asyncio.run(jobs_mod.run_job(store, job, jobs_mod.JobLimits()))
    assert sorted(calls) == ["publish", "recalc"]
    assert state == "failed"
    assert message == "python3: No module named xlbridge"
    assert store_jobs.get(job).state == "failed"


def test_the_line_keeps_the_files_own_names():
    line = jobs_mod.StepResult(2, "", "xlbridge recalc: pairs.xlsx, sheet 'Traveller', cell B7: 14 tricks\n")
    assert line.line("recalc") == "xlbridge recalc: pairs.xlsx, sheet 'Traveller', cell B7: 14 tricks"
    assert jobs_mod.StepResult(-9, "", "").line("recalc") == "xlbridge recalc: stopped by signal 9"
