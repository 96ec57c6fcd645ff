#!/usr/bin/env python3
"""cli.grown_trace: real traces grown 3x by scripts/bench_import.py's grow_trace (the
benchmark's --grow) must read as three copies of themselves.

- Analysis: `attnwb inspect --rows 0 --breakdown --json` of the grown trace shows 3x the source's
  operator calls, self/total CPU and device times and memory, kernel calls and totals (min/max/avg
  unchanged), kernel classes, GPU time breakdown per device and step (busy, computation,
  communication, memcpy, memset, exposed, per class) and event counts (grown_mismatches), plus a few
  of those figures checked here directly.
- Layout: the first copy is the source's text; metadata (M) events and top-level keys once; copy r's
  ProfilerStep#N is N + r x the source's number of steps; in every
  copy each linking id (correlation, External id, Ev Idx, Python id, Sequence number, flow ids) occurs
  as often as in the source and no id is shared between copies (operator tables sum by name, so a
  collision across copies would not show in the analysis); timestamps move by whole copies.
- .json.gz sources, and the same bytes every time.

Fixtures (in the repository, nothing from ../shared needed): kineto_gpu_2x.json (GPU, NCCL, flows,
[memory] instants), memory_totals/mi300x_resnet_window.json and sglang_decode_memory.json (windows of
real TraceLens traces: python_function trees, Input Dims, Concrete Inputs, HIP kernels, memory totals).

    python3 tests/reference/test_grow_trace.py ATTNWB
"""
import collections
import decimal
import gzip
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
TRACES = os.path.join(REPO, "tests", "fixtures", "traces")
sys.path.insert(0, os.path.join(REPO, "scripts"))
import bench_import  # noqa: E402

ATTNWB = None
REPS = 3
FIXTURES = ("kineto_gpu_2x.json", "memory_totals/mi300x_resnet_window.json", "memory_totals/sglang_decode_memory.json")
LINK_KEYS = ("correlation", "External id", "Ev Idx", "Python id", "Python parent id", "Sequence number")


def load_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        root = json.load(f, parse_float=decimal.Decimal)
    return root


def link_values(event):
    """(key, value) of each linking id of an event that grow_trace renumbers."""
    out = []
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    for k in LINK_KEYS:
        v = args.get(k)
        if isinstance(v, int) and v >= 0 and not (v == 0 and k in bench_import.ZERO_IS_NONE):
            out.append((k, v))
    if event.get("ph") in ("s", "f") and isinstance(event.get("id"), int):
        out.append(("flow id", event["id"]))
    return out


class GrownTrace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="awb-grow-test-")
        cls.grown = {}
        for name in FIXTURES:
            src = os.path.join(TRACES, name)
            if not os.path.isfile(src):
                raise AssertionError(f"fixture missing: {src}")  # a failure, never a skip
            base = os.path.basename(name).replace(".json", "")
            out = os.path.join(cls.tmp, f"{base}_x{REPS}.json")
            meta = bench_import.grow_trace(src, out, REPS)
            orig = bench_import.inspect_json(ATTNWB, src, os.path.join(cls.tmp, base + ".inspect.json"))
            grown = bench_import.inspect_json(ATTNWB, out, os.path.join(cls.tmp, base + f"_x{REPS}.inspect.json"))
            cls.grown[name] = (src, out, meta, orig, grown)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_results_are_three_times_the_source(self):
        for name, (_, _, _, orig, grown) in self.grown.items():
            with self.subTest(trace=name):
                issues, compared = bench_import.grown_mismatches(orig, grown, REPS)
                self.assertEqual(issues, [], f"{name}: grown x{REPS} differs from {REPS} x the source")
                self.assertGreater(compared, 100, "too few figures compared")
                self.assertTrue(orig["operators"], f"{name}: no operators to compare")
                if name != "memory_totals/sglang_decode_memory.json":   # a CPU-side window: no kernels
                    self.assertTrue(orig["kernels"], f"{name}: no kernels to compare")

    def test_key_figures_directly(self):
        """The main sums, computed here without grown_mismatches."""
        def sums(t):
            ops = t["operators"]
            return {"calls": sum(r["calls"] for r in ops), "self_cpu_us": sum(r["self_cpu_us"] for r in ops),
                    "self_device_us": sum(r["self_device_us"] for r in ops),
                    "kernel_calls": sum(k["calls"] for k in t["kernels"]),
                    "kernel_us": sum(k["total_us"] for k in t["kernels"]),
                    "busy_us": sum(r["busy_us"] for r in t.get("gpu_breakdown") or [] if r.get("step") is None)}
        for name, (_, _, _, orig, grown) in self.grown.items():
            a, g = sums(orig), sums(grown)
            with self.subTest(trace=name):
                for k in ("calls", "kernel_calls"):
                    self.assertEqual(g[k], REPS * a[k], f"{name} {k}")
                for k in ("self_cpu_us", "self_device_us", "kernel_us", "busy_us"):  # 1 ns per row and copy
                    self.assertAlmostEqual(g[k], REPS * a[k], delta=0.001 * REPS * len(orig["operators"]), msg=f"{name} {k}")

    def test_breakdown_present(self):
        _, _, _, orig, grown = self.grown["kineto_gpu_2x.json"]
        self.assertTrue(orig.get("gpu_breakdown"), "attnwb inspect --breakdown gave no GPU time breakdown")
        self.assertEqual({r.get("step") for r in orig["gpu_breakdown"]}, {None, 3})
        self.assertEqual({r.get("step") for r in grown["gpu_breakdown"]}, {None, 3, 4, 5}, "copies' steps go on")

    def test_layout_and_one_to_one_links(self):
        for name, (src, out, meta, _, _) in self.grown.items():
            with self.subTest(trace=name):
                self.check_layout(src, out, meta)

    def check_layout(self, src, out, meta):
        s, g = load_events(src), load_events(out)
        self.assertEqual({k: v for k, v in g.items() if k != "traceEvents"},
                         {k: v for k, v in s.items() if k != "traceEvents"}, "top-level keys changed")
        src_ev, grown_ev = s["traceEvents"], g["traceEvents"]
        body = [e for e in src_ev if e.get("ph") != "M"]
        n = len(body)
        self.assertEqual(len(grown_ev), len(src_ev) + (REPS - 1) * n)
        self.assertEqual(grown_ev[:len(src_ev)], src_ev, "the first copy is not the source")
        self.assertEqual(sum(e.get("ph") == "M" for e in grown_ev), len(src_ev) - n, "metadata events not once")
        copies = [body] + [grown_ev[len(src_ev) + i * n: len(src_ev) + (i + 1) * n] for i in range(REPS - 1)]
        self.assertEqual(meta["events_per_repetition"], n)
        shape = lambda evs: sorted(collections.Counter(link_values_all(evs)).values())
        seen = {}
        for r, copy in enumerate(copies):
            self.assertEqual(shape(copy), shape(body), f"copy {r}: linking ids not one-to-one as in the source")
            for kv in set(link_values_all(copy)):
                self.assertFalse(kv in seen, f"{kv} in copy {seen.get(kv)} and copy {r}")
                seen[kv] = r
            for a, b in zip(body, copy):
                name = a.get("name")
                if str(name).startswith("ProfilerStep#"):   # the steps go on: N + r x the trace's steps
                    name = f"ProfilerStep#{int(name[13:]) + r * meta['step_stride']}"
                self.assertEqual(b.get("name"), name)
                if "ts" in a:
                    self.assertEqual(b["ts"] - a["ts"], r * meta["offset_us"])
                    self.assertGreater(meta["offset_us"], 0)

    def test_gz_source_and_determinism(self):
        src = os.path.join(TRACES, "kineto_gpu_2x.json")
        a, b = (os.path.join(self.tmp, f"det_{i}.json") for i in range(2))
        bench_import.grow_trace(src, a, REPS)
        bench_import.grow_trace(src + ".gz", b, REPS)
        with open(a, "rb") as fa, open(b, "rb") as fb, open(self.grown["kineto_gpu_2x.json"][1], "rb") as fc:
            first = fa.read()
            self.assertEqual(first, fb.read(), ".json.gz source grows differently from the .json")
            self.assertEqual(first, fc.read(), "growing twice gives different bytes")


def link_values_all(events):
    return [kv for e in events for kv in link_values(e)]


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: test_grow_trace.py ATTNWB (the attnwb binary)")
    ATTNWB = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
