"""Kineto's chrome-trace layout as text, written the way Kineto prints it: numbers as it prints them
("ts": 1060.000, ints as ints), an event's keys on one line and its args one a line, the document's
header keys before "traceEvents" and the rest after. One writer for the two places that make Kineto
traces: tests/reference/make_trace_fixtures.py (the importer's fixtures, pinned byte for byte) and
scripts/bench_import.py (the generated benchmark trace's metadata; its hot loop writes the same layout
with f-strings, at ts_text's numbers).
"""
import json
from collections import OrderedDict


class Raw:
    """A JSON number written verbatim."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def ts_text(ns):
    """Kineto's microseconds with 3 decimals ("{}.{:03}" of nanoseconds), from integer nanoseconds."""
    return f"{ns // 1000}.{ns % 1000:03d}"


def us(ns):
    """ts_text as a JSON number."""
    assert isinstance(ns, int) and ns >= 0
    return Raw(ts_text(ns))


def jv(v):
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(jv(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + jv(x) for k, x in v.items()) + "}"
    raise TypeError(type(v))


def kineto_event_text(e):
    """One event as Kineto's ChromeTraceLogger lays it out: header line, args block."""
    head = ", ".join(json.dumps(k) + ": " + jv(v) for k, v in e.items() if k != "args")
    if "args" not in e:
        return "  {\n    " + head + "\n  }"
    args = e["args"]
    if not args:
        return "  {\n    " + head + ",\n    \"args\": {}\n  }"
    body = ",\n".join("      " + json.dumps(k) + ": " + jv(v) for k, v in args.items())
    return "  {\n    " + head + ",\n    \"args\": {\n" + body + "\n    }\n  }"


def kineto_document(header, events, trailer):
    """header/trailer: OrderedDicts of top-level keys before/after "traceEvents"."""
    parts = ["{"]
    for k, v in header.items():
        if k == "deviceProperties":
            inner = ",\n".join("    " + jv(d) for d in v)
            parts.append('  "deviceProperties": [\n' + inner + "\n  ],")
        else:
            parts.append("  " + json.dumps(k) + ": " + jv(v) + ",")
    parts.append('  "traceEvents": [')
    parts.append(",\n".join(kineto_event_text(e) for e in events))
    tail = ",\n".join("  " + json.dumps(k) + ": " + jv(v) for k, v in trailer.items())
    parts.append("],\n" + tail + "\n}\n")
    return "\n".join(parts).encode("ascii")


def metadata(ts, pid, tid, name, args):
    return OrderedDict([("name", name), ("ph", "M"), ("ts", ts), ("pid", pid), ("tid", tid), ("args", args)])
