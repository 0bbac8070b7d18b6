"""Stage 1, guard: may this upload be read at all, and within what bounds.

In: a path a user named and the run's :class:`~xlbridge.batch.guard.limits.SafetyLimits`. Out: a
:class:`~xlbridge.batch.guard.gate.CheckedBook` (:func:`~xlbridge.batch.guard.gate.check_upload`, the gate: a
private copy of the file, :func:`~xlbridge.batch.guard.safety.snapshot_file`, scanned whole before anything
else reads a part or a name of it: zip, XML parts streamed and counted, :mod:`~xlbridge.batch.guard.xmlscan`;
its :class:`~xlbridge.batch.guard.limits.WorkbookInfo`; the template's declared areas clipped to what the
sheets hold), the only thing the read stage accepts, or a one-line refusal naming what and where. Also the promises every command that reads an upload keeps: the limits and the one-line,
clipped messages (:mod:`~xlbridge.batch.guard.limits`), private temporary folders, locks and atomic
writes (:mod:`~xlbridge.batch.guard.files`), links to other workbooks never followed
(:mod:`~xlbridge.batch.guard.links`), and the memory and time limits and signals of the commands that read
an upload in their own process, ``import``, ``export`` and ``publish`` (:mod:`~xlbridge.batch.guard.uploads`).
"""
