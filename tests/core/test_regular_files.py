"""A path a user names is read only when it is a regular file itself (issue 51): ``core.files.regular_stat`` names a
symbolic link for what it is (``os.lstat``), and ``open_regular`` never follows one (``O_NOFOLLOW``), so a link
swapped in between the check and the open is not followed either (it gives None, as a FIFO swapped in does)."""

from __future__ import annotations

import os

import pytest

from xlbridge.batch.guard.safety import open_regular_file
from xlbridge.core.errors import WorkbookError
from xlbridge.core.files import open_regular, regular_stat
from xlbridge.formats.errors import FormatError, check_regular_file


@pytest.fixture
def link(tmp_path):
    (tmp_path / "secret").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (tmp_path / "club.pbn").symlink_to(tmp_path / "secret")
    return tmp_path / "club.pbn"


def test_a_link_is_named_for_what_it_is_by_both_checks(link):
    assert regular_stat(link)[1] == "a symbolic link"
    assert regular_stat(link.parent / "secret")[1] is None
    with pytest.raises(FormatError, match=r"^club.pbn: this is a symbolic link, not a regular file$"):
        check_regular_file(link)
    with pytest.raises(WorkbookError, match=r"^club.pbn: refused: this is a symbolic link, not a workbook file$"):
        open_regular_file(link)


def test_a_link_swapped_in_after_the_check_is_not_followed(link):
    st = os.stat(link.parent / "secret")  # (the check saw a regular file; a link is there when it is opened)
    assert open_regular(link, st) is None
    fd = open_regular(link.parent / "secret", st)
    assert fd is not None and os.read(fd, 4) == b"root"
    os.close(fd)
