"""Bridge files in and out: PBN 2.1 and USEBIO 1.2 readers and writers, scoring, a results site.

Everything works on one neutral, immutable model (:mod:`xlbridge.formats.model`):

- :func:`read_pbn`, :func:`write_pbn` (PBN 2.1, :mod:`xlbridge.formats.pbn`);
- :func:`read_usebio`, :func:`write_usebio` (USEBIO 1.2 XML, :mod:`xlbridge.formats.usebio`);
- :func:`read_event` picks the reader from the file's content;
- :func:`score_event` fills matchpoints, percentages, IMPs and places through the core;
- :func:`publish` writes a static results site (:mod:`xlbridge.formats.publish`).

Bad input raises one :class:`FormatError` (an ``xlbridge.XlbridgeError``, so a ``ValueError``)
whose one-line message names the file, line or element, and the value.

>>> from xlbridge import formats
>>> e = formats.read_event(b'[Board "1"]\\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\\n1 2 420\\n2 1 400\\n')
>>> [str(r.mp_ns) for r in formats.score_event(e).boards[0].results]
['2', '0']
"""

import os  # noqa: F401 (the annotation of read_event)

from .errors import LIMITS, FormatError
from .model import (HOWELL, MITCHELL, PAIRS, SCORING_TYPES, TEAMS, Board, Event, Participant, Result)
from .pbn import read_pbn, write_pbn
from .publish import publish
from .scoring import score_event
from .usebio import read_usebio, write_usebio

__all__ = [
    "FormatError", "LIMITS",
    "PAIRS", "TEAMS", "MITCHELL", "HOWELL", "SCORING_TYPES",
    "Event", "Participant", "Board", "Result",
    "read_pbn", "write_pbn", "read_usebio", "write_usebio", "read_event",
    "score_event", "publish",
]


def read_event(source: "str | os.PathLike[str] | bytes") -> Event:
    """Read a PBN or USEBIO file (path or bytes), choosing by content: XML starts with ``<``.

    >>> read_event(b"")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: input: empty file
    """
    from .errors import load_source

    data, name = load_source(source)
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head == b"<":
        return read_usebio(data, name=name)
    return read_pbn(data, name=name)
