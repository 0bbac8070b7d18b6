"""Stage 3, evaluate: every formula computed by the `formulas` engine in a sandboxed process.

In: the private copy and the reading stage's sheets. Out: the patched sheet parts (as bytes or
spans of a file) and an :class:`~xlbridge.batch.evaluate.splice.EngineSummary` of what each cell
became. :mod:`~xlbridge.batch.evaluate.child` runs it in a child process (time, memory, no files
outside the run, dies with its parent); :mod:`~xlbridge.batch.evaluate.engine` evaluates;
:mod:`~xlbridge.batch.evaluate.model` is the formula model xlbridge runs;
:mod:`~xlbridge.batch.evaluate.registry` puts the Excel functions in the engine;
:mod:`~xlbridge.batch.evaluate.splice` hands the values to the writing stage's patcher in that
same process, so that values never travel between processes.
"""
