"""Step (h) of the GPU check (scripts/gpu_check/snapshots.py) without torch: the plain-Python replay gives
what the committed fixtures' replays say, memory_viz's text is read as it prints it, and each rule passes
when attnwb inspect agrees and fails on the disagreement it is there to catch.
Run: python3 -m unittest discover -s tests/gpu_check"""
import copy
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "gpu_check"))
import snapshots  # noqa: E402

FIXTURES = os.path.join(HERE, "..", "fixtures", "memory_snapshots")

# torch 2.11's torch.cuda._memory_viz of handmade.p4.pickle, as snapshot_torch.py viz writes it.
HANDMADE_TRACE = """Device 0 ----------------
9 entries
a = cudaMalloc(1048576, 2.0MiB)
b = a[0:1.0MiB]
c = a[1048576:4.0KiB]
del c # 4.0KiB
{'action': 'segment_map', 'addr': 3145728, 'size': 2097152, 'stream': 0, 'time_us': 14, 'frames': []}
{'action': 'segment_unmap', 'addr': 3145728, 'size': 2097152, 'stream': 0, 'time_us': 15, 'frames': []}
raise OutOfMemoryError # 1.0TiB requested, 117.7MiB free in CUDA
{'action': 'snapshot', 'addr': 0, 'size': 0, 'stream': 0, 'time_us': 17, 'frames': []}
cudaFree(5242880) # 1.0MiB
TOTAL MEM: 8.0B
"""
HANDMADE_SEGSUM = """Summary of segments >= 20.0MiB in size
segments: 2
total_reserved: 2.0MiB
total_allocated: 977.1KiB
total_free: 1.0MiB (4.4% internal)
"""


def inspected_from(snapshot):
    """What attnwb inspect --json writes (snapshots[0]) when it agrees with the replay."""
    devices = []
    for d in snapshots.devices_of(snapshot):
        r = snapshots.replay(snapshot, d)
        dev = {k: r[k] for k in ("device", "events", "peak_allocated_bytes", "peak_after_events", "peak_reserved_bytes",
                                 "final_allocated_bytes", "final_reserved_bytes", "blocks", "unmatched_frees")}
        dev["blocks_at_peak"] = [{"address": a, "bytes": s, "stack": "..."} for a, s in r["blocks_at_peak"]]
        dev["alive_before_recording"] = [{"address": a, "bytes": s} for a, s in r["alive_before_recording"]]
        dev["frames_at_peak"] = [{"frame": f, "bytes": b, "blocks": n} for f, (b, n) in r["frames_at_peak"].items()]
        devices.append(dev)
    return {"segments": len(snapshot.get("segments", [])), "devices": devices, "unknown_actions": {}}


def failed(verdicts):
    return sorted(v["rule"] for v in verdicts if v["status"] == "fail")


class Replay(unittest.TestCase):
    def test_equals_the_fixtures_replays(self):
        for name in ("manual", "sdpa", "handmade"):
            snap = snapshots.load(os.path.join(FIXTURES, f"{name}.p4.pickle"))
            with open(os.path.join(FIXTURES, f"{name}.expected.json")) as f:
                expected = json.load(f)["devices"]
            self.assertEqual(snapshots.devices_of(snap), [e["device"] for e in expected])
            for e in expected:
                r = snapshots.replay(snap, e["device"])
                self.assertEqual((r["peak_allocated_bytes"], r["peak_after_events"], r["events"]),
                                 (e["peak_allocated"], e["peak_index"], e["events"]), name)
                self.assertEqual(r["blocks_at_peak"], e["at_peak"], name)
                self.assertEqual(r["alive_before_recording"], e["before_recording"], name)
                self.assertEqual((r["final_allocated_bytes"], r["final_reserved_bytes"]), (e["final_allocated"], e["final_reserved"]))
                self.assertEqual(sorted(b for b, _ in r["frames_at_peak"].values()), sorted(e["frames_at_peak"].values()), name)

    def test_reserved_follows_the_segment_events(self):
        snap = snapshots.load(os.path.join(FIXTURES, "handmade.p4.pickle"))
        r = snapshots.replay(snap, 0)
        # 2 MiB + 512 B at the end, so 1 MiB + 512 B before a cudaMalloc of 2 MiB, a 2 MiB map (the peak), its
        # unmap and a 1 MiB cudaFree.
        self.assertEqual(r["final_reserved_bytes"], (2 << 20) + 512)
        self.assertEqual(r["peak_reserved_bytes"], (5 << 20) + 512)
        self.assertEqual(r["actions"]["oom"], 1)

    def test_a_gzipped_pickle_reads_the_same(self):
        self.assertEqual(snapshots.load(os.path.join(FIXTURES, "manual.p4.pickle.gz")),
                         snapshots.load(os.path.join(FIXTURES, "manual.p4.pickle")))


class MemoryViz(unittest.TestCase):
    def test_reads_its_text(self):
        self.assertEqual(snapshots.parse_segsum(HANDMADE_SEGSUM),
                         {"segments": "2", "total_reserved": "2.0MiB", "total_allocated": "977.1KiB"})
        t = snapshots.parse_trace(HANDMADE_TRACE)
        self.assertEqual(t[0]["entries"], 9)
        self.assertEqual(t[0]["actions"], {"segment_alloc": 1, "alloc": 2, "free_requested": 1, "oom": 1, "segment_free": 1})
        self.assertEqual(t[0]["alloc_sizes"], ["1.0MiB", "4.0KiB"])

    def test_sizes_as_it_prints_them(self):
        self.assertEqual([snapshots.viz_size(n) for n in (8, 4096, 1 << 20, 30676736, 1 << 40)],
                         ["8.0B", "4.0KiB", "1.0MiB", "29.3MiB", "1.0TiB"])


class Rules(unittest.TestCase):
    def setUp(self):
        self.snap = snapshots.load(os.path.join(FIXTURES, "handmade.p4.pickle"))
        self.good = inspected_from(self.snap)

    def rules(self, inspected, segsum=HANDMADE_SEGSUM, trace=HANDMADE_TRACE):
        return snapshots.snapshot_rules("handmade", inspected, self.snap, segsum, trace)

    def test_agreement_passes(self):
        verdicts = self.rules(self.good)
        self.assertEqual(failed(verdicts), [])
        self.assertGreaterEqual(sum(v["status"] == "pass" for v in verdicts), 8)
        self.assertTrue(all(v["rule"].startswith("handmade: ") for v in verdicts))

    def test_each_disagreement_fails_its_rule(self):
        cases = [("peak_allocated_bytes", 1, "handmade: device 0: peak allocated"),
                 ("peak_after_events", 1, "handmade: device 0: peak allocated"),
                 ("peak_reserved_bytes", 4096, "handmade: device 0: reserved")]
        for key, delta, rule in cases:
            bad = copy.deepcopy(self.good)
            bad["devices"][0][key] += delta
            self.assertIn(rule, failed(self.rules(bad)), key)
        bad = copy.deepcopy(self.good)
        bad["devices"][0]["blocks_at_peak"].pop()
        self.assertIn("handmade: device 0: blocks alive at the peak", failed(self.rules(bad)))
        bad = copy.deepcopy(self.good)
        bad["devices"][0]["frames_at_peak"][0]["frame"] += " (renamed)"
        self.assertIn("handmade: device 0: bytes per frame at the peak", failed(self.rules(bad)))
        bad = copy.deepcopy(self.good)
        bad["devices"][0]["alive_before_recording"] = []
        self.assertIn("handmade: device 0: alive before recording", failed(self.rules(bad)))
        bad = copy.deepcopy(self.good)
        bad["devices"] = []
        self.assertIn("handmade: devices", failed(self.rules(bad)))

    def test_memory_viz_disagreements_fail(self):
        self.assertEqual(failed(self.rules(self.good, segsum=HANDMADE_SEGSUM.replace("2.0MiB", "2.1MiB"))),
                         ["handmade: memory_viz segsum"])
        self.assertEqual(failed(self.rules(self.good, trace=HANDMADE_TRACE.replace("9 entries", "8 entries"))),
                         ["handmade: device 0: memory_viz trace"])
        self.assertEqual(failed(self.rules(self.good, trace=HANDMADE_TRACE.replace("a[0:1.0MiB]", "a[0:1.1MiB]"))),
                         ["handmade: device 0: memory_viz trace"])

    def test_without_memory_viz_only_attnwb_and_the_replay(self):
        verdicts = self.rules(self.good, segsum=None, trace=None)
        self.assertEqual(failed(verdicts), [])
        self.assertFalse(any("memory_viz" in v["rule"] for v in verdicts))

    def test_the_two_recordings_are_information(self):
        r = snapshots.replay(self.snap, 0)
        v = snapshots.recordings_rule("manual", r, dict(r, peak_allocated_bytes=r["peak_allocated_bytes"] * 2))
        self.assertEqual(v["status"], "info")
        self.assertIn("-50.0%", v["detail"])


if __name__ == "__main__":
    unittest.main()
