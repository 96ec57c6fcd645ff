"""A memory snapshot read as attnwb reads it, in plain Python (no torch): a frame's text, the devices
listed, the final state and what was alive before recording began. Shared by the references that
check attnwb (make_memory_snapshots.py, snapshot_views_reference.py) and by the GPU check's step (h)
(scripts/gpu_check/snapshots.py)."""


def frame_text(f):
    """attnwb's name for a frame (analysis/snapshot_frames: frame_text)."""
    name, filename = f.get("name", ""), f.get("filename", "")
    return name if filename in ("", "none") else f"{name} ({filename}:{f.get('line', 0)})"


MACHINERY_NAMES = ("unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp", "__libc_start_main", "PyEval_",
                   "PyObject_", "PyFunction_", "CUDACachingAllocator::", "c10::impl::wrap_kernel_functor_unboxed_",
                   "c10::Dispatcher::")
MACHINERY_FILES = ("core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c", "Objects/call.c",
                   "Objects/methodobject.c", "pycore_ceval.h", "ceval.c", "cpython/abstract.h")


def is_machinery(f):
    """A frame of the recording's own machinery, which attnwb hides from stacks and from the bytes under
    each frame (analysis/snapshot_frames: is_machinery_frame): memory_viz's _frame_filter, the caching
    allocator's functions, the dispatcher's wrappers, frames without a symbol."""
    name, filename = f.get("name", ""), f.get("filename", "")
    return (name in ("??", "_start") or any(n in name for n in MACHINERY_NAMES)
            or any(n in filename for n in MACHINERY_FILES))


def devices_of(snapshot):
    """The devices attnwb lists: those with trace events or segments."""
    traces = snapshot.get("device_traces", [])
    with_segments = {s.get("device", 0) for s in snapshot.get("segments", [])}
    return sorted({d for d, t in enumerate(traces) if t} | with_segments)


def final_state(snapshot, device):
    """The device's blocks active at the snapshot, by address: (size, frames); and its allocated and
    reserved bytes. A block without an address follows the one before it in its segment."""
    final, allocated, reserved = {}, 0, 0
    for seg in snapshot.get("segments", []):
        if seg.get("device", 0) != device:
            continue
        reserved += seg["total_size"]
        addr = seg["address"]
        for b in seg.get("blocks", []):
            addr = b.get("address", addr)
            if b["state"] != "inactive":
                final[addr] = (b["size"], b.get("frames") or [])
                allocated += b["size"]
            addr += b["size"]
    return final, allocated, reserved


def alive_before(events, final):
    """Forward, event by event: a free of an address the trace never allocated, or a block active at the
    end that the trace never allocated, was alive before recording began. By address: (size, frames);
    where both hold an address, the free's block, as attnwb's walk back from the final state finds it."""
    alive, before = set(), {}
    for e in events:
        if e["action"] == "alloc":
            alive.add(e["addr"])
        elif e["action"] == "free_completed":
            if e["addr"] in alive:
                alive.discard(e["addr"])
            else:
                before[e["addr"]] = (e["size"], e.get("frames") or [])
    for addr, block in final.items():
        if addr not in alive:
            before.setdefault(addr, block)
    return before
