"""The limits of a run (:class:`SafetyLimits`), Excel's own bounds, and one-line messages.

Every field of :class:`SafetyLimits` must be a finite number of at least 1 (``max_seconds``: more
than 0), so no value switches a limit off; :func:`clip`, :func:`one_line` and :func:`scrub_paths`
make every message one line, with long values clipped and no server path (docs/recalc.md, "Every
limit and its default").

>>> clip("1e" + "9" * 100)
"'1e99999999999999999999999999999999999999…' (102 characters)"
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing

from ...core.errors import CONTROL_CHARACTERS, WorkbookError, clip
from ...core.sheet import EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS, EXCEL_MAX_TEXT  # (Excel's bounds: declared once)

__all__ = [
    "DEFAULT_LIMITS",
    "EXCEL_MAX_COLUMNS",
    "EXCEL_MAX_ROWS",
    "EXCEL_MAX_TEXT",
    "STALE_SECONDS",
    "SafetyLimits",
    "TEMP_PREFIX",
    "WorkbookInfo",
    "clip",
    "one_line",
    "refuse",
    "scrub_paths",
]

_MiB = 1 << 20


TEMP_PREFIX = "xlbridge-recalc-"

STALE_SECONDS = 3600.0  # leftovers of a killed run are removed when their process is gone and older than this


# --------------------------------------------------------------------------------------------------
# messages


def one_line(text: object, limit: int = 400) -> str:
    """Return ``text`` as one line (line breaks and control characters become one space), at most ``limit`` characters.

    >>> one_line("first\\n  second")
    'first second'
    >>> one_line("x" * 1000, limit=20)
    'xxxxxxxxxxxxxxxxxxxx… (1,000 characters)'
    """
    text = CONTROL_CHARACTERS.sub(" ", str(text))
    text = re.sub(r" {2,}", " ", text).strip()
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text):,} characters)"
    return text


def scrub_paths(text: str, replacements: dict) -> str:
    """Replace private paths (keys) in ``text`` by what the user may see (values), longest first.

    >>> scrub_paths("cannot open /tmp/xlbridge-recalc-1-x/workbook.xlsx", {"/tmp/xlbridge-recalc-1-x/workbook.xlsx": "a.xlsx"})
    'cannot open a.xlsx'
    """
    for private in sorted(replacements, key=len, reverse=True):
        if private:
            text = text.replace(private, replacements[private])
    return text


def refuse(message: str, name: str | None, cls: type[WorkbookError] = WorkbookError) -> typing.NoReturn:
    raise cls(one_line(message, 600), where=None if name is None else one_line(name, 120))


# --------------------------------------------------------------------------------------------------
# limits


def _check_limit(field: str, value, *, low=1, high=None, integer=True) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"SafetyLimits.{field} must be a number, not {clip(value)}")
    if integer and not float(value).is_integer():
        raise ValueError(f"SafetyLimits.{field} must be a whole number, not {value!r}")
    if not math.isfinite(value) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"SafetyLimits.{field} must be a finite number {bound}, not {value!r}")


@dataclasses.dataclass(frozen=True)
class SafetyLimits:
    """Limits a workbook must respect before it is parsed (defaults in brackets).

    File and zip:

    - ``max_file_size``: size of the file on disk [256 MiB].
    - ``max_members``: number of zip members [10,000].
    - ``max_total_uncompressed``: sum of the members' declared uncompressed sizes [1 GiB].
    - ``max_member_uncompressed``: one member's declared uncompressed size [512 MiB].
    - ``max_ratio``: declared uncompressed / compressed size of one member [200], checked for
      members larger than ``ratio_floor`` [1 MiB] (tiny parts legitimately compress very well;
      real worksheets compress 5-30 times, a zip bomb a thousand times or more).

    Contents, counted while the XML streams (so the parent process never builds more than this):

    - ``max_cells``: ``<c>`` elements of all worksheets plus cached cells of links to other
      workbooks [1,000,000] (the parent needs about 0.5 KB and 12 µs per cell to scan them).
    - ``max_rows``: ``<row>`` elements of all worksheets [1,048,576, one full Excel sheet].
    - ``max_shared_strings``: ``<si>`` items of the shared-string table [1,000,000].
    - ``max_styles``: style records of ``styles.xml`` (``xf``, ``dxf``, ``font``, ``fill``, ``border``,
      ``numFmt``, ``cellStyle``) [100,000; Excel itself allows 65,490 cell formats].
    - ``max_formula_length``: characters of one formula or defined name [8,192, Excel's limit].
    - ``max_defined_names``: defined names [10,000].
    - ``max_xml_token``: bytes of one XML tag, comment or processing instruction, the attributes included
      [1 MiB]. expat 2.5 (CPython 3.11's) scans such a token again from its start at every chunk read
      until it ends: one 48 MB attribute cost 50 s. A workbook's longest tags (a conditional format's
      ``sqref``) hold kilobytes; texts (a cell's, a formula's) are not tokens and stream.
    - ``max_formula_cells``: formula cells plus cells covered by array-formula ranges, over all
      sheets [5,000,000] (an array formula claiming ``A1:XFD1048576`` would otherwise make the
      writer fill 17 billion cells).

    The formula engine (a child process):

    - ``max_memory``: address-space limit of the formula-engine process in bytes [4 GiB] (Linux/macOS).
    - ``max_seconds``: wall-clock limit of the formula engine [600 s]; the streamed checks of
      :func:`check_workbook` have the same limit of their own (checked every 64 KiB read), and so
      has the wait for another run holding the book's lock.

    Every field is validated: a whole number of at least 1 (``max_seconds``: a finite number of at
    least 0), so no value can switch a limit off.

    >>> SafetyLimits().max_ratio
    200
    >>> SafetyLimits(max_seconds=30).max_seconds
    30
    >>> SafetyLimits(max_memory=0)
    Traceback (most recent call last):
    ...
    ValueError: SafetyLimits.max_memory must be a finite number at least 1, not 0
    """

    max_file_size: int = 256 * _MiB
    max_members: int = 10_000
    max_total_uncompressed: int = 1024 * _MiB
    max_member_uncompressed: int = 512 * _MiB
    max_ratio: int = 200
    ratio_floor: int = 1 * _MiB
    max_formula_cells: int = 5_000_000
    max_memory: int = 4096 * _MiB
    max_seconds: float = 600.0
    max_cells: int = 1_000_000
    max_rows: int = EXCEL_MAX_ROWS
    max_shared_strings: int = 1_000_000
    max_styles: int = 100_000
    max_formula_length: int = 8_192
    max_defined_names: int = 10_000
    max_xml_token: int = 1 * _MiB

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "max_seconds":
                _check_limit(field.name, value, low=0, integer=False)
            else:
                _check_limit(field.name, value)


DEFAULT_LIMITS = SafetyLimits()


@dataclasses.dataclass(frozen=True)
class WorkbookInfo:
    """What the checks learnt: member names in order, whether there is a VBA project, sizes and counts.

    ``sheets``: ((sheet name, worksheet part), ...) in workbook order (chartsheets left out);
    ``external_links``: the externalLink parts in the order of ``<externalReference>`` (link 1 first);
    ``cells``, ``rows``, ``shared_strings``, ``styles``: the streamed counts; ``cell_formats``: the
    ``<xf>`` of ``<cellXfs>`` in ``xl/styles.xml`` (a cell's ``s`` must be below it), None without that part.

    >>> WorkbookInfo(members=("a.xml",), has_vba=False, total_uncompressed=10).has_vba
    False
    """

    members: tuple[str, ...]
    has_vba: bool
    total_uncompressed: int
    sheets: tuple[tuple[str, str], ...] = ()
    external_links: tuple[str, ...] = ()
    cells: int = 0
    rows: int = 0
    shared_strings: int = 0
    styles: int = 0
    cell_formats: int | None = None
    #: ((worksheet part, last row, last column), ...): the largest row and column any row or cell of the part
    #: names (the whole sheet where an address is not plain); the gate clips the upload's ranges to it
    extents: tuple[tuple[str, int, int], ...] = ()
    #: ((table part, table name, its ref, its declared columns), ...) of the Excel tables
    tables: tuple[tuple[str, str, str, int], ...] = ()
    #: ((rels part, ((Id, Type, Target, TargetMode), ...)), ...): the package's relationships as scanned
    rels: tuple = ()
