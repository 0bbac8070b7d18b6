"""The server's own defaults (``xlbridge serve``), said once: its job limits (:class:`xlbridge.serve.jobs.JobLimits`),
the command line's defaults and help texts, and the app's upload bound read them here (a module of constants: the
command line imports it without the server).

>>> MAX_UPLOAD // (1024 * 1024), STEP_SECONDS, STEP_MEMORY_MIB, QUEUED
(32, 120.0, 1024, 64)
"""

from __future__ import annotations

__all__ = ["MAX_UPLOAD", "STEP_SECONDS", "STEP_MEMORY_MIB", "QUEUED"]

#: the largest upload taken, in bytes (``--max-upload``)
MAX_UPLOAD = 32 * 1024 * 1024
#: each step of a job (recalc, publish, ...): its time limit in seconds (``--timeout``) and its address-space limit in
#: MiB (``--max-memory``): tighter than a command's own (the guard's), as a server runs steps for anyone
STEP_SECONDS, STEP_MEMORY_MIB = 120.0, 1024
#: the uploads that may wait (``--queue``); beyond, 503 with Retry-After
QUEUED = 64
