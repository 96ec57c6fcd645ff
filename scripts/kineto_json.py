"""Kineto's chrome-trace events and layout, written once for the two places that make Kineto traces:
tests/reference/make_trace_fixtures.py (the importer's fixtures, hand-laid, pinned byte for byte) and
scripts/bench_import.py (the generated benchmark trace, a model of training steps streamed a step at a
time). Each kind of event is built by one function here (an op, a runtime call, a kernel, a copy, a
flow's two ends, a [memory] record, a Python frame, the metadata), laid out as Kineto prints it
(kineto_event_text: numbers as it prints them, "ts": 1060.000 and ints as ints, an event's keys on one
line and its args one a line; kineto_document: the header keys before "traceEvents", the rest after).
Timeline collects a trace's events with their ids and allocator totals.
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


# -- events: one builder per kind, keys in the order Kineto writes them. Times are integer ns.

def complete(cat, name, pid, tid, start, dur, args):
    """A complete ("X") event: an op, a runtime call, a kernel, a copy, a Python frame."""
    return OrderedDict([("ph", "X"), ("cat", cat), ("name", name), ("pid", pid), ("tid", tid),
                        ("ts", us(start)), ("dur", us(dur)), ("args", args)])


def flow_start(corr, pid, tid, ts):
    """The launch's end of an ac2g flow (on the CPU thread, at the runtime call's start)."""
    return OrderedDict([("ph", "s"), ("id", corr), ("pid", pid), ("tid", tid), ("ts", us(ts)),
                        ("cat", "ac2g"), ("name", "ac2g")])


def flow_end(corr, pid, stream, ts):
    """The device's end of an ac2g flow (on the stream, at the kernel's start)."""
    return OrderedDict([("ph", "f"), ("id", corr), ("pid", pid), ("tid", stream), ("ts", us(ts)),
                        ("cat", "ac2g"), ("name", "ac2g"), ("bp", "e")])


def runtime_args(ext, cbid, corr):
    return OrderedDict([("External id", ext), ("cbid", cbid), ("correlation", corr)])


def memory_record(pid, tid, ts, reserved, allocated, nbytes, addr, device_id, device_type, ev_idx=None):
    """A [memory] instant event with the allocator's totals after it (reserved/allocated may be Raw)."""
    args = OrderedDict([("Total Reserved", reserved), ("Total Allocated", allocated), ("Bytes", nbytes),
                        ("Addr", addr), ("Device Id", device_id), ("Device Type", device_type)])
    if ev_idx is not None:
        args["Ev Idx"] = ev_idx
    return OrderedDict([("ph", "i"), ("cat", "cpu_instant_event"), ("s", "t"), ("name", "[memory]"),
                        ("pid", pid), ("tid", tid), ("ts", us(ts)), ("args", args)])


def per_sm(value):
    """blocks/warps per SM as Kineto prints a float: six decimals, trailing zeros dropped."""
    return Raw(("%.6f" % value).rstrip("0").rstrip("."))


def kernel_args(ext, device, stream, corr, grid=None, block=None, regs=None, smem=0, num_sms=108, warp=32,
                occupancy=None, queued=True, context=True):
    args = OrderedDict([("External id", ext)])
    if queued:
        args["queued"] = 0
    args["device"] = device
    if context:
        args["context"] = 1
    args["stream"] = stream
    args["correlation"] = corr
    if regs is not None:
        blocks = grid[0] * grid[1] * grid[2]
        warps = blocks * -(-(block[0] * block[1] * block[2]) // warp)
        args["registers per thread"] = regs
        args["shared memory"] = smem
        args["blocks per SM"] = per_sm(blocks / num_sms)
        args["warps per SM"] = per_sm(warps / num_sms)
    if grid is not None:
        args["grid"] = list(grid)
        args["block"] = list(block)
    if occupancy is not None:
        args["est. achieved occupancy %"] = occupancy
    return args


def copy_args(ext, device, stream, corr, nbytes, dur):
    gbps = Raw("%.6f" % (nbytes / dur))  # bytes/ns = GB/s
    return OrderedDict([("External id", ext), ("device", device), ("context", 1), ("stream", stream),
                        ("correlation", corr), ("bytes", nbytes), ("memory bandwidth (GB/s)", gbps)])


def python_args(parent, me, ev_idx):
    return OrderedDict([("Python parent id", parent), ("Python id", me), ("Ev Idx", ev_idx)])


def op_args(ext, seq=None, fwd=0, shapes=None, extra=None, ev_idx=None):
    """A cpu_op's args: ids, the autograd sequence, record_shapes' fields (pairs, in Kineto's order:
    Concrete Inputs, Input type, Input Strides, Input Dims), more fields, the event index."""
    args = OrderedDict([("External id", ext), ("Record function id", 0)])
    if seq is not None:
        args["Sequence number"] = seq
        args["Fwd thread id"] = fwd
    if shapes:
        args.update(shapes)
    if extra:
        args.update(extra)
    if ev_idx is not None:
        args["Ev Idx"] = ev_idx
    return args


class Timeline:
    """Collects the events of one Kineto trace; knows the ids and the allocator totals."""

    def __init__(self, pid, gpu_pid=0, device=0, num_sms=108, warp=32, base_allocated=0,
                 base_reserved=0, corr0=100, external_kw="External id"):
        self.pid, self.gpu_pid, self.device = pid, gpu_pid, device
        self.num_sms, self.warp = num_sms, warp
        self.cpu, self.gpu, self.tail = [], [], []
        self.next_ext, self.next_corr = 1, corr0 + 1
        self.allocated = {0: 0, 1: base_allocated}
        self.reserved = {0: 0, 1: base_reserved}
        self.peak_allocated = base_allocated
        self.ev_idx = 0
        self.ext_kw = external_kw

    # -- CPU side
    def op(self, name, start, dur, tid, cat="cpu_op", seq=None, fwd=0, dims=None, strides=None,
           types=None, concrete=None, extra=None):
        ext = self.next_ext
        self.next_ext += 1
        if cat == "cpu_op":
            shapes = [(k, v) for k, v in (("Concrete Inputs", concrete), ("Input type", types),
                                          ("Input Strides", strides), ("Input Dims", dims)) if v is not None]
            args = op_args(ext, seq, fwd, shapes, extra, self.ev_idx)
            self.ev_idx += 1
        else:
            args = OrderedDict([("External id", ext)])
        self.cpu.append((start, complete(cat, name, self.pid, tid, start, dur, args)))
        return ext

    def launch(self, name, start, dur, tid, ext, cbid, cat="cuda_runtime"):
        corr = self.next_corr
        self.next_corr += 1
        self.cpu.append((start, complete(cat, name, self.pid, tid, start, dur, runtime_args(ext, cbid, corr))))
        return corr, (tid, start)

    def flow_s(self, corr, at):
        tid, start = at
        self.cpu.append((start, flow_start(corr, self.pid, tid, start)))

    def memory(self, ts, nbytes, tid, addr, device_type=1, device_id=0):
        self.allocated[device_type] += nbytes
        if device_type == 1:
            self.peak_allocated = max(self.peak_allocated, self.allocated[1])
        block = 2 * 1024 * 1024 if device_type == 1 else 1
        need = -(-self.allocated[device_type] // block) * block
        self.reserved[device_type] = max(self.reserved[device_type], need)
        self.cpu.append((ts, memory_record(self.pid, tid, ts, self.reserved[device_type], self.allocated[device_type],
                                           nbytes, addr, device_id, device_type, self.ev_idx)))
        self.ev_idx += 1

    # -- device side
    def kernel(self, name, start, dur, stream, ext, corr, grid=None, block=None, regs=None, smem=0,
               occupancy=None, flow=True, queued=True, context=True):
        args = kernel_args(ext, self.device, stream, corr, grid, block, regs, smem, self.num_sms, self.warp,
                           occupancy, queued, context)
        self._gpu("kernel", name, start, dur, stream, args, corr if flow else None)

    def copy(self, cat, name, start, dur, stream, ext, corr, nbytes):
        self._gpu(cat, name, start, dur, stream, copy_args(ext, self.device, stream, corr, nbytes, dur), corr)

    def _gpu(self, cat, name, start, dur, stream, args, flow_corr):
        self.gpu.append((start, complete(cat, name, self.gpu_pid, stream, start, dur, args)))
        if flow_corr is not None:
            self.gpu.append((start, flow_end(flow_corr, self.gpu_pid, stream, start)))

    def gpu_raw(self, start, e):
        self.gpu.append((start, e))

    def events(self):
        cpu = [e for _, e in sorted(self.cpu, key=lambda p: p[0])]  # stable: flow "s" after its call
        gpu = [e for _, e in sorted(self.gpu, key=lambda p: p[0])]
        return cpu + gpu + self.tail


def kineto_tail(pid, gpu_pid, start, end, cpu_threads, streams, process="python3", gpu_label="GPU 0",
                gpu_sort=5000000):
    """Process/thread metadata, the profiler span and the instants Kineto writes last."""
    ts = us(start)
    out = [
        metadata(ts, pid, 0, "process_name", {"name": process}),
        metadata(ts, pid, 0, "process_labels", {"labels": "CPU"}),
        metadata(ts, pid, 0, "process_sort_index", {"sort_index": pid}),
        metadata(ts, gpu_pid, 0, "process_name", {"name": process}),
        metadata(ts, gpu_pid, 0, "process_labels", {"labels": gpu_label}),
        metadata(ts, gpu_pid, 0, "process_sort_index", {"sort_index": gpu_sort + gpu_pid}),
    ]
    for s in streams:
        out.append(metadata(ts, gpu_pid, s, "thread_name", {"name": "stream %d " % s}))
        out.append(metadata(ts, gpu_pid, s, "thread_sort_index", {"sort_index": s}))
    for tid, label in cpu_threads:
        out.append(metadata(ts, pid, tid, "thread_name", {"name": "thread %d (%s)" % (tid, label)}))
        out.append(metadata(ts, pid, tid, "thread_sort_index", {"sort_index": tid}))
    out.append(OrderedDict([("ph", "X"), ("cat", "Trace"), ("ts", us(start)), ("dur", us(end - start)),
                            ("pid", "Spans"), ("tid", "PyTorch Profiler"), ("name", "PyTorch Profiler (0)"),
                            ("args", {"Op count": 0})]))
    out.append(metadata(ts, "Spans", 0, "process_sort_index", {"sort_index": 536870912}))
    out.append(OrderedDict([("name", "Iteration Start: PyTorch Profiler"), ("ph", "i"), ("s", "g"),
                            ("pid", "Traces"), ("tid", "Trace PyTorch Profiler"), ("ts", us(start))]))
    out.append(OrderedDict([("name", "Record Window End"), ("ph", "i"), ("s", "g"), ("pid", ""), ("tid", ""),
                            ("ts", us(end))]))
    return out
