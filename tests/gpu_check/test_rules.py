"""The GPU check's agreement rules (scripts/gpu_check/rules.py) on made-up rows: each rule passes when
the two sides agree and fails on the disagreement it is there to catch. No torch needed.
Run: python3 -m unittest discover -s tests/gpu_check"""
import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu_check"))
import rules  # noqa: E402


def row(name, calls, self_dev=0.0, dev_total=0.0, device="cpu", self_cpu=10.0, cpu_total=20.0):
    return {"name": name, "device_type": device, "calls": calls, "self_cpu_us": self_cpu, "cpu_total_us": cpu_total,
            "self_device_us": self_dev, "device_total_us": dev_total}


def sides():
    """An attnwb report, its kernels (attnwb inspect rows, one per launch configuration) and the reference."""
    ops = [row("ProfilerStep*", 3, 0, 300.0), row("manual", 3, 0, 300.0), row("aten::bmm", 6, 200.0, 200.0),
           row("aten::_softmax", 3, 100.0, 100.0), row("aten::view", 12), row("cudaLaunchKernel", 9),
           row("cudaDeviceSynchronize", 5),
           row("sm90_xmma_gemm", 6, 200.0, 200.0, device="cuda"), row("softmax_warp_forward", 3, 100.0, 100.0, device="cuda"),
           row("[memory]", 40)]
    ours = {"operators": ops, "peak_memory_bytes": 100 << 20}
    ours_kernels = [{"name": "sm90_xmma_gemm", "calls": 4, "total_ns": 130000}, {"name": "sm90_xmma_gemm", "calls": 2, "total_ns": 70000},
                    {"name": "softmax_warp_forward", "calls": 3, "total_ns": 100000}]
    ref = {"operators": copy.deepcopy(ops[:-1]), "self_cuda_total_us": 300.0, "cuda_peak_bytes": 100 << 20,
           "kernels": [{"name": "sm90_xmma_gemm", "calls": 6, "total_us": 200.0},
                       {"name": "softmax_warp_forward", "calls": 3, "total_us": 100.0}]}
    return ours, ours_kernels, ref


def statuses(verdicts):
    return {v["rule"]: v["status"] for v in verdicts}


def find(ref, name):
    return next(r for r in ref["operators"] if r["name"] == name)


class ProfileRules(unittest.TestCase):
    def test_agreeing_sides_pass_every_rule(self):
        ours, kernels, ref = sides()
        got = statuses(rules.profile_rules(ours, kernels, ref, cuda=True))
        self.assertEqual(set(got.values()), {"pass"}, got)
        self.assertIn("CUDA peak", got)
        self.assertIn("kernel launches", got)

    def test_a_call_more_on_one_row_is_allowed_on_two_rows_only(self):
        ours, kernels, ref = sides()
        find(ref, "aten::view")["calls"] = 13
        self.assertEqual(statuses(rules.profile_rules(ours, kernels, ref, True))["operator calls"], "pass")
        find(ref, "aten::bmm")["calls"] = 7
        find(ref, "aten::_softmax")["calls"] = 4
        self.assertEqual(statuses(rules.profile_rules(ours, kernels, ref, True))["operator calls"], "fail")

    def test_a_missing_operator_or_kernel_fails(self):
        ours, kernels, ref = sides()
        ref["operators"] = [r for r in ref["operators"] if r["name"] != "aten::_softmax"]
        ref["kernels"] = ref["kernels"][:1]
        got = statuses(rules.profile_rules(ours, kernels, ref, True))
        self.assertEqual(got["operator rows"], "fail")
        self.assertEqual(got["kernel names"], "fail")

    def test_device_time_off_by_a_third_fails(self):
        ours, kernels, ref = sides()
        find(ref, "aten::bmm")["self_device_us"] = 300.0
        ref["kernels"][0]["total_us"] = 300.0
        ref["self_cuda_total_us"] = 400.0
        got = statuses(rules.profile_rules(ours, kernels, ref, True))
        self.assertEqual(got["operator self CUDA"], "fail")
        self.assertEqual(got["kernel time"], "fail")
        self.assertEqual(got["Self CUDA time total"], "fail")

    def test_small_rows_are_compared_by_calls_only(self):
        ours, kernels, ref = sides()
        ours["operators"].append(row("aten::fill_", 3, 1.0, 1.0))
        ref["operators"].append(row("aten::fill_", 3, 3.0, 3.0))  # 3x, but 1% of the device time
        self.assertEqual(statuses(rules.profile_rules(ours, kernels, ref, True))["operator self CUDA"], "pass")

    def test_peak_and_launches_and_step_rows(self):
        ours, kernels, ref = sides()
        ref["cuda_peak_bytes"] = (100 << 20) + (32 << 20)  # a cuBLAS workspace more
        find(ref, "cudaLaunchKernel")["calls"] = 10
        find(ref, "ProfilerStep*")["device_total_us"] = 400.0
        got = statuses(rules.profile_rules(ours, kernels, ref, True))
        self.assertEqual(got["CUDA peak"], "fail")
        self.assertEqual(got["kernel launches"], "fail")
        self.assertEqual(got["ProfilerStep*"], "fail")

    def test_the_chunked_autograd_node_names_match(self):
        ours, kernels, ref = sides()
        ours["operators"].append(row("torch::autograd::CppNode<awb::(anonymous namespace)::ChunkedAttentionFunction>", 3))
        ref["operators"].append(row("ChunkedAttentionFunctionBackward", 3))
        ref["operators"].append(row("ChunkedAttentionFunction", 3))  # Python's apply region
        self.assertEqual(statuses(rules.profile_rules(ours, kernels, ref, True))["operator rows"], "pass")

    def test_on_the_cpu_the_device_rules_are_not_applicable(self):
        ours, kernels, ref = sides()
        got = statuses(rules.profile_rules(ours, kernels, ref, cuda=False))
        self.assertEqual(got["device columns"], "n/a")
        self.assertNotIn("CUDA peak", got)


    def test_device_annotations_are_not_kernels_and_the_printed_footer_counts(self):
        ours, kernels, ref = sides()
        ours["operators"].append(row("manual", 3, 900.0, 900.0, device="cuda") | {"user_annotation": True})
        self.assertEqual(set(statuses(rules.profile_rules(ours, kernels, ref, True)).values()), {"pass"})
        ours["self_cuda_total_us"] = rules.printed_total("Self CPU time total: 1.000ms\nSelf CUDA time total: 1.500ms\n")
        self.assertEqual(ours["self_cuda_total_us"], 1500.0)
        self.assertEqual(statuses(rules.profile_rules(ours, kernels, ref, True))["Self CUDA time total"], "fail")


class SameProfileRules(unittest.TestCase):
    def test_rounding_passes_and_a_microsecond_per_call_more_fails(self):
        ours, kernels, ref = sides()
        trace = copy.deepcopy(ours["operators"])
        for r in trace:
            r["self_cpu_us"] += 0.0005
        ref_kernels = [{"name": k["name"], "calls": k["calls"], "total_us": k["total_ns"] / 1e3} for k in kernels]
        got = statuses(rules.same_profile_rules(trace, kernels, ours["operators"], ref_kernels, True))
        self.assertEqual(set(got.values()), {"pass"}, got)
        next(r for r in trace if r["name"] == "aten::bmm")["self_device_us"] += 7.0  # 6 calls: over 1 us per call
        self.assertEqual(statuses(rules.same_profile_rules(trace, kernels, ours["operators"], ref_kernels, True))["trace times"],
                         "fail")


class BenchRules(unittest.TestCase):
    def ours(self, ms):
        return {"timing": {"median_ns": ms * 1e6}, "flops": 2.2e12}

    def test_ratio_and_tflops(self):
        got = statuses(rules.bench_rules(self.ours(7.0), {"median_ms": 7.2}, goal_tflops=300, roof={"tflops": 780.0}))
        self.assertEqual(got, {"bench ratio": "pass", "TFLOP/s": "pass"})  # 314 TFLOP/s
        got = statuses(rules.bench_rules(self.ours(8.0), {"median_ms": 7.2}, goal_tflops=300))
        self.assertEqual(got, {"bench ratio": "fail", "TFLOP/s": "fail"})  # ratio 1.11, 275 TFLOP/s

    def test_cpu_ratio_is_reported_not_judged(self):
        got = statuses(rules.bench_rules(self.ours(8.0), {"median_ms": 6.0}, cuda=False))
        self.assertEqual(got, {"bench ratio": "info", "TFLOP/s": "n/a"})


class AttentionRules(unittest.TestCase):
    SPEC = dict(variant="sdpa", batch=2, heads=8, kv_heads=8, seq_q=512, seq_k=512, head_dim=64, mode="train")

    def inspected(self, forward=3, backward=3, seq=512, device_us=100.0, kernels_us=1000.0):
        call = dict(batch=2, heads_q=8, heads_kv=8, seq_q=seq, seq_k=seq, head_dim=64, device_us=device_us, tflops_per_s=100.0,
                    flops=4.0 * 2 * 8 * seq * seq * 64)
        calls = [dict(call, **{"pass": "forward"}) for _ in range(forward)] + \
                [dict(call, **{"pass": "backward", "flops": 2.5 * call["flops"]}) for _ in range(backward)]
        return {"attention": {"calls": calls, "roofs": [dict(device="H200 SXM", dtype="c10::Half", peak_tflops=989)]},
                "kernels": [{"total_us": kernels_us}]}

    def statuses(self, inspected, spec=None, cuda=True):
        return {v["rule"]: v["status"] for v in rules.attention_rules(inspected, spec or self.SPEC, 3, cuda)}

    def test_the_spec_s_calls_pass(self):
        self.assertEqual(self.statuses(self.inspected()), {"attention calls": "pass", "attention FLOPs": "pass",
                                                           "attention device time": "pass", "attention rates": "info"})

    def test_missing_calls_wrong_shapes_and_too_much_device_time_fail(self):
        self.assertEqual(self.statuses(self.inspected(backward=0))["attention calls"], "fail")
        self.assertEqual(self.statuses(self.inspected(seq=256))["attention calls"], "fail")
        self.assertEqual(self.statuses(self.inspected(seq=256))["attention FLOPs"], "fail")
        self.assertEqual(self.statuses(self.inspected(device_us=400.0))["attention device time"], "fail")
        self.assertEqual(self.statuses(self.inspected(device_us=0.0))["attention device time"], "fail")
        forward_only = dict(self.SPEC, mode="forward")
        self.assertEqual(self.statuses(self.inspected(backward=0), forward_only)["attention calls"], "pass")
        self.assertEqual(self.statuses(self.inspected(), dict(self.SPEC, variant="chunked")), {"attention calls": "n/a"})


if __name__ == "__main__":
    unittest.main()
