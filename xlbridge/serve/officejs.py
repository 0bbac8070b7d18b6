"""xlbridge's Excel functions for Office.js (Excel on Windows, Mac and the web), as xlwings Server serves them.

The routes are xlwings Server's own (github.com/xlwings/xlwings-server, ``routers/xlwings.py`` and
``routers/manifest.py``): ``GET /xlwings/custom-functions-meta`` (the functions' JSON metadata),
``GET /xlwings/custom-functions-code`` (the JavaScript that Excel runs for each function),
``POST /xlwings/custom-functions-call`` (one call: the body the add-in's JavaScript posts, answered
``{"result": ...}``), ``GET /manifest`` (the add-in's manifest, to sideload) and the task pane page the
manifest names. Metadata and calls are xlwings' own code (``xlwings.server.custom_functions_meta`` and
``custom_functions_call``, xlwings 0.37.8) on :mod:`xlbridge.udfs`, with ``XLWINGS_ON_SERVER=true``; a
per-cell error of a result (``#VALUE!`` in one row) travels as an Office.js error object
(``{"type": "Error", "errorType": "Value"}``) inside the array.

xlwings' server features are under the PolyForm Noncommercial licence unless the operator holds a
commercial xlwings licence (docs/excel.md): :func:`load` sets ``XLWINGS_LICENSE_KEY=noncommercial``
only when no key is set, and the server says so when it starts.

The JavaScript is xlbridge's own (MIT), not xlwings Server's file (which its licence covers): it posts
the same body, ``{"client": "Office.js", "func_name", "args", "caller_address", "culture_info_name",
"date_format", "version", "runtime"}``, with ``fetch`` and no other library.
"""

from __future__ import annotations

import asyncio
import os
import struct
import uuid
import zlib
from html import escape
from typing import Any

__all__ = ["UnknownFunction", "load", "meta", "code", "call", "manifest", "taskpane_html", "icon_png", "LICENCE_NOTICE",
           "OFFICE_JS", "OFFICE_FRAME_ANCESTORS"]

#: Microsoft's Office.js library: an Office add-in loads it from Microsoft's CDN (the task pane only)
OFFICE_JS = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js"
#: the hosts that frame an add-in's task pane in Excel on the web
OFFICE_FRAME_ANCESTORS = ("https://*.officeapps.live.com https://*.office.com https://*.office365.com "
                          "https://*.sharepoint.com https://*.cloud.microsoft")
LICENCE_NOTICE = ("the Excel functions (Office.js) are served with xlwings' server code under its PolyForm "
                  "Noncommercial licence (XLWINGS_LICENSE_KEY=noncommercial): use by a business is commercial use "
                  "and needs an xlwings licence key (docs/excel.md)")

_STATE: dict[str, Any] = {}


class UnknownFunction(LookupError):
    """A call naming no function of xlbridge (404)."""


def load() -> tuple[Any, str | None]:
    """Import :mod:`xlbridge.udfs` under xlwings' Office.js runtime; returns (module, why not) where
    ``why not`` says why the functions cannot be served (None when they can)."""
    if "module" in _STATE:
        return _STATE["module"], _STATE["why"]
    os.environ.setdefault("XLWINGS_ON_SERVER", "true")
    if not os.environ.get("XLWINGS_LICENSE_KEY"):
        os.environ["XLWINGS_LICENSE_KEY"] = "noncommercial"
    why = None
    module: Any = None
    try:
        import xlbridge.udfs as udfs

        module = udfs
        if module.RUNTIME != "officejs":
            why = "xlwings' Office.js runtime did not load (xlwings 0.37.8 installed, XLWINGS_ON_SERVER=true?)"
    except Exception as exc:  # pragma: no cover - xlwings missing or broken
        why = f"the Excel functions cannot be served ({type(exc).__name__})"
    _STATE.update(module=module, why=why)
    return module, why


def meta() -> dict[str, Any]:
    """``custom-functions-meta``: xlwings' metadata of every function of :mod:`xlbridge.udfs`."""
    module, why = load()
    if why:
        raise RuntimeError(why)
    import xlwings.server

    found: dict[str, Any] = xlwings.server.custom_functions_meta(module)  # type: ignore[no-untyped-call]
    return found


def _names(module: Any) -> list[str]:
    return sorted(getattr(module, n).__xlfunc__["name"] for n in dir(module)
                  if hasattr(getattr(module, n), "__xlfunc__"))


_BASE_JS = """\
// xlbridge: the Excel functions of xlbridge.udfs for Office.js (the xlwings add-in's calls, MIT licence).
// Each call is posted to the server as xlwings' JavaScript posts it; the server answers {"result": ...}.
const xlbridgeCallPath = %(path)s;
const xlbridgeXlwingsVersion = %(version)s;
let xlbridgeRuntime = "1.1";
let xlbridgeCulture = null;
let xlbridgeDateFormat = null;

Office.onReady(async function () {
  for (const version of ["1.4", "1.3", "1.2"]) {
    if (Office.context.requirements.isSetSupported("CustomFunctionsRuntime", version)) {
      xlbridgeRuntime = version;
      break;
    }
  }
  try {
    await Excel.run(async (context) => {
      const culture = context.application.cultureInfo;
      culture.load("name");
      culture.datetimeFormat.load("shortDatePattern");
      await context.sync();
      xlbridgeCulture = culture.name;
      xlbridgeDateFormat = culture.datetimeFormat.shortDatePattern;
    });
  } catch (error) {
    // ExcelApi 1.12 missing: dates go as serial numbers
  }
});

async function xlbridgeCall(funcName, args, invocation) {
  await Office.onReady();
  const body = {
    client: "Office.js",
    func_name: funcName,
    args: args,
    caller_address: invocation && invocation.address ? invocation.address : null,
    culture_info_name: xlbridgeCulture,
    date_format: xlbridgeDateFormat,
    version: xlbridgeXlwingsVersion,
    runtime: xlbridgeRuntime,
  };
  let response;
  try {
    response = await fetch(window.location.origin + xlbridgeCallPath, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new CustomFunctions.Error(CustomFunctions.ErrorCode.notAvailable, "the xlbridge server cannot be reached");
  }
  let data = {};
  try {
    data = await response.json();
  } catch (error) {
    data = {};
  }
  if (!response.ok) {
    throw new CustomFunctions.Error(CustomFunctions.ErrorCode.invalidValue, String(data.detail || response.statusText));
  }
  return data.result;
}
"""

_FUNC_JS = """
async function {name}() {{
  const args = Array.prototype.slice.call(arguments);
  const invocation = args.pop();
  return await xlbridgeCall("{name}", args, invocation);
}}
CustomFunctions.associate("{upper}", {name});
"""


def code(call_path: str = "/xlwings/custom-functions-call") -> str:
    """``custom-functions-code``: the JavaScript of every function (each posts its call to ``call_path``)."""
    import json

    module, why = load()
    if why:
        raise RuntimeError(why)
    import xlwings

    js = _BASE_JS % {"path": json.dumps(call_path), "version": json.dumps(xlwings.__version__)}
    return js + "".join(_FUNC_JS.format(name=n, upper=n.upper()) for n in _names(module))


#: the largest body of one call (the arguments of a 100,000-row traveller sheet fit)
MAX_CALL_BYTES = 32 * 1024 * 1024


async def call(data: Any) -> dict[str, Any]:
    """``custom-functions-call``: run one call as xlwings Server does, in a worker thread (a big call does
    not stop the server); returns ``{"result": ...}``. A call naming no function of xlbridge is an
    :class:`UnknownFunction`; a body that is not a call, a :class:`ValueError`."""
    module, why = load()
    if why:
        raise RuntimeError(why)
    if not isinstance(data, dict) or not isinstance(data.get("func_name"), str) or not isinstance(
            data.get("args"), list):
        raise ValueError("not a custom function call: func_name and args are needed")
    name = data["func_name"]
    if name not in _names(module):
        raise UnknownFunction(f"no xlbridge function named {name[:60]!r}")
    data = {**data, "client": "Office.js", "version": data.get("version") or "", "runtime": str(
        data.get("runtime") or "1.4")}
    try:
        float(data["runtime"])
    except ValueError:
        raise ValueError("runtime: not a version number") from None
    import xlwings.server

    def run() -> Any:
        return asyncio.run(xlwings.server.custom_functions_call(data, module))

    result = await asyncio.to_thread(run)
    return {"result": result}


def manifest(base_url: str, name: str = "xlbridge") -> str:
    """The add-in's manifest (XML, to sideload), pointing at ``base_url`` (``https://host``): xlwings
    Server's layout (a shared runtime: the task pane page loads the functions), without its buttons."""
    base = base_url.rstrip("/")
    ident = uuid.uuid5(uuid.NAMESPACE_URL, base + "/xlbridge")
    b, n = escape(base, quote=True), escape(name, quote=True)
    return f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<OfficeApp xmlns="http://schemas.microsoft.com/office/appforoffice/1.1"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:bt="http://schemas.microsoft.com/office/officeappbasictypes/1.0"
  xmlns:ov="http://schemas.microsoft.com/office/taskpaneappversionoverrides" xsi:type="TaskPaneApp">
  <Id>{ident}</Id>
  <Version>1.0.0.0</Version>
  <ProviderName>xlbridge</ProviderName>
  <DefaultLocale>en-US</DefaultLocale>
  <DisplayName DefaultValue="{n}" />
  <Description DefaultValue="{n}: exact contract-bridge scoring functions" />
  <IconUrl DefaultValue="{b}/static/icon-32.png" />
  <HighResolutionIconUrl DefaultValue="{b}/static/icon-64.png" />
  <SupportUrl DefaultValue="{b}/" />
  <AppDomains>
    <AppDomain>{b}</AppDomain>
  </AppDomains>
  <Hosts>
    <Host Name="Workbook" />
  </Hosts>
  <Requirements>
    <Sets DefaultMinVersion="1.1">
      <Set Name="SharedRuntime" MinVersion="1.1" />
    </Sets>
  </Requirements>
  <DefaultSettings>
    <SourceLocation DefaultValue="{b}/taskpane.html" />
  </DefaultSettings>
  <Permissions>ReadWriteDocument</Permissions>
  <VersionOverrides xmlns="http://schemas.microsoft.com/office/taskpaneappversionoverrides" xsi:type="VersionOverridesV1_0">
    <Hosts>
      <Host xsi:type="Workbook">
        <Runtimes>
          <Runtime resid="Taskpane.Url" lifetime="long" />
        </Runtimes>
        <AllFormFactors>
          <ExtensionPoint xsi:type="CustomFunctions">
            <Script>
              <SourceLocation resid="Functions.Script.Url" />
            </Script>
            <Page>
              <SourceLocation resid="Taskpane.Url" />
            </Page>
            <Metadata>
              <SourceLocation resid="Functions.Metadata.Url" />
            </Metadata>
          </ExtensionPoint>
        </AllFormFactors>
      </Host>
    </Hosts>
    <Resources>
      <bt:Urls>
        <bt:Url id="Taskpane.Url" DefaultValue="{b}/taskpane.html" />
        <bt:Url id="Functions.Script.Url" DefaultValue="{b}/xlwings/custom-functions-code.js" />
        <bt:Url id="Functions.Metadata.Url" DefaultValue="{b}/xlwings/custom-functions-meta.json" />
      </bt:Urls>
    </Resources>
  </VersionOverrides>
</OfficeApp>
"""


def taskpane_html() -> str:
    """The task pane (the shared runtime's page): Office.js, then the functions' code; no inline script."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>xlbridge</title>
<script src="{OFFICE_JS}"></script>
<script src="/xlwings/custom-functions-code.js" defer></script>
<link rel="stylesheet" href="/static/serve.css">
</head>
<body>
<main>
<h1>xlbridge</h1>
<p>The xlbridge functions are ready: type <code>=NEUBERG(14, 16, 8)</code> in a cell.
The list is in the function wizard and at <a href="/xlwings/custom-functions-meta">/xlwings/custom-functions-meta</a>.</p>
</main>
</body>
</html>
"""


def icon_png(size: int) -> bytes:
    """A square icon of ``size`` pixels (the manifest's), made here: a green square with a white border.

    >>> icon_png(16)[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    edge = max(1, size // 16)
    rows = []
    for y in range(size):
        row = bytearray(b"\0")
        for x in range(size):
            border = x < edge or y < edge or x >= size - edge or y >= size - edge
            row += b"\xff\xff\xff" if border else b"\x1d\x6b\x3a"
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))
