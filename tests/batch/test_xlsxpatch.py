"""Byte splicing of cached values (xlbridge.batch.write.xlsxpatch): properties checked with a real XML parser."""

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlbridge import WorkbookError
from xlbridge.batch.cells import ExcelErrorValue, cell_ref, parse_range, parse_ref
from xlbridge.batch.read.sheetxml import scan_sheet
from xlbridge.batch.write.xlsxpatch import patch_sheet

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
CELL_FORMS = {
    "empty": '<c r="{ref}" s="1"/>',
    "number": '<c r="{ref}"><v>3.5</v></c>',
    "shared": '<c r="{ref}" t="s"><v>0</v></c>',
    "formula": '<c r="{ref}" s="2"><f>SUM(A1:A2)</f><v>0</v></c>',
    "formula_noval": '<c r="{ref}"><f>1+1</f></c>',
    "formula_ext": '<c r="{ref}"><f>2</f><v>1</v><extLst><ext uri="x"/></extLst></c>',
}

sheets = st.dictionaries(
    keys=st.tuples(st.integers(1, 6), st.integers(1, 5)),
    values=st.sampled_from(sorted(CELL_FORMS)),
    max_size=14,
)
text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
cell_values = st.one_of(
    st.none(), st.booleans(), st.integers(-10**12, 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64), text,
    st.sampled_from(["#N/A", "#VALUE!", "#DIV/0!"]).map(ExcelErrorValue),
)
patches = st.dictionaries(keys=st.tuples(st.integers(1, 7), st.integers(1, 6)), values=cell_values, max_size=12)


def build(cells, empty_rows=()):
    rows = sorted({r for r, _ in cells} | set(empty_rows))
    body = []
    for r in rows:
        inner = "".join(CELL_FORMS[cells[(rr, c)]].format(ref=cell_ref(rr, c))
                        for rr, c in sorted(cells) if rr == r)
        body.append(f'<row r="{r}" spans="1:5">{inner}</row>' if inner else f'<row r="{r}"/>')
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{NS}">'
            f'<dimension ref="A1:E6"/><sheetData>{"".join(body)}</sheetData>'
            f'<mergeCells count="1"><mergeCell ref="H1:I1"/></mergeCells></worksheet>').encode()


def read_cells(xml):
    root = ET.fromstring(xml)
    out, row_order = {}, []
    for row in root.iter(f"{{{NS}}}row"):
        r = int(row.get("r"))
        row_order.append(r)
        cols = []
        for c in row.findall(f"{{{NS}}}c"):
            rr, cc = parse_ref(c.get("r"))
            assert rr == r
            cols.append(cc)
            out[(rr, cc)] = c
        assert cols == sorted(cols) and len(set(cols)) == len(cols), "cells out of order"
    assert row_order == sorted(row_order) and len(set(row_order)) == len(row_order), "rows out of order"
    return out


@given(cells=sheets, empty=st.sets(st.integers(1, 7), max_size=3), values=patches)
def test_patch_writes_exactly_the_values(cells, empty, values):
    xml = build(cells, empty)
    out = patch_sheet(xml, scan_sheet(xml), values)
    before, after = read_cells(xml), read_cells(out)
    for key, value in values.items():
        if value is None and key not in before:
            assert key not in after
            continue
        c = after[key]
        t, v = c.get("t"), c.find(f"{{{NS}}}v")
        vtext = v.text if v is not None else None
        if value is None:
            assert t == "str" and not vtext
        elif isinstance(value, ExcelErrorValue):
            assert (t, vtext) == ("e", value.code)
        elif isinstance(value, bool):
            assert (t, vtext) == ("b", "1" if value else "0")
        elif isinstance(value, (int, float)):
            assert t is None and float(vtext) == float(value)
        else:
            assert t == "str" and (vtext or "") == value
        if key in before:  # formula, style and extLst kept
            old_f, new_f = before[key].find(f"{{{NS}}}f"), c.find(f"{{{NS}}}f")
            assert (old_f is None) == (new_f is None)
            if old_f is not None:
                assert old_f.text == new_f.text
            assert before[key].get("s") == c.get("s")
            assert (before[key].find(f"{{{NS}}}extLst") is None) == (c.find(f"{{{NS}}}extLst") is None)
            kids = [k.tag.split("}")[1] for k in c]
            assert kids == sorted(kids, key=["f", "v", "is", "extLst"].index)
    for key, c in before.items():  # untouched cells are unchanged
        if key not in values:
            assert ET.tostring(after[key]) == ET.tostring(c)
    assert out.endswith(b'</sheetData><mergeCells count="1"><mergeCell ref="H1:I1"/></mergeCells></worksheet>')
    assert out.startswith(xml[: xml.index(b"<sheetData>")])


@given(cells=sheets)
def test_no_values_is_byte_identical(cells):
    xml = build(cells)
    assert patch_sheet(xml, scan_sheet(xml), {}) == xml


@given(r=st.integers(1, 1_048_576), c=st.integers(1, 16_384))
def test_refs_round_trip(r, c):
    assert parse_ref(cell_ref(r, c)) == (r, c)
    assert parse_range(f"{cell_ref(r, c)}:{cell_ref(1, 1)}") == (1, 1, r, c)


def test_scan_finds_arrays_and_formulas():
    xml = build({(1, 1): "formula", (2, 3): "number"})
    xml = xml.replace(b"<f>SUM(A1:A2)</f>", b'<f t="array" ref="A1:B3">X(A1:A2)</f>')
    lay = scan_sheet(xml)
    assert lay.array_ranges == ((1, 1, 3, 2),)
    assert lay.formula_cells == {(1, 1): "X(A1:A2)"}


def test_scan_refuses_dtd():
    xml = b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "b">]><worksheet><sheetData/></worksheet>'
    with pytest.raises(WorkbookError, match="DTD"):
        scan_sheet(xml)


@given(cells=sheets, values=patches)
def test_a_layout_of_the_rewritten_cells_only_patches_the_same(cells, values):
    # the engine's reading keeps the spans of formula cells and array cells only: same bytes as the full layout
    from xlbridge.batch.read.sheetxml import read_sheet

    xml = build(cells)
    formula_cells = {k for k, form in cells.items() if form.startswith("formula")}
    values = {k: v for k, v in values.items() if k in formula_cells}
    compact = read_sheet(xml).layout
    assert not compact.complete and set(compact.cells) == formula_cells
    assert patch_sheet(xml, compact, values) == patch_sheet(xml, scan_sheet(xml), values)


@given(present=st.sets(st.tuples(st.integers(1, 5), st.integers(1, 6)), max_size=20),
       last=st.integers(1, 5), width=st.integers(1, 3), values=st.lists(cell_values, min_size=15, max_size=15))
def test_cells_inserted_into_an_array_range_land_in_order(present, last, width, values):
    # an array range B1:?N whose cells are partly missing (written by a tool that leaves them out), other
    # cells before and after it in its rows: the compact layout inserts exactly where the full one does
    from xlbridge.batch.read.sheetxml import read_sheet

    cols = range(2, 2 + width)
    cells = {(1, 2): "anchor"} | {k: "number" for k in present if k != (1, 2)}
    rows = []
    for r in range(1, 6):
        inner = ""
        for (rr, c) in sorted(cells):
            if rr != r:
                continue
            ref = cell_ref(rr, c)
            if cells[(rr, c)] == "anchor":
                rng = f"B1:{cell_ref(last, 1 + width)}"
                inner += f'<c r="{ref}"><f t="array" ref="{rng}">A1:A5</f></c>'
            else:
                inner += f'<c r="{ref}"><v>1</v></c>'
        rows.append(f'<row r="{r}">{inner}</row>')
    xml = f'<worksheet xmlns="{NS}"><sheetData>{"".join(rows)}</sheetData></worksheet>'.encode()
    targets = [(r, c) for r in range(1, last + 1) for c in cols]
    vals = dict(zip(targets, values))
    full, compact = scan_sheet(xml), read_sheet(xml).layout
    out = patch_sheet(xml, compact, vals)
    assert out == patch_sheet(xml, full, vals)
    read_cells(out)  # rows and cells in order


_ATTR_TEXT = st.one_of(st.text(alphabet=st.sampled_from(['A', '1', '&', '"', '<', '\ue000', 'r', '\x01', ' ']), max_size=4),
                       st.just("\ue000r\ue000"))


@given(attrs=st.lists(st.tuples(st.sampled_from(["r", "s", "t", "cm", "x:y"]), _ATTR_TEXT), max_size=4),
       rows=st.lists(st.tuples(st.sampled_from(["H5", "H6", "AB1048576", "h7", "&1", "\ue000r\ue000"]),
                               st.sampled_from([None, "str", "e", "b"])), min_size=1, max_size=6),
       keep=st.sampled_from([b"", b"<f>1</f>"]),
       tail=st.sampled_from([b"", b"<extLst/>"]), first=st.booleans())
def test_a_cell_written_from_its_kinds_cached_start_tag_is_the_cell_written_alone(attrs, rows, keep, tail, first):
    # _CellWriter writes each kind of start tag once and the reference into it: the same bytes as _cell_xml
    # for every cell, whatever the attributes hold (escapes, the writer's own mark, no reference first)
    from xlbridge.batch.write.xlsxpatch import _CellWriter, _cell_xml

    writer = _CellWriter("x:")
    for r, t in rows:
        cell_attrs = tuple([("r", r)] + attrs) if first else tuple(attrs + [("r", r)])
        assert writer.cell("x:c", cell_attrs, t, "12", keep, tail) == _cell_xml("x:c", "x:", cell_attrs, t, "12",
                                                                                 keep, tail)


@given(st.one_of(st.integers(-10**16, 10**16), st.sampled_from([10**15 - 1, 10**15, -10**15, 2**53, 2**53 + 1]),
                 st.floats(allow_nan=True, allow_infinity=True),
                 st.sampled_from([1e15, -1e15, 1e15 - 1, 0.0, -0.0, 2.0**53, 1e16, 5e-324]), st.booleans()))
def test_the_number_fast_paths_write_what_encode_value_writes(value):
    # patch_sheet writes whole numbers and plain floats without _encode_value: the same <v> and t attribute
    from xlbridge.batch.write.xlsxpatch import _encode_value

    xml = b'<worksheet><sheetData><row r="1"><c r="A1"><f>1</f><v>0</v></c></row></sheetData></worksheet>'
    t, text = _encode_value(value)
    expected = (f'<worksheet><sheetData><row r="1"><c r="A1"{"" if t is None else f" t={chr(34)}{t}{chr(34)}"}>'
                f"<f>1</f><v>{text}</v></c></row></sheetData></worksheet>").encode()
    assert patch_sheet(xml, scan_sheet(xml), {(1, 1): value}) == expected


def test_copy_zip_keeps_content_order_and_method_and_deflates_at_its_level(tmp_path):
    """copy_zip: the same members in the same order, content byte-identical (or the replacement), the
    stored member stored, the deflated ones deflated at COMPRESS_LEVEL (its size is zlib's own raw
    deflate of the content at that level)."""
    import zipfile
    import zlib

    from xlbridge.batch.write.xlsxpatch import COMPRESS_LEVEL, copy_zip

    text = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c></row>' % (i, i, i * 7 % 13) for i in range(1, 3000))
    src, dst = tmp_path / "in.zip", tmp_path / "out.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr(zipfile.ZipInfo("b.xml"), b"stored")
        z.writestr("a.xml", text, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
        z.writestr("c.xml", b"old", compress_type=zipfile.ZIP_DEFLATED)
    copy_zip(str(src), str(dst), {"c.xml": text[::-1]})
    with zipfile.ZipFile(dst) as z:
        infos = z.infolist()
        assert [i.filename for i in infos] == ["b.xml", "a.xml", "c.xml"]
        assert [z.read(i) for i in infos] == [b"stored", text, text[::-1]]
        assert [i.compress_type for i in infos] == [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_DEFLATED]
        for info, content in zip(infos[1:], (text, text[::-1])):
            raw = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15)
            assert info.compress_size == len(raw.compress(content) + raw.flush())


_MORE_FORMS = {
    **CELL_FORMS,
    "reference last": '<c s="1" r="{ref}"><v>1</v></c>',
    "inline": '<c r="{ref}" t="inlineStr"><is><t>x</t></is></c>',
    "text formula, extLst": '<c r="{ref}" s="3" t="str"><f>"a"</f><v>a</v><extLst><ext uri="y"/></extLst></c>',
}


@given(cells=st.dictionaries(keys=st.tuples(st.integers(1, 6), st.integers(1, 5)),
                             values=st.sampled_from(sorted(_MORE_FORMS)), max_size=14), values=patches)
def test_a_cell_patched_from_its_place_and_shape_is_the_cell_patched_from_its_span(cells, values):
    """patch_sheet_pieces writes a cell whose reference comes first from its place and shape in the compact spans
    (CellSpans.place), without making its span: the same bytes as from the span itself (the layout's cells a dict)."""
    import dataclasses

    rows = sorted({r for r, _ in cells})
    body = "".join(f'<row r="{r}">' + "".join(_MORE_FORMS[cells[(rr, c)]].format(ref=cell_ref(rr, c))
                                               for rr, c in sorted(cells) if rr == r) + "</row>" for r in rows)
    xml = f'<worksheet xmlns="{NS}"><sheetData>{body}</sheetData></worksheet>'.encode()
    layout = scan_sheet(xml)
    assert hasattr(layout.cells, "place")
    values = {k: v for k, v in values.items() if k in cells}
    spans = dataclasses.replace(layout, cells=dict(layout.cells.items()))
    assert patch_sheet(xml, layout, values) == patch_sheet(xml, spans, values)


def test_patching_a_sheet_raises_no_audit_event_per_cell():
    """The engine's sandboxed process hears every audit event (PEP 578) in Python; ``id()`` raises one. Patching
    1,000 formula cells raises none per cell (a cell's shape is keyed by its number in the compact spans)."""
    import subprocess
    import sys

    script = """
import sys
from xlbridge.batch.read.sheetxml import scan_sheet
from xlbridge.batch.write.xlsxpatch import patch_sheet_pieces
NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
rows = "".join(f'<row r="{r}"><c r="A{r}" s="1"><f>B{r}*2</f><v>0</v></c></row>' for r in range(1, 1001))
xml = f'<worksheet xmlns="{NS}"><sheetData>{rows}</sheetData></worksheet>'.encode()
layout = scan_sheet(xml)
events = []
sys.addaudithook(lambda event, args: events.append(event))
pieces = patch_sheet_pieces(xml, layout, {(r, 1): r * 2 for r in range(1, 1001)})
print(len(events), b"".join(pieces).count(b"<v>2000</v>"))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    events, written = map(int, out.stdout.split())
    assert written == 1 and events < 10


def test_a_cell_holding_its_value_already_is_left_alone():
    """A recalculated book recalculated again: each cell whose cached value is the one it gets, written as the patch
    writes it, is no edit; the part comes back as one piece, byte for byte. A cell whose value changes is written."""
    from xlbridge.batch.write.xlsxpatch import patch_sheet_pieces

    rows = "".join(f'<row r="{r}"><c r="A{r}" s="1" t="str"><f>""</f><v></v></c><c r="B{r}"><f>1+{r}</f>'
                   f'<v>{r + 1}</v></c></row>' for r in range(1, 201))
    xml = f'<worksheet xmlns="{NS}"><sheetData>{rows}</sheetData></worksheet>'.encode()
    layout = scan_sheet(xml)
    same = {**{(r, 1): "" for r in range(1, 201)}, **{(r, 2): r + 1 for r in range(1, 201)}}
    pieces = patch_sheet_pieces(xml, layout, same)
    assert len(pieces) == 1 and bytes(pieces[0]) == xml
    changed = patch_sheet(xml, layout, {**same, (7, 2): 9})
    assert changed == xml.replace(b"<v>8</v>", b"<v>9</v>")
    # a cell of an array range the part lacks, inserted after a cell left alone in its row
    xml = xml.replace(b'<c r="B1"><f>1+1</f><v>2</v></c>',
                      b'<c r="B1"><f>1+1</f><v>2</v></c><c r="C1"><f t="array" ref="C1:C2">B1:B2</f><v>2</v></c>')
    layout = scan_sheet(xml)
    got = patch_sheet(xml, layout, {**same, (1, 3): 2, (2, 3): 3})
    assert got == xml.replace(b'<c r="B2"><f>1+2</f><v>3</v></c>',
                              b'<c r="B2"><f>1+2</f><v>3</v></c><c r="C2"><v>3</v></c>')
