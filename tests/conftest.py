"""Shared by every test: the Hypothesis profiles, the shared helpers' folder, the costly artefacts made
once per test run (a recalculated template, a LibreOffice conversion), whichever tests ask first, and the
fixtures several folders' tests use. (One conftest.py: pytest imports each by the name "conftest", so
conftest files in sibling folders without ``__init__.py`` would clash.)

Artefacts are made once per run even when pytest-xdist runs the tests on several workers: each is
built under a file lock in the run's shared temporary folder, and the other workers read the files.
"""
from __future__ import annotations

import fcntl
import gc
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# "ci": a fixed number of examples and a fixed seed (derandomize), no example database: the same
# examples on every run, so that a CI run is reproducible and its time predictable. "dev": Hypothesis's
# random search with its database, for finding new failures on a developer's machine.
settings.register_profile("ci", deadline=None, database=None, max_examples=100, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# the shared test helpers (bruteforce.py, recalc_helpers.py, ...) live here; tests in subfolders import them
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from recalc_helpers import RECALC_ALWAYS  # noqa: E402  (LibreOffice's "always recalculate" setting)

ROOT = Path(__file__).resolve().parents[1]
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


def pytest_configure(config):
    """Compile the package's bytecode once, before any test starts ``python -m xlbridge``: where
    PYTHONDONTWRITEBYTECODE is set (this machine, CI) and the package is an editable install of a fresh clone,
    every such process would otherwise compile each module it imports again (0.15-0.3 s a process, hundreds of
    processes a run). Up-to-date files are skipped; a folder that cannot be written is left as it is."""
    import compileall

    compileall.compile_dir(str(ROOT / "xlbridge"), quiet=2)
    from xlbridge.batch.evaluate.child import _young_collections_only  # (the engine process's own setting)

    _young_collections_only()
    if OFFICE_VARIABLE not in os.environ:  # the run's process (xdist's controller, or the only one with -n0)
        import tempfile

        os.environ[OFFICE_VARIABLE] = tempfile.mkdtemp(prefix="xlbridge-office-")  # (the workers inherit it)
        config.stash[_office_owner] = os.environ[OFFICE_VARIABLE]


def pytest_unconfigure(config):
    """The run's process ends the run's LibreOffice (tests/office.py) and removes its folder."""
    folder = config.stash.get(_office_owner, None)
    if folder is None:
        return
    import office

    office.stop(Path(folder) / "office.sock")
    shutil.rmtree(folder, ignore_errors=True)
    os.environ.pop(OFFICE_VARIABLE, None)


# One LibreOffice for the run (tests/office.py): its socket and profile in a folder the run's process makes and
# removes at the end; started by the first worker that asks (the ``office`` fixture).
OFFICE_VARIABLE = "XLBRIDGE_TEST_OFFICE"
_office_owner = pytest.StashKey[str]()


# CPython's garbage collector, in a test process (each xdist worker): a worker holds a large heap for the whole
# run (the workbooks read once per process, recalc_helpers' caches) and CPython walks all of it in every full
# collection, about one for each 100 young ones: 0.3 to 2 s each, a sixth of the CPU time of the template
# tests. A worker makes no automatic full collection (as xlbridge's own engine process,
# xlbridge.batch.evaluate.child._young_collections_only); garbage in reference cycles is still collected while
# young, and what reached the old generation is collected after a test that left the process 1 GiB larger than
# at the last full collection (so that a run does not grow without bound). What a test checks is the same: the
# collector decides when cyclic garbage is freed, never whether a value is right.
FULL_COLLECTION_AFTER = 1 << 30  # bytes of growth of the resident set
_collected_at = [0]


def _resident() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # (no /proc, as on macOS: the peak, in bytes there)
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    """The workbooks kept for the whole run are let go before pytest's last full collections (it collects
    five times at the end, looking for exceptions raised in finalizers): they then walk a small heap."""
    import fuzz_mutations
    import recalc_helpers

    for cached in (recalc_helpers._cells, recalc_helpers._loaded, fuzz_mutations._sources):
        cached.cache_clear()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if _resident() > _collected_at[0] + FULL_COLLECTION_AFTER:
        gc.collect()
        _collected_at[0] = _resident()


class RunArtefacts:
    """Files made once per test run: ``make(key, build)`` runs ``build(folder)`` the first time a key
    is asked for, in any worker, and returns the folder after that without building again."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def make(self, key: str, build) -> Path:
        safe = hashlib.sha256(key.encode()).hexdigest()[:24]
        folder, lock = self.root / safe, self.root / (safe + ".lock")
        with open(lock, "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                if not (folder / ".done").exists():
                    shutil.rmtree(folder, ignore_errors=True)
                    folder.mkdir()
                    build(folder)
                    (folder / ".done").write_text(key)
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
        return folder

    def lock(self, name: str):
        """An exclusive lock shared by every worker (one LibreOffice at a time on its profile)."""
        return _Lock(self.root / (name + ".lock"))


class _Lock:
    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        self.fh = open(self.path, "w")
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


@pytest.fixture(scope="session")
def run_artefacts(tmp_path_factory) -> RunArtefacts:
    base = tmp_path_factory.getbasetemp()
    # under pytest-xdist each worker's basetemp sits in the run's: the parent is shared by the workers
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return RunArtefacts(shared / "run-artefacts")


@pytest.fixture(scope="session", autouse=True)
def _share_recalculations(run_artefacts):
    import recalc_helpers

    recalc_helpers.ARTEFACTS = run_artefacts
    yield
    recalc_helpers.ARTEFACTS = None


def _sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()




@pytest.fixture(scope="session")
def office(run_artefacts):
    """The run's LibreOffice (:class:`office.Office`: ``convert``, ``edit``), started by whichever worker asks
    first; None where python3-uno is missing (the ``libreoffice`` and ``printed`` fixtures then start
    ``soffice`` for each conversion)."""
    import office as office_module

    if not office_module.available():
        return None

    folder = Path(os.environ[OFFICE_VARIABLE])
    address = folder / "office.sock"
    with run_artefacts.lock("office-start"):
        if not address.exists():
            watch = os.getppid() if os.environ.get("PYTEST_XDIST_WORKER") else os.getpid()
            office_module.start(address, folder / "profile", watch)
    return office_module.Office(address)


@pytest.fixture(scope="session")
def libreoffice(run_artefacts, office):
    """``libreoffice(book, fmt, recalc=False)`` -> the folder holding ``book`` converted by LibreOffice
    headless (what ``soffice --convert-to fmt`` writes), made once per run, content, format and mode: by the
    run's LibreOffice (the ``office`` fixture), or where python3-uno is missing by ``soffice --convert-to``, one
    at a time, the conversions sharing a user profile per mode (started once: the later starts are fast).
    ``recalc=True``: LibreOffice recalculates every formula on load (its 'always recalculate' setting for
    .xlsx files) instead of showing the values stored in the file."""
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed (.ci/run installs it)")

    def get(book, fmt: str, recalc: bool = False) -> Path:
        book = Path(book)
        profile = run_artefacts.root / ("libreoffice-profile-recalc" if recalc else "libreoffice-profile")

        def build(folder: Path) -> None:
            (folder / "in").mkdir()
            shutil.copy(book, folder / "in" / book.name)
            if office is not None:
                office.convert(folder / "in" / book.name, folder, fmt, recalc=recalc)
                return
            with run_artefacts.lock("libreoffice"):
                if recalc and not (profile / "user" / "registrymodifications.xcu").exists():
                    (profile / "user").mkdir(parents=True, exist_ok=True)
                    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_ALWAYS)
                subprocess.run([SOFFICE, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
                                "--convert-to", fmt, "--outdir", str(folder), str(folder / "in" / book.name)],
                               check=True, capture_output=True, timeout=600)

        return run_artefacts.make(f"soffice {_sha(book)} {book.name} {fmt} recalc={recalc}", build)

    return get


@pytest.fixture(scope="session")
def printed(run_artefacts, office):
    """``printed(book)`` -> the text of each page of ``book`` as a member receives it: the values-only
    copy (``xlbridge recalc --values-only``) printed to PDF by LibreOffice (docs/print_pictures.py), made
    once per run and content; returns (pdf path, [page text, ...])."""
    if not (SOFFICE and shutil.which("pdftotext")):
        pytest.skip("needs LibreOffice and poppler-utils (.ci/run installs them)")
    import importlib.util

    spec = importlib.util.spec_from_file_location("print_pictures", ROOT / "docs" / "print_pictures.py")
    pictures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pictures)
    profile = run_artefacts.root / "libreoffice-profile"

    def get(book):
        book = Path(book)

        def build(folder: Path) -> None:
            if office is not None:
                pdf = pictures.print_pdf(book, folder, convert=office.convert)
            else:
                with run_artefacts.lock("libreoffice"):
                    pdf = pictures.print_pdf(book, folder, profile=profile)
            (folder / "pdf-name").write_text(pdf.name)

        folder = run_artefacts.make(f"printed {_sha(book)} {book.name}", build)
        pdf = folder / (folder / "pdf-name").read_text()
        return pdf, pictures.page_texts(pdf)

    return get


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A small clean workbook (the batch tests): a Travellers sheet with 2 in A1 and ``=A1*21`` in A2."""
    import openpyxl

    path = tmp_path_factory.mktemp("good") / "good.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "Travellers"
    wb.active["A1"] = 2
    wb.active["A2"] = "=A1*21"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def example_recalculated(tmp_path_factory):
    """``example_recalculated("pairs.xlsx")`` (the template tests) -> (a copy of the shipped example, its
    recalculated copy, that copy opened with ``data_only=True``); the recalculation is made once per run
    (recalc_helpers)."""
    from recalc_helpers import recalc_copy

    def get(name: str):
        tmp = tmp_path_factory.mktemp(Path(name).stem)
        src = tmp / name
        shutil.copy(ROOT / "workbooks" / "examples" / name, src)
        out, vals = recalc_copy(src, tmp)
        return src, out, vals

    return get
