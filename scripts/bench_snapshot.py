#!/usr/bin/env python3
"""Memory-snapshot benchmark: `attnwb inspect SNAPSHOT` against Python's pickle.load, same file, same run.

What it measures
  Wall time and peak RSS of `attnwb inspect FILE --rows 5` (the pickle read, the snapshot's layout
  checked, every device replayed, the peak's blocks and frames printed) and of
  `python3 -c 'pickle.load(open(FILE, "rb"))'` (the load alone: memory_viz and _memory_viz's text
  summaries start from it), each in its own child process (os.wait4: ru_maxrss of that child), --repeat
  times each (median wall, max RSS), after one untimed read of the file so both start from a warm page
  cache. MB = 10^6 bytes, MiB = 2^20 bytes. Goals: a 1 GB snapshot in <= 3 s, peak RSS <= the file's size.

The snapshot
  Generated here in the layout torch.cuda.memory._snapshot() returns after _record_memory_history():
  segments of a CUDA caching allocator with their blocks, and one device's trace of alloc /
  free_requested / free_completed / segment_alloc / segment_free events with action, addr, size,
  stream, time_us and frames (deterministic, --seed). A sidecar FILE.meta.json holds what the
  generator knows: the peak of allocated bytes, which attnwb's replay must equal (checked).
  --layout torch (the default) shares Python objects the way torch does: py_symbolize (in
  torch/csrc/profiler/python/combined_traceback.cpp) makes one frames list per captured traceback, so
  one list per allocation, referred to again by that block's frees, whose frame dicts are shared by
  every list (pickle memoizes them: a list is a run of memo references, 20 to 60 frames deep). Each
  event has torch 2.11's keys, compile_context (a str of its own per event) and user_metadata too.
  --layout shared-stacks is a harder case per byte: 20,000 stack lists shared by all the events, so
  an event is about 45 bytes and a reference to a list made long before.

Cases
  plain: the pickle as generated; gzip: the same gzipped (level 6, as gzip(1)), read by attnwb as it
  inflates and by Python through gzip.open. With --reader AWB_CORE_TESTS (the core test binary), the
  reader alone is measured too: its MemorySnapshot.ReadOnlyBench test reads AWB_SNAPSHOT_BENCH with
  read_memory_snapshot and nothing else (goal for the reader: peak RSS <= ~0.6x the file). With --gui
  AWB_OPEN_BENCH (tests/ui/bench_open.cpp), the window too: it opens the file (offscreen) and times it
  to the replay on screen, with the GUI thread's longest stall meanwhile.
  attnwb inspect's own --timing (the read and the replay, not the printing and the exit) is shown
  under its whole process.

Usage
  python3 scripts/bench_snapshot.py                         # 200 MB snapshot, 3 runs each side
  python3 scripts/bench_snapshot.py --size-mb 1000 --repeat 1 --cases plain
  python3 scripts/bench_snapshot.py --attnwb build-io/app/attnwb --reader build-io/tests/awb_core_tests
  python3 scripts/bench_snapshot.py --generate --size-mb 20 --out /tmp/s.pickle   # generator only
"""
import argparse
import gzip
import shutil
import json
import os
import pickle
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = 2  # 2: torch 2.11's compile_context and user_metadata in every event (a file of version 1 is made again)


def make_frames(rng, count):
    files = ["model.py", "attention.py", "layers.py", "train.py", "torch/nn/modules/module.py", "torch/_tensor.py"]
    names = ["forward", "attention", "_call_impl", "step", "backward", "softmax", "matmul", "linear", "mlp", "norm"]
    return [{"filename": f"/opt/app/{rng.choice(files)}", "line": rng.randrange(1, 3000), "name": rng.choice(names)}
            for _ in range(count)]


def generate(path, size_mb, seed, layout="torch", events=None):
    """A snapshot of about size_mb MB; returns its meta (event count, peak allocated bytes)."""
    rng = random.Random(seed)
    frames = make_frames(rng, 4000)
    target = size_mb * 1_000_000
    if layout == "shared-stacks":
        stacks = [[rng.choice(frames) for _ in range(rng.randrange(8, 40))] for _ in range(20000)]
        new_stack = lambda: rng.choice(stacks)
        # An event: the dict (keys memoized after the first), ints, a memo reference to its stack: ~60 bytes.
        events_wanted = max(1000, (target - 20000 * 30 * 4 - 4000 * 80) // 60)
    else:
        # Call paths through a model: a few hundred distinct stacks, 20 to 60 frames deep, each
        # allocation with its own list of the shared frame dicts (BINGET / LONG_BINGET: 2 to 5 bytes each).
        paths = [[rng.choice(frames) for _ in range(rng.randrange(20, 60))] for _ in range(400)]
        new_stack = lambda: list(rng.choice(paths))
        # An alloc: ~85 bytes of dict, ints and str plus ~40 frames of 2 to 5 bytes; its two frees ~90
        # each (time_us is an 8-byte LONG1): ~145 bytes an event.
        events_wanted = max(1000, target // 145)
    events_wanted = events or events_wanted
    trace, live, allocated, peak = [], {}, 0, 0
    addr_next = 1 << 32
    segments_at = []
    segment_alloc_every = 200
    clock = [1_796_000_000_000_000]  # time_us: microseconds since the epoch, as torch's trace entries

    def event(action, addr, size, stack):
        clock[0] += rng.randrange(1, 40)
        if layout == "shared-stacks":
            return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": clock[0], "frames": stack}
        # torch 2.11's TraceEntry as _snapshot() returns it: compile_context a str object of its own per
        # event (written out each time, "N/A" when torch.compile is not involved), user_metadata the one
        # empty str (a memo reference).
        return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": clock[0],
                "compile_context": b"N/A".decode(), "user_metadata": "", "frames": stack}
    while len(trace) < events_wanted:
        if len(trace) % segment_alloc_every == 0:
            size = 2 << 20
            trace.append(event("segment_alloc", addr_next, size, new_stack()))
            segments_at.append((addr_next, size))
            addr_next += size
        if live and (rng.random() < 0.48 or len(live) > 5000):
            addr = rng.choice(list(live)) if len(live) < 64 else next(iter(live))
            size, stack = live.pop(addr)
            trace.append(event("free_requested", addr, size, stack))
            trace.append(event("free_completed", addr, size, stack))
            allocated -= size
        else:
            size = rng.choice([512, 4096, 1 << 16, 1 << 20, 3 << 20, 8 << 20])
            stack = new_stack()
            addr = addr_next
            addr_next += size
            live[addr] = (size, stack)
            trace.append(event("alloc", addr, size, stack))
            allocated += size
            peak = max(peak, allocated)
    # The final state: one segment per live block (enough for the replay: what is active at the end).
    segments = [{"device": 0, "address": addr, "total_size": size, "stream": 0, "segment_type": "large",
                 "allocated_size": size, "active_size": size, "requested_size": size,
                 "blocks": [{"address": addr, "size": size, "requested_size": size, "state": "active_allocated", "frames": stack}]}
                for addr, (size, stack) in sorted(live.items())]
    snapshot = {"segments": segments, "device_traces": [trace], "allocator_settings": {"expandable_segments": False}}
    with open(path, "wb") as f:
        pickle.dump(snapshot, f, protocol=4)
    meta = {"events": len(trace), "peak_allocated": peak, "final_allocated": allocated, "bytes": os.path.getsize(path),
            "size_mb": size_mb, "seed": seed, "layout": layout, "generator": GENERATOR}
    Path(str(path) + ".meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def measure(cmd, repeat, env=None, figure=None):
    """Median wall, max RSS, the last run; with FIGURE (a regex with one group of seconds, searched in
    the output), the median of that figure too."""
    walls, rss, figures, last = [], [], [], None
    for _ in range(repeat):
        # ru_maxrss of the child, through /usr/bin/time's %M (KiB): the child alone, not this script.
        t0 = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            sys.exit(f"bench_snapshot: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        rss.append(int(proc.stderr.strip().splitlines()[-1]) / 1024)
        if figure:
            found = re.search(figure, proc.stdout + proc.stderr)
            if not found:
                sys.exit(f"bench_snapshot: {' '.join(cmd)} did not print its figure ({figure}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
            figures.append(found)
        last = proc
    if figure:
        return statistics.median(walls), max(rss), last, figures
    return statistics.median(walls), max(rss), last


def gzipped(path):
    gz = Path(str(path) + ".gz")
    if not gz.exists() or gz.stat().st_mtime < path.stat().st_mtime:
        with open(path, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    return gz


def run_case(name, path, meta, args):
    """One file: attnwb inspect, the reader alone (--reader) and pickle.load; rows of the table."""
    path.read_bytes()  # warm the page cache
    mb, file_bytes = meta["bytes"] / 1e6, path.stat().st_size
    out = str(path) + ".inspect.json"
    ours, ours_rss, _, timed = measure([args.attnwb, "inspect", str(path), "--rows", "5", "--quiet", "--json", out, "--timing"], args.repeat,
                                       figure=r"read and replayed in ([0-9.]+) s")
    opened = statistics.median(float(m.group(1)) for m in timed)
    got = json.loads(Path(out).read_text())["snapshots"][0]["devices"][0]
    if got["peak_allocated_bytes"] != meta["peak_allocated"]:
        sys.exit(f"bench_snapshot: attnwb's peak {got['peak_allocated_bytes']} != the generator's {meta['peak_allocated']}")
    opener = "gzip.open" if path.suffix == ".gz" else "open"
    theirs, theirs_rss, _ = measure([args.python, "-c", f"import gzip, pickle; pickle.load({opener}({str(path)!r}, 'rb'))"], args.repeat)
    rows = [("attnwb inspect (whole process)", ours, ours_rss), ("  of which read + replay (--timing)", opened, ours_rss)]
    if args.reader:
        env = dict(os.environ, AWB_SNAPSHOT_BENCH=str(path))
        reader, reader_rss, _ = measure([args.reader, "--gtest_filter=MemorySnapshot.ReadOnlyBench"], args.repeat, env)
        rows.append(("read_memory_snapshot alone", reader, reader_rss))
    if args.gui:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        _, gui_rss, _, shown = measure([args.gui, str(path)], args.repeat, env,
                                       figure=r"snapshot replayed, shown +([0-9.]+) s(?s:.*)longest GUI-thread stall +([0-9]+) ms")
        rows.append(("GUI: open to the replay on screen", statistics.median(float(m.group(1)) for m in shown), gui_rss))
        print(f"GUI: the GUI thread's longest stall while opening: {max(int(m.group(2)) for m in shown)} ms (a 10 ms timer's lateness)")
    rows.append(("python pickle.load (load only)", theirs, theirs_rss))
    print(f"\n{name}: {path.name}, {file_bytes / 1e6:.1f} MB on disk ({mb:.1f} MB of pickle), {meta['events']:,} trace events, "
          f"peak {meta['peak_allocated'] / 2**30:.2f} GiB (attnwb's replay agrees)")
    print(f"{'':34s} {'wall s':>8s} {'MB/s':>8s} {'peak RSS MiB':>13s} {'RSS / file':>11s} {'speed vs py':>12s} {'RSS vs py':>10s}")
    for label, wall, rss in rows:
        print(f"{label:34s} {wall:8.3f} {mb / wall:8.1f} {rss:13.0f} {rss * 2**20 / file_bytes:11.2f} {theirs / wall:11.2f}x {rss / theirs_rss:9.2f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layout", choices=["torch", "shared-stacks"], default="torch",
                    help="how the events share their frames lists (see the docstring)")
    ap.add_argument("--out", default="/tmp/awb-bench/snapshot.pickle")
    ap.add_argument("--attnwb", default=str(ROOT / "build" / "app" / "attnwb"))
    ap.add_argument("--reader", help="the core test binary (awb_core_tests): also measure the reader alone")
    ap.add_argument("--gui", help="the GUI open benchmark (awb_open_bench, ninja awb_benchmarks): also measure the window opening the file (offscreen)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--cases", default="plain,gzip", help="plain, gzip or both (comma-separated)")
    ap.add_argument("--generate", action="store_true", help="write the snapshot and its meta only")
    ap.add_argument("--events", type=int, help="with --generate: about this many trace events, whatever --size-mb")
    args = ap.parse_args()
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta_path = Path(str(path) + ".meta.json")
    meta = json.loads(meta_path.read_text()) if path.exists() and meta_path.exists() else {}
    same = (meta.get("size_mb") == args.size_mb and meta.get("seed") == args.seed and meta.get("layout", "shared-stacks") == args.layout
            and meta.get("generator") == GENERATOR)
    if same and not args.events and meta.get("bytes") == path.stat().st_size:
        pass  # generated before with the same arguments
    else:
        t0 = time.perf_counter()
        meta = generate(path, args.size_mb, args.seed, args.layout, args.events)
        print(f"generated {path}: {meta['bytes'] / 1e6:.1f} MB, {meta['events']:,} events in {time.perf_counter() - t0:.1f} s")
    if args.generate:
        return
    cases = args.cases.split(",")
    if "plain" in cases:
        run_case("plain", path, meta, args)
    if "gzip" in cases:
        run_case("gzip", gzipped(path), meta, args)


if __name__ == "__main__":
    main()
