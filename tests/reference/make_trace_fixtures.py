#!/usr/bin/python3
"""Write the chrome-trace fixtures the trace importer (core/io/trace_import.cpp) is tested on.

Everything goes to tests/fixtures/traces/ (and its multi_rank/ and bad/ folders), with a README.md
that says, file by file, what a reader must get from it. The numbers in README.md are not typed:
this script computes them from the files it just wrote (parsed back with json, gzip), using a
small re-implementation of PyTorch's own key_averages() (torch/autograd/profiler.py
_parse_kineto_results + profiler_util.py EventList._build_tree / key_averages), and checks them
against the intended timeline and against a few values worked out by hand (HAND_CHECKS).

Files:
  torch_cpu_profile.json (+ .expected.json)  a REAL trace from Debian's python3-torch (CPU only)
  kineto_gpu_2x.json, kineto_gpu_2x.json.gz  hand-made PyTorch 2.x / Kineto layout of a GPU step
  kineto_2021.json                           hand-made torch 1.8/1.9-era Kineto layout
  rocm_kernels.json                          hand-made ROCm (roctracer) flavour of the 2.x layout
  legacy_array.json                          the 1.x autograd profiler's plain array, use_cuda=True
  multi_rank/rank{0,1}.pt.trace.json         two ranks of an NCCL all-reduce step
  bad/*                                      one file per class of bad input

Only the torch trace depends on timings; everything else is byte-for-byte deterministic.
Run: /usr/bin/python3 tests/reference/make_trace_fixtures.py [--skip-torch] [--out DIR]
     [--verify-nlohmann]  (compiles a throwaway nlohmann::json checker with g++ in a temp dir and
                           asserts the error offsets README.md documents for bad/)
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, OrderedDict
from decimal import ROUND_HALF_UP, Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from kineto_json import (Raw, Timeline, jv, kineto_document, kineto_event_text, kineto_tail,  # noqa: E402: shared
                         metadata, us)
OUT_DEFAULT = os.path.join(ROOT, "tests", "fixtures", "traces")
MAX_BYTES = 50 * 1024

# ----------------------------------------------------------------------------------------------
# Building a Kineto (2.x) timeline. Times are integer nanoseconds relative to baseTimeNanoseconds.


def t(text):
    """'1060.250' (microseconds) -> 1060250 ns."""
    d = Decimal(text) * 1000
    assert d == d.to_integral_value(), text
    return int(d)


A100 = OrderedDict([
    ("id", 0), ("name", "NVIDIA A100-SXM4-80GB"), ("totalGlobalMem", 85045870592),
    ("computeMajor", 8), ("computeMinor", 0), ("maxThreadsPerBlock", 1024),
    ("maxThreadsPerMultiprocessor", 2048), ("regsPerBlock", 65536), ("regsPerMultiprocessor", 65536),
    ("warpSize", 32), ("sharedMemPerBlock", 49152), ("sharedMemPerMultiprocessor", 167936),
    ("numSms", 108), ("sharedMemPerBlockOptin", 166912)])


# ----------------------------------------------------------------------------------------------
# Fixture 2/3: kineto_gpu_2x.json

BASE_NS = 1722470400000000000  # 2024-08-01T00:00:00Z
PID, MAIN, BWD = 2345, 2345, 2401
F32 = "float"
SGEMM1 = "ampere_sgemm_128x64_nn"
SGEMM2 = "ampere_sgemm_64x64_nn"
SOFTMAX_FWD = ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false, false>"
               "(float*, float const*, int, int, int, bool const*, int, bool)")
SOFTMAX_BWD = ("void (anonymous namespace)::softmax_warp_backward<float, float, float, 7, false, false>"
               "(float*, float const*, float const*, int, int, int, bool const*)")
NCCL_AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
ADDR = 139872143704064  # 0x7f36_9e00_0000-ish, a device pointer


def build_kineto_gpu_2x():
    tl = Timeline(PID, base_allocated=1048576, base_reserved=2097152)
    q, kt, s = [2, 8, 128, 64], [2, 8, 64, 128], [2, 8, 128, 128]
    st = lambda shape: [int(x) for x in _strides(shape)]
    # The profiler step on the main thread, and what it holds, in time order (External ids follow).
    step = tl.op("ProfilerStep#3", t("1000.000"), t("600.000"), MAIN, cat="user_annotation")
    e_empty = tl.op("aten::empty", t("1001.000"), t("2.500"), MAIN, dims=[[], [], [], [], [], []],
                    strides=[[], [], [], [], [], []], types=["ScalarList", "Scalar", "", "", "Scalar", ""],
                    concrete=["[64]", "6", "", "", "False", ""])
    tl.memory(t("1002.000"), 256, MAIN, 94251462340608, device_type=0, device_id=-1)
    e_to = tl.op("aten::to", t("1005.000"), t("40.000"), MAIN, dims=[q, [], [], [], [], []],
                 strides=[st(q), [], [], [], [], []], types=[F32, "", "Scalar", "Scalar", "Scalar", ""],
                 concrete=["", "", "6", "False", "False", ""])
    e_tocopy = tl.op("aten::_to_copy", t("1006.500"), t("38.000"), MAIN, dims=[q, [], [], [], [], [], []],
                     types=[F32, "Scalar", "", "Scalar", "", "Scalar", ""])
    e_es = tl.op("aten::empty_strided", t("1008.000"), t("6.250"), MAIN, dims=[[], [], [], [], [], []],
                 types=["ScalarList", "ScalarList", "Scalar", "", "Scalar", ""])
    tl.memory(t("1012.000"), 524288, MAIN, ADDR)
    e_copy = tl.op("aten::copy_", t("1016.000"), t("27.500"), MAIN, dims=[q, q, []],
                   strides=[st(q), st(q), []], types=[F32, F32, "Scalar"], concrete=["", "", "False"])
    c_memcpy, at = tl.launch("cudaMemcpyAsync", t("1020.000"), t("12.125"), MAIN, e_copy, 41)
    tl.flow_s(c_memcpy, at)
    c_sync, _ = tl.launch("cudaStreamSynchronize", t("1033.000"), t("9.500"), MAIN, e_copy, 131)
    tl.copy("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", t("1028.000"), t("3.456"), 7, e_copy, c_memcpy,
            524288)
    tl.gpu_raw(t("1033.500"), OrderedDict([
        ("ph", "X"), ("cat", "cuda_sync"), ("name", "Stream Sync"), ("pid", 0), ("tid", 7),
        ("ts", us(t("1033.500"))), ("dur", us(t("8.000"))),
        ("args", OrderedDict([("cuda_sync_kind", "Stream Sync"), ("device", 0), ("context", 1),
                              ("stream", 7), ("correlation", c_sync)]))]))

    e_attn = tl.op("attn_fwd", t("1048.000"), t("160.000"), MAIN, cat="user_annotation")
    e_mm1 = tl.op("aten::matmul", t("1050.000"), t("60.000"), MAIN, seq=10, dims=[q, kt],
                  strides=[st(q), [65536, 8192, 1, 64]], types=[F32, F32], concrete=["", ""])
    e_bmm1 = tl.op("aten::bmm", t("1060.000"), t("45.000"), MAIN, seq=11, dims=[[16, 128, 64], [16, 64, 128]],
                   strides=[[8192, 64, 1], [8192, 1, 64]], types=[F32, F32], concrete=["", ""])
    tl.memory(t("1062.000"), 1048576, MAIN, ADDR + 524288)
    c, at = tl.launch("cudaLaunchKernel", t("1070.000"), t("20.000"), MAIN, e_bmm1, 211)
    tl.flow_s(c, at)
    tl.kernel(SGEMM1, t("1095.000"), t("41.472"), 7, e_bmm1, c, grid=(1, 2, 16), block=(128, 1, 1), regs=122,
              smem=32768, occupancy=6)
    e_sm = tl.op("aten::softmax", t("1115.000"), t("35.000"), MAIN, seq=12, dims=[s, [], []],
                 strides=[st(s), [], []], types=[F32, "Scalar", ""], concrete=["", "-1", ""])
    e_sm2 = tl.op("aten::_softmax", t("1120.000"), t("28.000"), MAIN, seq=13, dims=[s, [], []],
                  strides=[st(s), [], []], types=[F32, "Scalar", "Scalar"], concrete=["", "-1", "False"])
    tl.memory(t("1121.000"), 1048576, MAIN, ADDR + 1572864)
    c, at = tl.launch("cudaLaunchKernel", t("1125.000"), t("15.000"), MAIN, e_sm2, 211)
    tl.flow_s(c, at)
    tl.kernel(SOFTMAX_FWD, t("1140.000"), t("8.224"), 7, e_sm2, c, grid=(512, 1, 1), block=(32, 4, 1), regs=40,
              occupancy=94)
    tl.memory(t("1152.000"), -1048576, MAIN, ADDR + 524288)  # the scores, freed between two ops
    e_mm2 = tl.op("aten::matmul", t("1155.000"), t("50.000"), MAIN, seq=14, dims=[s, q],
                  strides=[st(s), st(q)], types=[F32, F32], concrete=["", ""])
    e_bmm2 = tl.op("aten::bmm", t("1160.000"), t("40.000"), MAIN, seq=15, dims=[[16, 128, 128], [16, 128, 64]],
                   strides=[[16384, 128, 1], [8192, 64, 1]], types=[F32, F32], concrete=["", ""])
    tl.memory(t("1163.000"), 524288, MAIN, ADDR + 2621440)
    c, at = tl.launch("cudaLaunchKernel", t("1170.000"), t("18.000"), MAIN, e_bmm2, 211)
    tl.flow_s(c, at)
    tl.kernel(SGEMM2, t("1190.000"), t("20.736"), 7, e_bmm2, c, grid=(2, 2, 16), block=(64, 1, 1), regs=126,
              smem=8192, occupancy=12)
    tl.gpu_raw(t("1095.000"), OrderedDict([
        ("ph", "X"), ("cat", "gpu_user_annotation"), ("name", "attn_fwd"), ("pid", 0), ("tid", 7),
        ("ts", us(t("1095.000"))), ("dur", us(t("115.736"))), ("args", OrderedDict([("External id", e_attn)]))]))

    e_zero = tl.op("aten::zero_", t("1210.000"), t("20.000"), MAIN, dims=[[2, 8, 128, 64]], types=[F32],
                   concrete=[""])
    e_fill = tl.op("aten::fill_", t("1212.000"), t("16.000"), MAIN, dims=[[2, 8, 128, 64], []],
                   types=[F32, "Scalar"], concrete=["", "0"])
    c, at = tl.launch("cudaMemsetAsync", t("1215.000"), t("10.000"), MAIN, e_fill, 51)
    tl.flow_s(c, at)
    tl.copy("gpu_memset", "Memset (Device)", t("1226.000"), t("1.280"), 7, e_fill, c, 524288)

    e_ar = tl.op("c10d::allreduce_", t("1240.000"), t("60.000"), MAIN, dims=[[[4096]], [], [], [], []],
                 types=["TensorList", "ScriptObject", "ScriptObject", "", "Int"])
    e_rpc = tl.op("record_param_comms", t("1245.000"), t("50.000"), MAIN, dims=[[[4096]], [], [], [], [], []],
                  extra=OrderedDict([("Collective name", "allreduce"), ("dtype", "Float"), ("In msg nelems", 4096),
                                     ("Out msg nelems", 4096), ("In split size", "[]"), ("Out split size", "[]"),
                                     ("Global rank start", 0), ("Global rank stride", 1), ("Group size", 2),
                                     ("Process Group Name", "0"), ("Process Group Description", "default_pg"),
                                     ("Process Group Ranks", "[0, 1]"), ("Rank", 0)]))
    c, at = tl.launch("cudaLaunchKernelExC", t("1260.000"), t("20.000"), MAIN, e_rpc, 430)
    tl.flow_s(c, at)
    tl.kernel(NCCL_AR, t("1285.000"), t("85.120"), 20, e_rpc, c, grid=(2, 1, 1), block=(640, 1, 1), regs=96,
              occupancy=18)

    # Backward, on the autograd engine's device thread, while the main thread waits.
    e_eval = tl.op("autograd::engine::evaluate_function: SoftmaxBackward0", t("1400.000"), t("80.000"), BWD)
    e_sbw = tl.op("SoftmaxBackward0", t("1402.000"), t("70.000"), BWD, seq=12, fwd=1, dims=[s], types=[F32],
                  concrete=[""])
    e_sbd = tl.op("aten::_softmax_backward_data", t("1405.000"), t("60.000"), BWD, dims=[s, s, [], []],
                  strides=[st(s), st(s), [], []], types=[F32, F32, "Scalar", "Scalar"],
                  concrete=["", "", "-1", "6"])
    tl.memory(t("1412.000"), 1048576, BWD, ADDR + 524288)
    c, at = tl.launch("cudaLaunchKernel", t("1420.000"), t("14.000"), BWD, e_sbd, 211)
    tl.flow_s(c, at)
    tl.kernel(SOFTMAX_BWD, t("1435.000"), t("9.600"), 7, e_sbd, c, grid=(512, 1, 1), block=(32, 4, 1), regs=48,
              occupancy=92)
    tl.memory(t("1475.000"), -1048576, BWD, ADDR + 1572864)
    tl.memory(t("1590.000"), -256, MAIN, 94251462340608, device_type=0, device_id=-1)
    tl.memory(t("1620.000"), -524288, MAIN, ADDR + 2621440)  # after the step: no op holds it
    # An "overhead" activity (CUPTI instrumentation), outside every op.
    tl.cpu.append((t("950.000"), OrderedDict([("ph", "X"), ("cat", "overhead"), ("name", "Instrumentation"),
                                              ("pid", PID), ("tid", MAIN), ("ts", us(t("950.000"))),
                                              ("dur", us(t("12.500"))), ("args", {})])))
    # Forward -> backward flow (Sequence number 12), and a counter.
    tl.tail.append(OrderedDict([("ph", "s"), ("id", 12), ("pid", PID), ("tid", MAIN), ("ts", us(t("1115.000"))),
                                ("cat", "fwdbwd"), ("name", "fwdbwd")]))
    tl.tail.append(OrderedDict([("ph", "f"), ("id", 12), ("pid", PID), ("tid", BWD), ("ts", us(t("1402.000"))),
                                ("cat", "fwdbwd"), ("name", "fwdbwd"), ("bp", "e")]))
    tl.tail.append(OrderedDict([("ph", "C"), ("name", "CUDA memory allocated (bytes)"), ("pid", PID),
                                ("ts", us(t("1600.000"))), ("args", {"GPU 0": 2621440})]))
    tl.tail += kineto_tail(tl.pid, tl.gpu_pid, t("890.000"), t("1700.000"), [(MAIN, "python3"), (BWD, "pt_autograd_0")], [7, 20])
    header = OrderedDict([
        ("schemaVersion", 1), ("deviceProperties", [A100]), ("cupti_version", 18),
        ("cuda_runtime_version", 12010), ("cuda_driver_version", 12020),
        ("distributedInfo", OrderedDict([("backend", "nccl"), ("rank", 0), ("world_size", 2), ("pg_count", 1),
                                         ("pg_config", [OrderedDict([("pg_name", "0"), ("pg_desc", "default_pg"),
                                                                     ("backend_config", "cuda:nccl"),
                                                                     ("pg_size", 2), ("ranks", [0, 1])])]),
                                         ("nccl_version", "2.20.5")])),
        ("record_shapes", 1)])
    trailer = OrderedDict([("traceName", "/tmp/traces/gpu-node-1_2345.1722470400000.pt.trace.json"),
                           ("displayTimeUnit", "ms"), ("baseTimeNanoseconds", BASE_NS)])
    info = {"peak_allocated": tl.peak_allocated}
    return kineto_document(header, tl.events(), trailer), info


def _strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return list(reversed(out))


# ----------------------------------------------------------------------------------------------
# Fixture 4: kineto_2021.json (torch 1.8/1.9 Kineto: absolute integer us, "stream 7", "external id")

T2021 = 1617712384043000  # absolute microseconds
PID2021 = 19864


def build_kineto_2021():
    ev = []
    tid = str(PID2021)
    ext = [0]

    def op(name, start, dur, dims=None, types=None):
        ext[0] += 1
        args = OrderedDict([("Device", PID2021), ("External id", ext[0]), ("Trace name", "PyTorch Profiler"),
                            ("Trace iteration", 0)])
        if dims is not None:
            args["Input dims"] = dims
            args["Input type"] = types
        ev.append((start, OrderedDict([("ph", "X"), ("cat", "Operator"), ("name", name), ("pid", PID2021),
                                       ("tid", tid), ("ts", T2021 + start), ("dur", dur), ("args", args)])))
        return ext[0]

    corr = [310]

    def runtime(name, start, dur, e, cbid, flow=True):
        corr[0] += 1
        ev.append((start, OrderedDict([("ph", "X"), ("cat", "Runtime"), ("name", name), ("pid", PID2021),
                                       ("tid", tid), ("ts", T2021 + start), ("dur", dur),
                                       ("args", OrderedDict([("cbid", cbid), ("correlation", corr[0]),
                                                             ("external id", e),
                                                             ("external ts", T2021 + start - 2)]))])))
        if flow:
            ev.append((start, OrderedDict([("ph", "s"), ("id", corr[0]), ("pid", PID2021), ("tid", tid),
                                           ("ts", T2021 + start), ("cat", "async"), ("name", "launch")])))
        return corr[0]

    gpu = []

    def device(cat, name, start, dur, e, c, extra):
        args = OrderedDict([("queued", 0), ("device", 0), ("context", 1), ("stream", 7), ("correlation", c),
                            ("external id", e)])
        args.update(extra)
        gpu.append((start, OrderedDict([("ph", "X"), ("cat", cat), ("name", name), ("pid", 0), ("tid", "stream 7"),
                                        ("ts", T2021 + start), ("dur", dur), ("args", args)])))
        gpu.append((start, OrderedDict([("ph", "f"), ("id", c), ("pid", 0), ("tid", "stream 7"),
                                        ("ts", T2021 + start), ("cat", "async"), ("name", "launch"), ("bp", "e")])))

    def kargs(grid, block, regs, smem, occ):
        blocks = grid[0] * grid[1] * grid[2]
        warps = blocks * -(-(block[0] * block[1] * block[2]) // 32)
        return OrderedDict([("registers per thread", regs), ("shared memory", smem),
                            ("blocks per SM", Raw(("%.6f" % (blocks / 80)).rstrip("0").rstrip("."))),
                            ("warps per SM", Raw(("%.6f" % (warps / 80)).rstrip("0").rstrip("."))),
                            ("grid", list(grid)), ("block", list(block)), ("theoretical occupancy %", occ)])

    def mem(ts, nbytes):
        ev.append((ts, OrderedDict([("ph", "i"), ("s", "t"), ("name", "[memory]"), ("pid", PID2021), ("tid", tid),
                                    ("ts", T2021 + ts),
                                    ("args", OrderedDict([("Device Type", 1), ("Device Id", 0), ("Bytes", nbytes)]))])))

    op("ProfilerStep#5", 100, 400)
    op("aten::matmul", 110, 60, [[4, 128, 64], [4, 64, 128]], ["float", "float"])
    e = op("aten::bmm", 118, 48, [[4, 128, 64], [4, 64, 128]], ["float", "float"])
    mem(120, 262144)
    c = runtime("cudaLaunchKernel", 130, 12, e, 211)
    device("Kernel", "volta_sgemm_128x64_nn", 150, 35, e, c, kargs((1, 2, 4), (128, 1, 1), 126, 16384, 25))
    op("aten::softmax", 180, 30, [[4, 128, 128], [], []], ["float", "Scalar", ""])
    e = op("aten::_softmax", 184, 24, [[4, 128, 128], [], []], ["float", "Scalar", "Scalar"])
    mem(185, 262144)
    c = runtime("cudaLaunchKernel", 190, 10, e, 211)
    device("Kernel", "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false>"
                     "(float*, float const*, int, int, int)", 200, 6, e, c,
           kargs((128, 1, 1), (32, 4, 1), 40, 0, 100))
    e = op("aten::copy_", 220, 80, [[4, 128, 128], [4, 128, 128], []], ["float", "float", "Scalar"])
    c = runtime("cudaMemcpyAsync", 225, 15, e, 41)
    device("Memcpy", "Memcpy DtoH (Device -> Pageable)", 240, 20, e, c,
           OrderedDict([("bytes", 262144), ("memory bandwidth (GB/s)", Raw("13.1072"))]))
    runtime("cudaStreamSynchronize", 242, 50, e, 131, flow=False)
    op("aten::zero_", 310, 25, [[4, 128, 128]], ["float"])
    e = op("aten::fill_", 312, 20, [[4, 128, 128], []], ["float", "Scalar"])
    c = runtime("cudaMemsetAsync", 315, 9, e, 51)
    device("Memset", "Memset (Device)", 326, 2, e, c,
           OrderedDict([("bytes", 262144), ("memory bandwidth (GB/s)", Raw("131.072"))]))
    mem(350, -262144)
    events = [x for _, x in sorted(ev, key=lambda p: p[0])] + [x for _, x in sorted(gpu, key=lambda p: p[0])]
    ts = T2021 + 90
    events += [
        metadata(ts, PID2021, 0, "process_name", {"name": "python"}),
        metadata(ts, PID2021, 0, "process_labels", {"labels": "CPU"}),
        metadata(ts, 0, 0, "process_name", {"name": "python"}),
        metadata(ts, 0, 0, "process_labels", {"labels": "GPU 0"}),
        metadata(ts, 0, "stream 7", "thread_name", {"name": "stream 7"}),
        metadata(ts, PID2021, tid, "thread_name", {"name": "thread %s (python)" % tid}),
        OrderedDict([("ph", "X"), ("cat", "Trace"), ("ts", ts), ("dur", 420), ("pid", "Traces"),
                     ("tid", "PyTorch Profiler"), ("name", "PyTorch Profiler (0)"), ("args", {"Op count": 0})]),
        OrderedDict([("name", "Iteration Start: PyTorch Profiler"), ("ph", "i"), ("s", "g"), ("pid", "Traces"),
                     ("tid", "Trace PyTorch Profiler"), ("ts", ts)]),
    ]
    text = "{\n  \"schemaVersion\": 1,\n\n  \"traceEvents\": [\n"
    text += ",\n".join(kineto_event_text(e) for e in events)
    text += "\n]}\n"
    return text.encode("ascii")


# ----------------------------------------------------------------------------------------------
# Fixture 5: rocm_kernels.json

MI250X = OrderedDict([
    ("id", 2), ("name", "AMD Instinct MI250X"), ("totalGlobalMem", 68702699520), ("computeMajor", 9),
    ("computeMinor", 0), ("maxThreadsPerBlock", 1024), ("maxThreadsPerMultiprocessor", 2048),
    ("regsPerBlock", 65536), ("regsPerMultiprocessor", 65536), ("warpSize", 64), ("sharedMemPerBlock", 65536),
    ("sharedMemPerMultiprocessor", 65536), ("numSms", 110), ("sharedMemPerBlockOptin", 0)])
TENSILE = ("Cijk_Alik_Bljk_SB_MT64x64x16_MI32x32x2x1_SN_1LDSB0_GRVW4_GSU1_ISA90a_K1_LBSPP128_LPB8_"
           "MIAV1_PGR1_PLR1_SU32_SUS256_SVW4_TT4_4_TLDS1_VW4_WG16_16_1_WGM8")
SOFTMAX_ROCM = ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false, false>"
                "(float*, float const*, int, int, int, bool const*, int, bool)")


def build_rocm():
    tl = Timeline(4321, gpu_pid=2, device=2, num_sms=110, warp=64, base_allocated=0, base_reserved=0, corr0=500)
    main = 4321
    step = tl.op("ProfilerStep#0", t("1000.000"), t("300.000"), main, cat="user_annotation")
    e = tl.op("aten::copy_", t("1010.000"), t("40.000"), main, dims=[[16, 128, 64], [16, 128, 64], []],
              types=[F32, F32, "Scalar"])
    c, at = tl.launch("hipMemcpyWithStream", t("1015.000"), t("30.000"), main, e, 0)
    tl.flow_s(c, at)
    tl.gpu_raw(t("1020.000"), OrderedDict([
        ("ph", "X"), ("cat", "gpu_memcpy"), ("name", "CopyHostToDevice"), ("pid", 2), ("tid", 0),
        ("ts", us(t("1020.000"))), ("dur", us(t("12.000"))),
        ("args", OrderedDict([("External id", e), ("device", 2), ("stream", 0), ("correlation", c),
                              ("bytes", 524288)]))]))
    e = tl.op("aten::bmm", t("1060.000"), t("40.000"), main, dims=[[16, 128, 64], [16, 64, 128]], types=[F32, F32])
    tl.memory(t("1061.000"), 1048576, main, ADDR)
    c, at = tl.launch("hipExtModuleLaunchKernel", t("1070.000"), t("20.000"), main, e, 0)
    tl.flow_s(c, at)
    tl.kernel(TENSILE, t("1085.000"), t("30.500"), 0, e, c, queued=False, context=False)
    e = tl.op("aten::softmax", t("1110.000"), t("30.000"), main, dims=[[2, 8, 128, 128], [], []],
              types=[F32, "Scalar", ""])
    e2 = tl.op("aten::_softmax", t("1114.000"), t("24.000"), main, dims=[[2, 8, 128, 128], [], []],
               types=[F32, "Scalar", "Scalar"])
    tl.memory(t("1115.000"), 1048576, main, ADDR + 1048576)
    c, at = tl.launch("hipLaunchKernel", t("1120.000"), t("12.000"), main, e2, 0)
    tl.flow_s(c, at)
    tl.kernel(SOFTMAX_ROCM, t("1135.000"), t("7.250"), 0, e2, c, grid=(1024, 1, 1), block=(128, 1, 1),
              queued=False, context=False)
    e = tl.op("aten::bmm", t("1150.000"), t("35.000"), main, dims=[[16, 128, 128], [16, 128, 64]], types=[F32, F32])
    tl.memory(t("1151.000"), 524288, main, ADDR + 2097152)
    c, at = tl.launch("hipExtModuleLaunchKernel", t("1160.000"), t("15.000"), main, e, 0)
    tl.flow_s(c, at)
    tl.kernel(TENSILE, t("1180.000"), t("18.750"), 0, e, c, queued=False, context=False)
    tl.memory(t("1250.000"), -1048576, main, ADDR)
    # ROCm runtime calls carry no "cbid".
    for ts, e in tl.cpu:
        if e.get("cat") == "cuda_runtime":
            del e["args"]["cbid"]
    tl.tail += kineto_tail(tl.pid, tl.gpu_pid, t("990.000"), t("1400.000"), [(main, "python")], [0], process="python",
                           gpu_label="GPU 2", gpu_sort=5000000)
    header = OrderedDict([("schemaVersion", 1), ("deviceProperties", [MI250X]), ("record_shapes", 1)])
    trailer = OrderedDict([("traceName", "/tmp/traces/mi250x_4321.pt.trace.json"), ("displayTimeUnit", "ms"),
                           ("baseTimeNanoseconds", BASE_NS + 86400000000000)])
    return kineto_document(header, tl.events(), trailer), {"peak_allocated": tl.peak_allocated}


# ----------------------------------------------------------------------------------------------
# Fixture 6: legacy_array.json (torch 1.4-1.8 autograd profiler, use_cuda=True)

LEGACY_OPS = [
    # name, cpu start, cpu dur, tid, cuda start, cuda dur (all microseconds as the exporter printed them)
    ("aten::matmul", "10.25", "60.5", 1, "100.0", "48.0"),
    ("aten::bmm", "15.125", "50.25", 1, "101.0", "45.5"),
    ("aten::softmax", "75.0", "30.0", 1, "150.0", "9.0"),
    ("aten::_softmax", "78.5", "24.0", 1, "150.5", "8.25"),
    ("aten::matmul", "110.0", "50.0", 1, "162.0", "30.0"),
    ("aten::bmm", "114.0", "42.0", 1, "162.5", "29.0"),
    ("aten::sum", "165.0", "20.300999999999988", 1, "195.0", "4.0"),
    ("SumBackward", "200.0", "12.0", 2, "210.0", "3.0"),
    ("aten::expand", "203.0", "5.0", 2, "210.5", "0.5"),
    ("BmmBackward", "215.0", "40.0", 2, "215.0", "35.0"),
    ("aten::bmm", "218.0", "15.0", 2, "216.0", "16.0"),
    ("aten::bmm", "236.0", "16.0", 2, "233.0", "16.5"),
]


def build_legacy():
    """The exporter's own format strings (profiler.py EventList.export_chrome_trace, 1.4-1.8)."""
    f = io.StringIO()
    f.write("[")
    next_id = 0
    for name, start, dur, tid, cstart, cdur in sorted(LEGACY_OPS, key=lambda o: Decimal(o[1])):
        f.write('{"name": "%s", "ph": "X", "ts": %s, "dur": %s, "tid": %s, "pid": "CPU functions", "args": {}}, '
                % (name, start, dur, tid))
        f.write('{"name": "%s", "ph": "s", "ts": %s, "tid": %s, "pid": "CPU functions", "id": %s, '
                '"cat": "cpu_to_cuda", "args": {}}, ' % (name, start, tid, next_id))
        f.write('{"name": "%s", "ph": "f", "ts": %s, "tid": %s, "pid": "CUDA functions", "id": %s, '
                '"cat": "cpu_to_cuda", "args": {}}, ' % (name, cstart, 0, next_id))
        f.write('{"name": "%s", "ph": "X", "ts": %s, "dur": %s, "tid": %s, "pid": "CUDA functions", "args": {}}, '
                % (name, cstart, cdur, 0))
        next_id += 1
    text = f.getvalue()[:-2] + "]"
    return text.encode("ascii")


# ----------------------------------------------------------------------------------------------
# Fixture 7: multi_rank/

RANKS = {
    # rank: (pid, base ns, ts offset us (str), nccl kernel start (relative us), nccl dur, mm kernel dur)
    0: (3001, BASE_NS, "5000.000", "5085.000", "120.500", "12.288"),
    1: (3002, BASE_NS + 2000000, "3004.000", "3110.250", "95.250", "12.416"),
}


def build_rank(rank):
    pid, base, off, nccl_start, nccl_dur, mm_dur = RANKS[rank]
    o = t(off)
    tl = Timeline(pid, base_allocated=33554432, base_reserved=41943040, corr0=200)
    tl.op("ProfilerStep#1", o, t("200.000"), pid, cat="user_annotation")
    e = tl.op("aten::mm", o + t("10.000"), t("30.000"), pid, seq=3, dims=[[64, 64], [64, 64]],
              strides=[[64, 1], [64, 1]], types=[F32, F32], concrete=["", ""])
    tl.memory(o + t("12.000"), 16384, pid, ADDR + 4096 * rank)
    c, at = tl.launch("cudaLaunchKernel", o + t("20.000"), t("8.000"), pid, e, 211)
    tl.flow_s(c, at)
    tl.kernel(SGEMM2, o + t("35.000"), t(mm_dur), 7, e, c, grid=(1, 1, 1), block=(64, 1, 1), regs=126,
              smem=8192, occupancy=3)
    tl.op("c10d::allreduce_", o + t("50.000"), t("60.000"), pid, dims=[[[4096]], [], [], [], []],
          types=["TensorList", "ScriptObject", "ScriptObject", "", "Int"])
    e = tl.op("record_param_comms", o + t("55.000"), t("50.000"), pid, dims=[[[4096]], [], [], [], [], []],
              extra=OrderedDict([("Collective name", "allreduce"), ("dtype", "Float"), ("In msg nelems", 4096),
                                 ("Out msg nelems", 4096), ("In split size", "[]"), ("Out split size", "[]"),
                                 ("Global rank start", 0), ("Global rank stride", 1), ("Group size", 2),
                                 ("Process Group Name", "0"), ("Process Group Description", "default_pg"),
                                 ("Process Group Ranks", "[0, 1]"), ("Rank", rank)]))
    c, at = tl.launch("cuLaunchKernelEx", o + t("70.000"), t("10.000"), pid, e, 652, cat="cuda_driver")
    tl.flow_s(c, at)
    tl.kernel(NCCL_AR, t(nccl_start), t(nccl_dur), 20, e, c, grid=(2, 1, 1), block=(640, 1, 1), regs=96,
              occupancy=18)
    tl.tail += kineto_tail(tl.pid, tl.gpu_pid, o - t("10.000"), o + t("300.000"), [(pid, "python3")], [7, 20])
    header = OrderedDict([
        ("schemaVersion", 1), ("deviceProperties", [OrderedDict(A100, id=rank)]),
        ("distributedInfo", OrderedDict([("backend", "nccl"), ("rank", rank), ("world_size", 2),
                                         ("pg_count", 1), ("nccl_version", "2.20.5")])),
        ("record_shapes", 1)])
    trailer = OrderedDict([("traceName", "/tmp/traces/rank%d.pt.trace.json" % rank), ("displayTimeUnit", "ms"),
                           ("baseTimeNanoseconds", base)])
    tl.gpu_pid = rank  # GPU events carry pid = the device index: rank r uses cuda:r
    return kineto_document(header, _retarget_gpu(tl, rank), trailer)


def _retarget_gpu(tl, device):
    out = []
    for e in tl.events():
        e = OrderedDict(e)
        if e.get("cat") in ("kernel", "ac2g") and e.get("pid") == 0 and e.get("ph") in ("X", "f"):
            e["pid"] = device
            if e.get("ph") == "X":
                e["args"] = OrderedDict(e["args"])
                e["args"]["device"] = device
        if e.get("ph") == "M" and e.get("pid") == 0:
            e["pid"] = device
            if e["name"] == "process_labels":
                e["args"] = {"labels": "GPU %d" % device}
        out.append(e)
    return out


# ----------------------------------------------------------------------------------------------
# Reading back: PyTorch's key_averages() on a parsed file.

CPU_OP_CATS = {"cpu_op", "user_annotation", "Operator"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Kernel", "Memcpy", "Memset"}
KERNEL_CATS = {"kernel", "Kernel"}
FILTERED = {"[memory]", "[OutOfMemory]", "profiler::_record_function_enter", "profiler::_record_function_enter_new",
            "profiler::_record_function_exit", "aten::is_leaf", "aten::output_nr", "aten::_version"}


def to_ns(v):
    return int((Decimal(v) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def ext_id(args):
    v = args.get("External id", args.get("external id", 0))
    return v if isinstance(v, int) else 0


def load_events(raw):
    doc = json.loads(raw, parse_float=Decimal)
    if isinstance(doc, list):
        return doc, doc
    return doc, doc["traceEvents"]


def function_events(events, legacy=False, link_annotations=True):
    """The FunctionEvent list _parse_kineto_results builds (legacy=True: the 1.x parse)."""
    fes, mems = [], []
    for i, e in enumerate(events):
        ph, name, args = e.get("ph"), e.get("name"), e.get("args") or {}
        if ph == "i" and name == "[memory]":
            mems.append({"ts": to_ns(e["ts"]), "bytes": args["Bytes"], "dev": args["Device Type"],
                         "thread": e["tid"], "used": False})
            continue
        if ph != "X" or name in FILTERED:
            continue
        cat = e.get("cat")
        fe = {"name": "ProfilerStep*" if name.startswith("ProfilerStep") else name, "start": to_ns(e["ts"]),
              "thread": e["tid"], "kernels": [], "children": [], "parent": None, "cpu_mem": 0, "dev_mem": 0,
              "legacy": legacy, "cat": cat}
        fe["end"] = fe["start"] + to_ns(e["dur"])
        if legacy:
            if e.get("pid") != "CPU functions":
                continue
            fe.update(dev="CPU", id=i, linked=0)
        elif cat in CPU_OP_CATS:
            fe.update(dev="CPU", id=ext_id(args), linked=0)
        elif cat in RUNTIME_CATS:
            fe.update(dev="CPU", id=args.get("correlation", 0), linked=ext_id(args))
        elif cat in DEVICE_CATS:
            linked = ext_id(args) if (link_annotations or cat != "gpu_user_annotation") else 0
            fe.update(dev="CUDA", id=args.get("correlation", 0), linked=linked)
        else:
            continue
        fes.append(fe)
    if legacy:
        _legacy_kernels(events, fes)
    mems.sort(key=lambda m: m["ts"])
    for fe in fes:
        if fe["dev"] != "CPU":
            continue
        for m in mems:
            if fe["start"] <= m["ts"] <= fe["end"]:
                fe["cpu_mem"] += m["bytes"] if m["dev"] == 0 else 0
                fe["dev_mem"] += m["bytes"] if m["dev"] == 1 else 0
                m["used"] = True
    corr = {}
    for fe in fes:
        if fe["linked"] > 0:
            corr.setdefault(fe["linked"], []).append(fe)
    for fe in fes:
        if fe["dev"] == "CPU" and fe["id"] in corr and not legacy:
            for other in corr[fe["id"]]:
                if other["dev"] == "CUDA":
                    fe["kernels"].append(other["end"] - other["start"])
                else:
                    other["thread"] = fe["thread"]
    for m in mems:
        if not m["used"]:
            fes.append({"name": "[memory]", "start": m["ts"], "end": m["ts"], "thread": m["thread"], "kernels": [],
                        "children": [], "parent": None, "cpu_mem": m["bytes"] if m["dev"] == 0 else 0,
                        "dev_mem": m["bytes"] if m["dev"] == 1 else 0, "legacy": legacy, "dev": "CPU", "id": 0,
                        "linked": 0, "cat": None})
    fes.sort(key=lambda f: (f["start"], -f["end"]))
    # _populate_cpu_children
    threads = OrderedDict()
    for fe in fes:
        if fe["dev"] == "CPU":
            threads.setdefault(str(fe["thread"]), []).append(fe)
    for evs in threads.values():
        open_ = []
        for fe in evs:
            while open_:
                p = open_[-1]
                if fe["start"] >= p["end"] or fe["end"] > p["end"]:
                    open_.pop()
                else:
                    p["children"].append(fe)
                    fe["parent"] = p
                    break
            open_.append(fe)
    # _remove_dup_nodes
    while True:
        gone = [fe for fe in fes if fe["parent"] is not None and fe["parent"]["name"] == fe["name"]
                and len(fe["parent"]["children"]) == 1]
        if not gone:
            break
        for fe in gone:
            p = fe["parent"]
            p["children"] = fe["children"]
            p["kernels"] = fe["kernels"]
            for ch in fe["children"]:
                ch["parent"] = p
        fes = [fe for fe in fes if all(fe is not g for g in gone)]
    return fes


def _legacy_kernels(events, fes):
    """1.x: each CPU op's kernel is the "CUDA functions" X its "s"/"f" flow pair points at."""
    starts, finishes = {}, {}
    for e in events:
        if e.get("ph") == "s":
            starts[e["id"]] = (e["tid"], to_ns(e["ts"]), e["name"])
        elif e.get("ph") == "f":
            finishes[e["id"]] = (e["tid"], to_ns(e["ts"]), e["name"])
    cuda = {}
    for e in events:
        if e.get("ph") == "X" and e.get("pid") == "CUDA functions":
            cuda[(e["tid"], to_ns(e["ts"]), e["name"])] = to_ns(e["dur"])
    by_key = {}
    for fe in fes:
        by_key.setdefault((fe["thread"], fe["start"], fe["name"]), []).append(fe)
    for fid, key in starts.items():
        fe = next(f for f in by_key[key] if not f["kernels"])  # the exporter writes one record per op
        fe["kernels"].append(cuda[finishes[fid]])


def device_total(fe):
    if fe["dev"] != "CPU":
        return fe["end"] - fe["start"]
    own = sum(fe["kernels"])
    return own if fe["legacy"] else own + sum(device_total(c) for c in fe["children"])


def key_averages(fes):
    rows = OrderedDict()
    for fe in fes:
        key = (fe["name"], fe["dev"])
        r = rows.setdefault(key, {"name": fe["name"], "device": fe["dev"], "calls": 0, "self_cpu": 0, "cpu_total": 0,
                                  "self_device": 0, "device_total": 0, "cpu_mem": 0, "self_cpu_mem": 0,
                                  "device_mem": 0, "self_device_mem": 0})
        cpu = fe["dev"] == "CPU"
        total = fe["end"] - fe["start"] if cpu else 0
        dtot = device_total(fe)
        r["calls"] += 1
        r["cpu_total"] += total
        r["self_cpu"] += total - sum(c["end"] - c["start"] for c in fe["children"]) if cpu else 0
        r["device_total"] += dtot
        r["self_device"] += dtot - sum(device_total(c) for c in fe["children"]) if cpu else dtot
        r["cpu_mem"] += fe["cpu_mem"]
        r["device_mem"] += fe["dev_mem"]
        r["self_cpu_mem"] += fe["cpu_mem"] - sum(c["cpu_mem"] for c in fe["children"]) if cpu else 0
        r["self_device_mem"] += fe["dev_mem"] - sum(c["dev_mem"] for c in fe["children"]) if cpu else 0
    return list(rows.values())


def kernel_table(events):
    rows = OrderedDict()
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in KERNEL_CATS:
            a = e["args"]
            r = rows.setdefault(e["name"], {"name": e["name"], "calls": 0, "total": 0, "configs": []})
            r["calls"] += 1
            r["total"] += to_ns(e["dur"])
            cfg = (tuple(a["grid"]) if "grid" in a else None, tuple(a["block"]) if "block" in a else None,
                   a.get("registers per thread"), a.get("shared memory"),
                   a.get("est. achieved occupancy %", a.get("theoretical occupancy %")))
            if cfg not in r["configs"]:
                r["configs"].append(cfg)
    return list(rows.values())


def transfer_table(events):
    rows = []
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("gpu_memcpy", "gpu_memset", "Memcpy", "Memset"):
            rows.append({"cat": e["cat"], "name": e["name"], "dur": to_ns(e["dur"]), "bytes": e["args"].get("bytes"),
                         "stream": e["args"].get("stream"), "ext": ext_id(e["args"])})
    return rows


def category_counts(events):
    c = Counter()
    for e in events:
        ph = e.get("ph")
        cat = e.get("cat")
        if ph == "i" and e.get("name") == "[memory]":
            key = ("i", cat or "-", "[memory]")
        elif ph == "M":
            key = ("M", "-", e.get("name"))
        else:
            key = (ph, cat or "-", "")
        c[key] += 1
    return c


def memory_summary(events, base_ns=0):
    mems = [e for e in events if e.get("ph") == "i" and e.get("name") == "[memory]"]
    mems.sort(key=lambda e: to_ns(e["ts"]))
    out = {"count": len(mems), "allocs": sum(1 for e in mems if e["args"]["Bytes"] > 0),
           "frees": sum(1 for e in mems if e["args"]["Bytes"] < 0)}
    running, peak, peak_at = 0, 0, None
    ta_peak, ta_at = None, None
    for e in mems:
        a = e["args"]
        if a["Device Type"] != 1:
            continue
        running += a["Bytes"]
        if running > peak:
            peak, peak_at = running, to_ns(e["ts"])
        if "Total Allocated" in a and (ta_peak is None or a["Total Allocated"] > ta_peak):
            ta_peak, ta_at = a["Total Allocated"], to_ns(e["ts"])
    out.update(running_peak=peak, running_peak_at=peak_at, total_allocated_peak=ta_peak, total_allocated_peak_at=ta_at,
               cpu=[(to_ns(e["ts"]), e["args"]["Bytes"]) for e in mems if e["args"]["Device Type"] == 0])
    return out


# ----------------------------------------------------------------------------------------------
# Markdown helpers


def fus(ns):
    """ns -> '12.345' (microseconds, 3 decimals)."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return "%s%d.%03d" % (sign, ns // 1000, ns % 1000)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return "\n".join(out)


def md_counts(events):
    c = category_counts(events)
    rows = [(ph, cat, name, n) for (ph, cat, name), n in sorted(c.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2]))]
    return md_table(["ph", "cat", "name (M / [memory])", "count"], rows)


def md_ops(rows, with_memory=True, with_device=True):
    header = ["name", "device", "calls", "self CPU us", "CPU total us"]
    if with_device:
        header += ["self device us", "device total us"]
    if with_memory:
        header += ["CPU mem B", "self CPU mem B", "device mem B", "self device mem B"]
    out = []
    for r in rows:
        line = ["`%s`" % r["name"].replace("|", "\\|"), r["device"], r["calls"], fus(r["self_cpu"]),
                fus(r["cpu_total"])]
        if with_device:
            line += [fus(r["self_device"]), fus(r["device_total"])]
        if with_memory:
            line += [r["cpu_mem"], r["self_cpu_mem"], r["device_mem"], r["self_device_mem"]]
        out.append(line)
    return md_table(header, out)


def md_kernels(rows):
    out = []
    for r in rows:
        for cfg in r["configs"]:
            grid, block, regs, smem, occ = cfg
            out.append(["`%s`" % r["name"], r["calls"], fus(r["total"]), fus(r["total"] // r["calls"]) if
                        r["total"] % r["calls"] == 0 else "%.4f" % (r["total"] / r["calls"] / 1000),
                        list(grid) if grid else "-", list(block) if block else "-",
                        regs if regs is not None else "-", smem if smem is not None else "-",
                        occ if occ is not None else "-"])
    return md_table(["kernel", "calls", "total us", "avg us", "grid", "block", "regs/thread", "shared mem B",
                     "occupancy %"], out)


def md_transfers(rows):
    return md_table(["cat", "name", "dur us", "bytes", "stream", "External id"],
                    [[r["cat"], "`%s`" % r["name"], fus(r["dur"]), r["bytes"], r["stream"], r["ext"]] for r in rows])


# ----------------------------------------------------------------------------------------------
# Fixture 1: the real torch trace


def make_torch_trace(out):
    import math
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.manual_seed(0)
    torch.set_num_threads(1)
    q, k, v = (torch.randn(1, 2, 16, 8, requires_grad=True) for _ in range(3))
    scale = 1.0 / math.sqrt(8)

    def attention():
        scores = q @ k.transpose(-2, -1) * scale
        p = scores.softmax(dim=-1)
        (p @ v).sum().backward()

    attention()  # warm-up, outside the profile
    for x in (q, k, v):
        x.grad = None
    path = os.path.join(out, "torch_cpu_profile.json")
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True,
                 with_stack=False) as prof:
        attention()
    prof.export_chrome_trace(path)
    raw = open(path, "rb").read()
    doc = json.loads(raw)
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    names_in_file = {e["name"] for e in events}
    ops = []
    for r in prof.key_averages():
        ops.append(OrderedDict([("name", r.key), ("calls", r.count),
                                ("self_cpu_time_total_us", r.self_cpu_time_total),
                                ("cpu_time_total_us", r.cpu_time_total), ("in_trace", r.key in names_in_file)]))
    expected = OrderedDict([
        ("torch_version", torch.__version__), ("kineto_available", bool(torch.autograd.kineto_available())),
        ("python", sys.version.split()[0]), ("file", "torch_cpu_profile.json"), ("bytes", len(raw)),
        ("root", "array" if isinstance(doc, list) else "object"),
        ("x_events", sum(1 for e in events if e.get("ph") == "X")),
        ("memory_instants", sum(1 for e in events if e.get("ph") == "i" and e.get("name") == "[memory]")),
        ("operators", ops)])
    with open(os.path.join(out, "torch_cpu_profile.expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


def check_torch_trace(out):
    raw = open(os.path.join(out, "torch_cpu_profile.json"), "rb").read()
    exp = json.load(open(os.path.join(out, "torch_cpu_profile.expected.json")))
    assert len(raw) < MAX_BYTES, len(raw)
    doc, events = load_events(raw)
    assert exp["x_events"] == sum(1 for e in events if e.get("ph") == "X")
    assert exp["memory_instants"] == sum(1 for e in events if e.get("ph") == "i" and e.get("name") == "[memory]")
    legacy = isinstance(doc, list)
    fes = function_events(events, legacy=legacy) if legacy else function_events(events)
    rows = {r["name"]: r for r in key_averages(fes)}
    for o in exp["operators"]:
        if not o["in_trace"]:
            assert o["name"] not in rows, o
            continue
        r = rows.pop(o["name"])
        assert r["calls"] == o["calls"], (o, r)
        assert r["self_cpu"] == round(o["self_cpu_time_total_us"] * 1000), (o, r)
        assert r["cpu_total"] == round(o["cpu_time_total_us"] * 1000), (o, r)
    assert not rows, rows
    return exp, events


# ----------------------------------------------------------------------------------------------
# Fixture 8: bad input

def bad_files(gpu_text):
    files = OrderedDict()
    anchor = gpu_text.index(b'"name": "aten::softmax"')
    cut = gpu_text.index(b'"Input type"', anchor) + 8  # inside a key, inside an event's args
    files["truncated.json"] = gpu_text[:cut]
    gz = gzip.compress(gpu_text, compresslevel=9, mtime=0)
    files["truncated.json.gz"] = gz[:len(gz) // 2]
    files["empty.json"] = b""
    files["whitespace.json"] = b" \n\t\r\n   \n\t\n"
    rnd = random.Random(20240801)
    blob = bytearray(rnd.randbytes(2048))
    for i in range(0, 2048, 97):
        blob[i] = 0
    blob[0] = 0x89  # not '{', '[', whitespace, nor the gzip magic
    files["binary.bin"] = bytes(blob)
    # A gzip member header (magic, deflate, no flags, mtime 0, xfl 0, OS 255) then a deflate block of
    # the reserved type 3 (first byte 0x07: BFINAL=1, BTYPE=11) and garbage.
    files["not_gzip.json.gz"] = bytes([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF, 0x07]) + \
        b"this is not a deflate stream {\"traceEvents\": []}\n"
    files["wrong_type_root.json"] = b"42\n"
    files["wrong_type_events.json"] = b'{"traceEvents": 5}\n'
    good = ('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %s, "dur": 10.000, '
            '"args": {"External id": %d}}')
    files["wrong_type_fields.json"] = ("{\"traceEvents\": [\n" + ",\n".join([
        good % ("100.000", 1),
        '{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": "200.000", "dur": 10.000, '
        '"args": {"External id": 2}}',
        '{"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 300.000, "dur": {"us": 10}, '
        '"args": {"External id": 3}}',
        '{"ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 1, "tid": 1, "ts": 400.000, "dur": 10.000, '
        '"args": [1, 2, 3]}',
        '{"ph": "X", "cat": "cpu_op", "name": 42, "pid": 1, "tid": 1, "ts": 500.000, "dur": 10.000, '
        '"args": {"External id": 5}}',
        good % ("600.000", 6),
    ]) + "\n]}\n").encode("ascii")
    files["deeply_nested.json"] = _nested(24000)
    files["deeply_nested.json.gz"] = gzip.compress(_nested(100000), compresslevel=9, mtime=0)
    files["huge_numbers.json"] = ("{\"traceEvents\": [\n" + ",\n".join([
        good % ("100.000", 1),
        '{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1e400, "dur": 10.000, '
        '"args": {"External id": 2}}',
        '{"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 300.000, '
        '"dur": 123456789012345678901234567890, "args": {"External id": 3}}',
        '{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 305.000, '
        '"args": {"Device Type": 1, "Device Id": 0, "Bytes": -1e309, "Total Allocated": 0, "Total Reserved": 0}}',
        '{"ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 1, "tid": 1, "ts": 400.000, "dur": 10.000, '
        '"args": {"External id": 18446744073709551616}}',
    ]) + "\n]}\n").encode("ascii")
    files["huge_numbers_finite.json"] = ("{\"traceEvents\": [\n" + ",\n".join([
        good % ("100.000", 1),
        '{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1e300, "dur": 10.000, '
        '"args": {"External id": 2}}',
        '{"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 300.000, '
        '"dur": 123456789012345678901234567890, "args": {"External id": 3}}',
        '{"ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 1, "tid": 1, "ts": 400.000, "dur": 10.000, '
        '"args": {"External id": 18446744073709551616, "Sequence number": -9223372036854775809}}',
        '{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 405.000, '
        '"args": {"Device Type": 1, "Device Id": 0, "Bytes": 1e19, "Total Allocated": 0, "Total Reserved": 0}}',
    ]) + "\n]}\n").encode("ascii")
    files["non_utf8.json"] = (b'{"traceEvents": [\n' + (good % ("100.000", 1)).encode() + b',\n'
                              b'{"ph": "X", "cat": "cpu_op", "name": "aten::\xff\xfe_bad\xc0\xafname", "pid": 1, '
                              b'"tid": 1, "ts": 200.000, "dur": 10.000, "args": {"External id": 2}}\n]}\n')
    files["no_events.json"] = b'{"traceEvents": []}\n'
    files["nul_in_string.json"] = (b'{"traceEvents": [\n' + (good % ("100.000", 1)).encode() + b',\n'
                                   b'{"ph": "X", "cat": "cpu_op", "name": "aten::a\x00b", "pid": 1, "tid": 1, '
                                   b'"ts": 200.000, "dur": 10.000, "args": {"External id": 2}}\n]}\n')
    files["unterminated_string.json"] = (b'{"traceEvents": [\n' + (good % ("100.000", 1)).encode() + b',\n'
                                         b'{"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 200.000, '
                                         b'"dur": 10.000, "name": "aten::matmul')
    return files


def _nested(depth):
    head = b'{"traceEvents": [\n{"ph": "X", "cat": "cpu_op", "name": "deep", "pid": 1, "tid": 1, "ts": 100.000, ' \
           b'"dur": 10.000, "args": {"External id": 1, "nested": '
    return head + b"[" * depth + b"]" * depth + b'}},\n' + \
        b'{"ph": "X", "cat": "cpu_op", "name": "after", "pid": 1, "tid": 1, "ts": 200.000, "dur": 10.000, ' \
        b'"args": {"External id": 2}}\n]}\n'


def python_verdict(name, data):
    """What CPython's gzip + json make of a bad file: (stage, message, byte offset or None)."""
    if name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, gzip.BadGzipFile) as e:  # noqa: B014
            return ("gzip", "%s: %s" % (type(e).__name__, e), None)
        except Exception as e:  # zlib.error
            return ("gzip", "%s: %s" % (type(e).__name__, e), None)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ("utf-8", "UnicodeDecodeError: %s" % e.reason, e.start)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        return ("json", "JSONDecodeError: %s" % e.msg, len(text[:e.pos].encode("utf-8")))
    except RecursionError:
        return ("json", "RecursionError (valid JSON, deeper than CPython's recursion limit)", None)
    kind = type(doc).__name__
    if isinstance(doc, dict):
        ev = doc.get("traceEvents")
        kind += ", traceEvents: %s" % (type(ev).__name__ + ("[%d]" % len(ev) if isinstance(ev, list) else ""))
    return ("ok", "parses (%s)" % kind, None)


# What nlohmann::json 3.11.2's SAX parser reports (the position passed to parse_error), after
# reading the file through zlib's gzread like the importer; checked by --verify-nlohmann.
# name: (sax_parse ok, position, zlib error after gzread, what the message says)
NLOHMANN_EXPECTED = OrderedDict([
    ("truncated.json", (False, 6384, "", "parse_error.101 ... invalid string: missing closing quote")),
    ("truncated.json.gz", (False, 10466, "unexpected end of file", "parse_error.101 ... unexpected end of input")),
    ("empty.json", (False, 1, "", "parse_error.101 ... unexpected end of input")),
    ("whitespace.json", (False, 12, "", "parse_error.101 ... unexpected end of input")),
    ("binary.bin", (False, 1, "", "parse_error.101 ... invalid literal")),
    ("not_gzip.json.gz", (False, 1, "invalid block type", "parse_error.101 ... unexpected end of input")),
    ("wrong_type_root.json", (True, 0, "", "")),
    ("wrong_type_events.json", (True, 0, "", "")),
    ("wrong_type_fields.json", (True, 0, "", "")),
    ("deeply_nested.json", (True, 0, "", "")),
    ("deeply_nested.json.gz", (True, 0, "", "")),
    ("huge_numbers.json", (False, 227, "", "out_of_range.406 ... number overflow parsing '1e400'")),
    ("huge_numbers_finite.json", (True, 0, "", "")),
    ("non_utf8.json", (False, 191, "", "parse_error.101 ... invalid string: ill-formed UTF-8 byte")),
    ("no_events.json", (True, 0, "", "")),
    ("nul_in_string.json", (False, 192, "", "parse_error.101 ... control character U+0000 (NUL) must be escaped")),
    ("unterminated_string.json", (False, 247, "", "parse_error.101 ... invalid string: missing closing quote")),
])


NLOHMANN_CHECKER = r"""
#include <nlohmann/json.hpp>
#include <zlib.h>
#include <iostream>
#include <string>
struct Sax : nlohmann::json_sax<nlohmann::json> {
    std::size_t pos = 0; std::string msg; int events = 0; int depth = 0, max_depth = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { if (++depth > max_depth) max_depth = depth; return true; }
    bool end_object() override { if (depth-- == 3) ++events; return true; }
    bool start_array(std::size_t) override { if (++depth > max_depth) max_depth = depth; return true; }
    bool end_array() override { --depth; return true; }
    bool key(string_t&) override { return true; }
    bool parse_error(std::size_t p, const std::string&, const nlohmann::detail::exception& e) override {
        pos = p; msg = e.what(); return false;
    }
};
int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        gzFile f = gzopen(argv[i], "rb");
        std::string data; char buf[65536]; int n;
        while ((n = gzread(f, buf, sizeof buf)) > 0) data.append(buf, std::size_t(n));
        int code = 0; const char* zmsg = gzerror(f, &code);
        std::string zerr = (code == Z_OK || code == Z_STREAM_END) ? "" : zmsg;
        gzclose(f);
        Sax sax;
        bool ok = nlohmann::json::sax_parse(data, &sax);
        nlohmann::json out = {{"file", argv[i]}, {"inflated", data.size()}, {"zlib", zerr}, {"ok", ok},
                              {"position", sax.pos}, {"message", sax.msg}, {"max_depth", sax.max_depth}};
        std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
}
"""


def verify_nlohmann(bad_dir, names):
    tmp = tempfile.mkdtemp(prefix="awb_nlohmann_")
    try:
        src = os.path.join(tmp, "check.cpp")
        exe = os.path.join(tmp, "check")
        with open(src, "w") as f:
            f.write(NLOHMANN_CHECKER)
        subprocess.check_call(["nice", "g++", "-std=c++17", "-O1", src, "-o", exe, "-lz"])
        res = subprocess.run([exe] + [os.path.join(bad_dir, n) for n in names], check=True, capture_output=True,
                             text=True)
        out = {}
        for line in res.stdout.splitlines():
            d = json.loads(line)
            out[os.path.basename(d["file"])] = d
        return out
    finally:
        shutil.rmtree(tmp)


# ----------------------------------------------------------------------------------------------
# Checks worked out by hand (README numbers must agree with these).

HAND_CHECKS = {
    # kineto_gpu_2x.json (microseconds)
    ("gpu2x", "aten::bmm", "CPU"): dict(calls=2, self_cpu="47.000", cpu_total="85.000", self_device="62.208",
                                        device_total="62.208", device_mem=1572864, self_device_mem=1572864),
    ("gpu2x", "aten::matmul", "CPU"): dict(calls=2, self_cpu="25.000", cpu_total="110.000", self_device="0.000",
                                           device_total="62.208", device_mem=1572864, self_device_mem=0),
    ("gpu2x", "ProfilerStep*", "CPU"): dict(calls=1, self_cpu="317.500", cpu_total="600.000",
                                            device_total="276.024", cpu_mem=0, self_cpu_mem=-256,
                                            device_mem=2097152),
    ("gpu2x", "attn_fwd", "CPU"): dict(calls=1, self_cpu="15.000", cpu_total="160.000", self_device="115.736",
                                       device_total="186.168"),
    ("gpu2x", "attn_fwd", "CUDA"): dict(calls=1, self_device="115.736", device_total="115.736"),
    ("gpu2x", "cudaLaunchKernel", "CPU"): dict(calls=4, self_cpu="67.000", cpu_total="67.000", self_device="0.000"),
    ("gpu2x", "aten::copy_", "CPU"): dict(calls=1, self_cpu="5.875", cpu_total="27.500", self_device="3.456"),
    ("gpu2x", "record_param_comms", "CPU"): dict(calls=1, self_cpu="30.000", self_device="85.120"),
    ("gpu2x", "[memory]", "CPU"): dict(calls=1, device_mem=-524288),
    ("gpu2x", "autograd::engine::evaluate_function: SoftmaxBackward0", "CPU"):
        dict(calls=1, self_cpu="10.000", device_total="9.600", device_mem=0, self_device_mem=-1048576),
    # legacy_array.json
    ("legacy", "aten::bmm", "CPU"): dict(calls=4, self_cpu="123.250", cpu_total="123.250",
                                         self_device="107.000", device_total="107.000"),
    ("legacy", "aten::matmul", "CPU"): dict(calls=2, self_cpu="18.250", cpu_total="110.500", self_device="3.500",
                                            device_total="78.000"),
    ("legacy", "aten::sum", "CPU"): dict(calls=1, self_cpu="20.301", cpu_total="20.301"),
}


def hand_check(tag, rows):
    for (t_, name, dev), want in HAND_CHECKS.items():
        if t_ != tag:
            continue
        r = next(r for r in rows if r["name"] == name and r["device"] == dev)
        for k, v in want.items():
            got = r[k]
            if isinstance(v, str):
                got = fus(got)
            assert got == v, (tag, name, dev, k, got, v)


# ----------------------------------------------------------------------------------------------


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=OUT_DEFAULT)
    ap.add_argument("--skip-torch", action="store_true", help="keep the existing torch_cpu_profile.json")
    ap.add_argument("--verify-nlohmann", action="store_true")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    md = []

    # 1. the real trace
    if not args.skip_torch or not os.path.exists(os.path.join(out, "torch_cpu_profile.json")):
        make_torch_trace(out)
    texp, tevents = check_torch_trace(out)

    # 2./3.
    gpu_text, gpu_info = build_kineto_gpu_2x()
    write(os.path.join(out, "kineto_gpu_2x.json"), gpu_text)
    write(os.path.join(out, "kineto_gpu_2x.json.gz"), gzip.compress(gpu_text, compresslevel=9, mtime=0))
    assert gzip.decompress(open(os.path.join(out, "kineto_gpu_2x.json.gz"), "rb").read()) == gpu_text
    # 4.-7.
    t2021 = build_kineto_2021()
    write(os.path.join(out, "kineto_2021.json"), t2021)
    rocm_text, rocm_info = build_rocm()
    write(os.path.join(out, "rocm_kernels.json"), rocm_text)
    legacy_text = build_legacy()
    write(os.path.join(out, "legacy_array.json"), legacy_text)
    ranks = {r: build_rank(r) for r in RANKS}
    for r, text in ranks.items():
        write(os.path.join(out, "multi_rank", "rank%d.pt.trace.json" % r), text)
    # 8.
    bad = bad_files(gpu_text)
    for name, data in bad.items():
        write(os.path.join(out, "bad", name), data)

    # ---- read everything back
    good = ["kineto_gpu_2x.json", "kineto_gpu_2x.json.gz", "kineto_2021.json", "rocm_kernels.json",
            "legacy_array.json", "multi_rank/rank0.pt.trace.json", "multi_rank/rank1.pt.trace.json",
            "torch_cpu_profile.json"]
    parsed = {}
    for g in good:
        raw = open(os.path.join(out, g), "rb").read()
        if g.endswith(".gz"):
            raw = gzip.decompress(raw)
        parsed[g] = load_events(raw)
        json.loads(raw)  # plain json too
    for root, _, fs in os.walk(out):
        for f in fs:
            size = os.path.getsize(os.path.join(root, f))
            assert size < MAX_BYTES, (f, size)

    doc, ev = parsed["kineto_gpu_2x.json"]
    assert list(doc.keys()) == ["schemaVersion", "deviceProperties", "cupti_version", "cuda_runtime_version",
                                "cuda_driver_version", "distributedInfo", "record_shapes", "traceEvents", "traceName",
                                "displayTimeUnit", "baseTimeNanoseconds"]
    assert parsed["kineto_gpu_2x.json.gz"][0] == doc
    gpu_rows = key_averages(function_events(ev))
    hand_check("gpu2x", gpu_rows)
    gpu_rows_noann = key_averages(function_events(ev, link_annotations=False))
    gpu_kernels = kernel_table(ev)
    gpu_mem = memory_summary(ev)
    assert gpu_mem["total_allocated_peak"] == gpu_info["peak_allocated"] == 4194304
    assert gpu_mem["running_peak"] == 3145728
    counts = category_counts(ev)
    assert counts[("X", "kernel", "")] == 5 and counts[("X", "cpu_op", "")] == 18
    assert counts[("X", "cuda_runtime", "")] == 8 and counts[("i", "cpu_instant_event", "[memory]")] == 10
    assert counts[("s", "ac2g", "")] == counts[("f", "ac2g", "")] == 7

    d21, ev21 = parsed["kineto_2021.json"]
    assert list(d21.keys()) == ["schemaVersion", "traceEvents"]
    rows21 = key_averages(function_events(ev21))
    k21 = kernel_table(ev21)
    drocm, evrocm = parsed["rocm_kernels.json"]
    rows_rocm = key_averages(function_events(evrocm))
    k_rocm = kernel_table(evrocm)
    assert [r["calls"] for r in k_rocm] == [2, 1]
    dleg, evleg = parsed["legacy_array.json"]
    assert isinstance(dleg, list)
    rows_leg = key_averages(function_events(evleg, legacy=True))
    hand_check("legacy", rows_leg)
    rank_rows = {}
    for r in RANKS:
        d, e = parsed["multi_rank/rank%d.pt.trace.json" % r]
        assert d["distributedInfo"]["rank"] == r and d["distributedInfo"]["world_size"] == 2
        rank_rows[r] = (d, e, key_averages(function_events(e)), kernel_table(e))
    # both ranks' all-reduce kernels end at the same absolute time
    ends = []
    for r, (d, e, _, _) in rank_rows.items():
        k = next(x for x in e if x.get("ph") == "X" and x["name"] == NCCL_AR)
        ends.append(d["baseTimeNanoseconds"] + to_ns(k["ts"]) + to_ns(k["dur"]))
    assert ends[0] == ends[1], ends

    verdicts = {n: python_verdict(n, d) for n, d in bad.items()}
    nl = verify_nlohmann(os.path.join(out, "bad"), list(bad)) if args.verify_nlohmann else None
    if nl is not None:
        for n, d in nl.items():
            print("nlohmann %-28s ok=%s pos=%s zlib=%r msg=%s" % (n, d["ok"], d["position"], d["zlib"], d["message"]))
            ok, pos, zerr, what = NLOHMANN_EXPECTED[n]
            assert (d["ok"], d["position"]) == (ok, pos), (n, d)
            assert d["zlib"].endswith(zerr) and bool(d["zlib"]) == bool(zerr), (n, d)
            for part in what.split(" ... "):
                assert part in d["message"], (n, part, d)
        assert list(nl) == list(NLOHMANN_EXPECTED)

    # ---- README
    readme = render_readme(out, texp, tevents, ev, gpu_rows, gpu_rows_noann, gpu_kernels, gpu_mem, d21, ev21, rows21,
                           k21, drocm, evrocm, rows_rocm, k_rocm, evleg, rows_leg, rank_rows, bad, verdicts)
    write(os.path.join(out, "README.md"), readme.encode("utf-8"))

    # ---- listing
    for root, _, fs in sorted(os.walk(out)):
        for f in sorted(fs):
            p = os.path.join(root, f)
            print("%-48s %7d  %s" % (os.path.relpath(p, out), os.path.getsize(p),
                                     hashlib.sha256(open(p, "rb").read()).hexdigest()[:16]))


# ----------------------------------------------------------------------------------------------


def render_readme(out, texp, tevents, ev, gpu_rows, gpu_rows_noann, gpu_kernels, gpu_mem, d21, ev21, rows21, k21,
                  drocm, evrocm, rows_rocm, k_rocm, evleg, rows_leg, rank_rows, bad, verdicts):
    L = []
    w = L.append
    w("# Chrome-trace fixtures for the trace importer")
    w("")
    w("Written by `tests/reference/make_trace_fixtures.py` (run it with `/usr/bin/python3`; "
      "`--skip-torch` keeps the real torch trace, which has timings, and regenerates the rest "
      "byte for byte). Every number below was computed by that script from the files themselves, "
      "with a re-implementation of PyTorch's `key_averages()` (`_parse_kineto_results`, "
      "`EventList._build_tree`, `key_averages`), and checked against values worked out by hand.")
    w("")
    w("Conventions used in the tables:")
    w("")
    w("* Times are microseconds (3 decimals = exact nanoseconds). An event's absolute time is "
      "`baseTimeNanoseconds + round(ts * 1000)` ns when the file has `baseTimeNanoseconds`, else `ts` alone.")
    w("* **Operator rows** follow PyTorch 2.x: CPU rows are `cpu_op`, `user_annotation` (and 2021's "
      "`Operator`) **and** `cuda_runtime` / `cuda_driver` (`Runtime`) events, nested per thread by time "
      "(a child starts at or after its parent's start and ends at or before its end); self CPU = "
      "duration minus the children's durations (runtime calls are children too). Device rows "
      "(`device` = CUDA) are `kernel`, `gpu_memcpy`, `gpu_memset` and `gpu_user_annotation` "
      "events (2021: `Kernel`, `Memcpy`, `Memset`). `ProfilerStep#N` is shown as `ProfilerStep*`. "
      "Rows are in order of first appearance (start time, longer first).")
    w("* **Linking**: a CPU op's id is its `External id`; a runtime call's and a device event's own id is "
      "`correlation` (CUPTI's), and they link to the op whose `External id` they carry. An op's self "
      "device time is the duration of the device events linked to it; its device total adds its "
      "children's device totals. Runtime rows get no device time. External ids and correlation ids are "
      "disjoint in these files (correlations start at 101, 201, 311, 501), so mixing the two id spaces "
      "shows up as wrong numbers instead of passing by chance.")
    w("* **Memory**: each `[memory]` instant counts for every CPU row (op or runtime call, any thread) "
      "whose interval `[start, end]` holds its `ts`; `Device Type` 0 is CPU memory, 1 is device memory. "
      "Self memory = memory minus the children's. An instant no CPU event holds becomes a `[memory]` "
      "row of its own.")
    w("* Not in any table: flows (`s`/`f`: `ac2g`, `fwdbwd`, `async`, `cpu_to_cuda`), counters (`C`), "
      "metadata (`M`), non-memory instants (`Iteration Start`, `Record Window End`), and complete "
      "events of other categories: `Trace` (the profiler span on pid \"Spans\"), `overhead`, `cuda_sync`. "
      "A reader that turns those into CPU ops gets extra rows (`Instrumentation`, `Stream Sync`, "
      "`PyTorch Profiler (0)`) and wrong self times.")
    w("")

    # 1
    w("## torch_cpu_profile.json (real)")
    w("")
    w("Written by Debian's PyTorch **%s** (`/usr/bin/python3` %s, `torch.autograd.kineto_available()` = %s): "
      "`torch.profiler.profile(activities=[CPU], record_shapes=True, profile_memory=True, with_stack=False)` "
      "around a tiny attention forward and backward (q, k, v of shape [1, 2, 16, 8], `q @ k.transpose(-2, -1) "
      "* scale`, `softmax`, `@ v`, `.sum().backward()`), then `prof.export_chrome_trace(path)`; "
      "one warm-up pass before the profile, `torch.set_num_threads(1)`."
      % (texp["torch_version"], texp["python"], texp["kineto_available"]))
    w("")
    w("**Layout.** This build has no Kineto, so `export_chrome_trace` falls back to the legacy "
      "`EventList.export_chrome_trace`: the root is a plain JSON **array** (no `traceEvents`, no "
      "`schemaVersion`, no `deviceProperties`, no `traceName`, no `baseTimeNanoseconds`), and every "
      "event is `{\"name\", \"ph\": \"X\", \"ts\", \"dur\", \"tid\", \"pid\": \"CPU functions\", "
      "\"args\": {}}`: **no `cat`**, integer microseconds from the profiler's start, `tid` the profiler's "
      "small thread number, empty `args` (so no shapes even with `record_shapes=True`, no "
      "External id / Sequence number), and **no `[memory]` instants** even with `profile_memory=True` "
      "(key_averages() reports them, the file does not). A reader must treat events without `cat` in "
      "pid \"CPU functions\" as CPU operators.")
    w("")
    w("%d bytes; %d `X` events, %d `[memory]` instants, root = %s. `torch_cpu_profile.expected.json` holds "
      "what torch's own `key_averages()` said (calls, self CPU and CPU total in us); the operator table "
      "computed from the file reproduces every row exactly, except the rows marked not in trace."
      % (texp["bytes"], texp["x_events"], texp["memory_instants"], texp["root"]))
    w("")
    neg = [o for o in texp["operators"] if o["self_cpu_time_total_us"] < 0]
    if neg:
        w("Note the negative self CPU time of %s: torch's own table has it. The legacy exporter prints "
          "start and duration as whole microseconds, so a child can end 1 us after its parent (here "
          "`aten::mul` ends after `MulBackward0`); by PyTorch's nesting rule it is then not that parent's "
          "child but its grandparent's, whose children then last longer than itself. A reader must nest by "
          "the same rule (child iff start >= parent start and end <= parent end, scanning in (start, -end) "
          "order) to get the same numbers."
          % ", ".join("`%s` (%.3f us)" % (o["name"], o["self_cpu_time_total_us"]) for o in neg))
        w("")
    w(md_table(["name", "calls", "self CPU us", "CPU total us", "in trace"],
               [["`%s`" % o["name"], o["calls"], "%.3f" % o["self_cpu_time_total_us"], "%.3f" % o["cpu_time_total_us"],
                 "yes" if o["in_trace"] else "**no**"] for o in texp["operators"]]))
    w("")

    # 2
    w("## kineto_gpu_2x.json and kineto_gpu_2x.json.gz")
    w("")
    w("Hand-made PyTorch 2.x / Kineto trace of one training step on an A100 (rank 0 of 2, NCCL). The .gz is "
      "the same bytes gzipped (level 9, mtime 0); both must give identical results. Top-level keys, in "
      "Kineto's order: `schemaVersion`, `deviceProperties`, `cupti_version`, `cuda_runtime_version`, "
      "`cuda_driver_version`, `distributedInfo` (`rank` 0, `world_size` 2, `backend` nccl), "
      "`record_shapes`, `traceEvents`, then **after the events** `traceName`, `displayTimeUnit` (\"ms\") and "
      "`baseTimeNanoseconds` = %d. `ts`/`dur` are microseconds with 3 decimals relative to it "
      "(e.g. the step starts at %d + 1000000 ns)." % (BASE_NS, BASE_NS))
    w("")
    w("Threads: CPU pid %d, main thread tid %d, autograd thread tid %d (backward); GPU pid 0, streams "
      "tid 7 (compute) and 20 (NCCL). pid/tid are numbers except the profiler span (`\"Spans\"` / "
      "`\"PyTorch Profiler\"`) and the instants (`\"Traces\"`, `\"\"`). Also present and to be ignored by "
      "the tables: an `overhead` event `Instrumentation` on the main thread before the step, a `cuda_sync` "
      "`Stream Sync` on stream 7 (no External id), a `fwdbwd` flow (id 12, from `aten::softmax` to "
      "`SoftmaxBackward0`), a `C` counter, `M` metadata." % (PID, MAIN, BWD))
    w("")
    w("Event counts:")
    w("")
    w(md_counts(ev))
    w("")
    w("Operator table (PyTorch 2.x semantics, see conventions; `attn_fwd` appears twice: the CPU "
      "`user_annotation` and its `gpu_user_annotation`, linked by External id %d):"
      % next(e["args"]["External id"] for e in ev if e.get("cat") == "gpu_user_annotation"))
    w("")
    w(md_ops(gpu_rows))
    w("")
    changed = [(a, b) for a, b in zip(gpu_rows, gpu_rows_noann) if a != b]
    w("PyTorch links the `gpu_user_annotation` to the CPU `attn_fwd` like a kernel, so the device "
      "columns of `attn_fwd` and of everything above it count the annotated span on top of the kernels "
      "under it. A reader that does not link `gpu_user_annotation` to CPU ops gets instead:")
    w("")
    w(md_table(["name", "device", "self device us", "device total us"],
               [["`%s`" % b["name"], b["device"], fus(b["self_device"]), fus(b["device_total"])] for a, b in changed]))
    w("")
    w("Kernels (`cat` kernel; the launch configuration is from the kernel's args):")
    w("")
    w(md_kernels(gpu_kernels))
    w("")
    w("Copies and sets:")
    w("")
    w(md_transfers(transfer_table(ev)))
    w("")
    shapes = OrderedDict()
    for e in ev:
        if e.get("cat") == "cpu_op" and e["name"] in ("aten::matmul", "aten::bmm", "aten::softmax"):
            shapes.setdefault(e["name"], e["args"].get("Input Dims"))
    w("Input shapes (`Input Dims`) a reader must keep, first call of each: " +
      "; ".join("`%s` %s" % (k, v) for k, v in shapes.items()) + ". `Input type` is `float` for tensors.")
    w("")
    w("Memory (`[memory]` instants, cat `cpu_instant_event`, `s` \"t\"): %d events (%d allocations, %d frees), "
      "device 0 (`Device Type` 1) plus one CPU allocation of 256 B and its free (`Device Type` 0, "
      "`Device Id` -1). The allocator's `Total Allocated` peaks at **%d** B at ts %s (it includes %d B "
      "allocated before the profile); the running sum of device `Bytes` from the start of the trace peaks "
      "at **%d** B at ts %s. The last free (ts 1620.000) lies after the step, so no op holds it: it is the "
      "`[memory]` row."
      % (gpu_mem["count"], gpu_mem["allocs"], gpu_mem["frees"], gpu_mem["total_allocated_peak"],
         fus(gpu_mem["total_allocated_peak_at"]), 1048576, gpu_mem["running_peak"], fus(gpu_mem["running_peak_at"])))
    w("")

    # 4
    w("## kineto_2021.json")
    w("")
    w("Hand-made torch 1.8/1.9-era Kineto trace. Root `{\"schemaVersion\": 1, \"traceEvents\": [...]}` only: "
      "no `deviceProperties`, no `traceName`, no `baseTimeNanoseconds`; `ts`/`dur` are **absolute integer "
      "microseconds** (since the epoch, e.g. %d). Categories `Operator` (ops and the ProfilerStep), "
      "`Runtime`, `Kernel`, `Memcpy`, `Memset`, `Trace`; flows `\"cat\": \"async\"`, `\"name\": \"launch\"`, "
      "`s`/`f` with `id` = correlation. CPU events: pid %d (number), tid `\"%d\"` (a **string**); "
      "GPU events: pid 0, tid `\"stream 7\"` (string). Operator args: `Device`, `External id`, `Trace name`, "
      "`Trace iteration`, `Input dims` (lower-case d), `Input type`; Runtime and device args use lower-case "
      "`external id` (Runtime also `external ts`); kernels report `theoretical occupancy %%` (not "
      "`est. achieved occupancy %%`). `[memory]` instants have no `cat` and only `Device Type`, `Device Id`, "
      "`Bytes` (no totals)." % (T2021 + 100, PID2021, PID2021))
    w("")
    w(md_counts(ev21))
    w("")
    w(md_ops(rows21))
    w("")
    w(md_kernels(k21))
    w("")
    w(md_transfers(transfer_table(ev21)))
    w("")
    m21 = memory_summary(ev21)
    w("Memory: %d instants, device running peak %d B (no `Total Allocated` in this layout)." %
      (m21["count"], m21["running_peak"]))
    w("")

    # 5
    w("## rocm_kernels.json")
    w("")
    w("Hand-made ROCm (roctracer) flavour of the 2.x layout on an MI250X (`deviceProperties` with "
      "`warpSize` 64, device id 2). GPU events are on pid **2**, tid 0 (`\"device\": 2`, `\"stream\": 0`): "
      "a reader that assumes device 0 is wrong. Runtime calls keep `cat` \"cuda_runtime\" but are HIP "
      "(`hipMemcpyWithStream`, `hipExtModuleLaunchKernel`, `hipLaunchKernel`) and carry only "
      "`External id` and `correlation` (no `cbid`). Kernel args are only `External id`, `device`, `stream`, "
      "`correlation`, plus `grid`/`block` for the `hipLaunchKernel` one; the Tensile GEMM kernels have **no "
      "grid, block, registers or occupancy** (shown as -). The memcpy is named `CopyHostToDevice` and has "
      "`bytes` but no bandwidth. baseTimeNanoseconds = %d." % drocm["baseTimeNanoseconds"])
    w("")
    w(md_counts(evrocm))
    w("")
    w(md_ops(rows_rocm))
    w("")
    w(md_kernels(k_rocm))
    w("")
    w(md_transfers(transfer_table(evrocm)))
    w("")
    mr = memory_summary(evrocm)
    w("Memory: %d instants, `Total Allocated` peak %d B at ts %s." % (mr["count"], mr["total_allocated_peak"],
                                                                      fus(mr["total_allocated_peak_at"])))
    w("")

    # 6
    w("## legacy_array.json")
    w("")
    w("The torch 1.4-1.8 autograd profiler's export (`profile(use_cuda=True)`, `EventList.export_chrome_trace`), "
      "written with that exporter's own format strings: a plain JSON array, `\", \"` between events, no "
      "trailing newline. For each CPU op (pid `\"CPU functions\"`, `tid` 1 = main thread, 2 = the autograd "
      "thread), in CPU start order: its `X` event; then, for its CUDA record, an `s` flow (pid \"CPU functions\", "
      "the op's `tid` and `ts`, `cat` `cpu_to_cuda`, `id` counting from 0), the matching `f` flow and an `X` "
      "event on pid `\"CUDA functions\"`, `tid` 0 (the device) named like the **op** (the legacy profiler timed "
      "each op with CUDA events, it did not see kernels). No `cat` on the `X` events. `ts`/`dur` are floats "
      "printed with Python's `%s`, one of them ugly (`aten::sum` dur `20.300999999999988`: round to the "
      "nearest ns, 20.301 us). The CUDA spans nest like the ops (a parent's span holds its children's).")
    w("")
    w(md_counts(evleg))
    w("")
    w("Operator table, torch 1.x semantics (`is_legacy`): an op's device total is its own CUDA span only "
      "(already inclusive of its children's), self device = that minus the children's device totals; no "
      "device rows, no memory.")
    w("")
    w(md_ops(rows_leg, with_memory=False))
    w("")

    # 7
    w("## multi_rank/rank0.pt.trace.json, multi_rank/rank1.pt.trace.json")
    w("")
    w("Two ranks of one all-reduce step, 2.x layout, `distributedInfo` rank 0 / 1, `world_size` 2. Each: "
      "`ProfilerStep#1` > `aten::mm` (one sgemm) and `c10d::allreduce_` > `record_param_comms` (args "
      "`Collective name` \"allreduce\", `dtype` \"Float\", `In msg nelems` 4096, `Out msg nelems` 4096, "
      "`Group size` 2, `Rank`, process-group fields) > `cuLaunchKernelEx` (cat **cuda_driver**) launching "
      "`ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)` on stream 20. GPU events sit on pid = the rank's device "
      "(0 and 1). The two files have different pids and **different `baseTimeNanoseconds`** (rank 1's is "
      "2 ms later, its `ts` 2000 us smaller); on the absolute clock the two all-reduce kernels end at the "
      "same instant (%d ns), rank 0's starting earlier and waiting." %
      (BASE_NS + t("5085.000") + t("120.500")))
    w("")
    for r, (d, e, rows, ks) in rank_rows.items():
        w("### rank %d (pid %d, baseTimeNanoseconds %d)" % (r, RANKS[r][0], d["baseTimeNanoseconds"]))
        w("")
        w(md_counts(e))
        w("")
        w(md_ops(rows))
        w("")
        w(md_kernels(ks))
        w("")

    # 8
    w("## bad/")
    w("")
    w("One file per class of bad input. \"CPython\" is what `gzip.decompress` + `bytes.decode('utf-8')` + "
      "`json.loads` make of it (byte offsets are 0-based, where the strict parser stops). A reader must turn "
      "every one of them into one clear error (or, for the valid-but-odd ones, a documented result), never a "
      "crash, a hang or a silent partial trace.")
    w("")
    desc = {
        "truncated.json": "kineto_gpu_2x.json cut after %d bytes, inside the `\"Input type\"` key of "
                          "`aten::softmax`'s args. Must fail at the end of the data (not return the events "
                          "before the cut as a whole trace)." % len(bad["truncated.json"]),
        "truncated.json.gz": "the first %d of the %d bytes of kineto_gpu_2x.json.gz: the deflate stream stops "
                             "short (zlib: unexpected end of file)." %
                             (len(bad["truncated.json.gz"]),
                              len(gzip.compress(open(os.path.join(out, "kineto_gpu_2x.json"), "rb").read(), 9,
                                                mtime=0))),
        "empty.json": "0 bytes.",
        "whitespace.json": "%d bytes of spaces, tabs, CR and LF only." % len(bad["whitespace.json"]),
        "binary.bin": "2048 seeded random bytes (Random(20240801)), a NUL every 97 bytes, first byte 0x89 "
                      "(neither JSON nor the gzip magic).",
        "not_gzip.json.gz": "a valid gzip member header (1f 8b 08 00, mtime 0, OS 255) followed by a deflate "
                            "block of the reserved type 3 and text: zlib fails with \"invalid block type\". "
                            "(Plain text named .gz would not do: zlib's gzread passes non-gzip data through.)",
        "wrong_type_root.json": "`42`: valid JSON, not a trace.",
        "wrong_type_events.json": "`{\"traceEvents\": 5}`: valid JSON, `traceEvents` not an array.",
        "wrong_type_fields.json": "6 events: `aten::mm` (ts 100) and `aten::mm` (ts 600) are good; `aten::add` "
                                  "has `\"ts\": \"200.000\"` (string), `aten::mul` `\"dur\": {\"us\": 10}` (object), "
                                  "`aten::div` `\"args\": [1, 2, 3]` (array), and one event has `\"name\": 42` "
                                  "(number). Valid JSON. A tolerant reader keeps the 2 good events "
                                  "(`aten::mm`, 2 calls, 20.000 us) and skips or reports the 4 others (naming "
                                  "them); a strict one rejects the file naming the first bad event (index 1). It "
                                  "must not throw an unrelated type error or make up times (ts 0).",
        "deeply_nested.json": "valid JSON: event `deep` whose args hold `\"nested\"`: 24000 nested arrays, "
                              "closed properly, then a good event `after` (the plain file stays under 50 KB).",
        "deeply_nested.json.gz": "the same with 100000 levels (200 KB inflated). A reader either imports "
                                 "`deep` and `after` (2 cpu_op events) or rejects with a depth limit; it must "
                                 "not overflow the stack (building or destroying a recursive DOM of it does).",
        "huge_numbers.json": "grammar-valid JSON with numbers out of range: `ts` 1e400 (overflows a double), "
                             "`dur` 123456789012345678901234567890, `Bytes` -1e309, `External id` "
                             "18446744073709551616 (2^64). CPython reads them as inf / a big int; nlohmann "
                             "rejects 1e400 (number overflow, out_of_range 406).",
        "huge_numbers_finite.json": "like huge_numbers.json but every number is a finite double: `ts` 1e300, "
                                    "`dur` 1.2e29, `External id` 2^64, `Sequence number` -2^63-1, `Bytes` 1e19. "
                                    "Parses everywhere; converting to int64 nanoseconds overflows (llround of "
                                    "1e303 is undefined): a reader must range-check, not wrap.",
        "non_utf8.json": "the second event's name holds the bytes ff fe and the overlong encoding c0 af.",
        "no_events.json": "`{\"traceEvents\": []}`: valid, zero events (an empty trace or a clear \"no "
                          "events\" error).",
        "nul_in_string.json": "a raw NUL byte inside the second event's name (JSON requires control "
                              "characters to be escaped).",
        "unterminated_string.json": "the second event ends with `\"name\": \"aten::matmul` and the file ends "
                                    "there: a string without its closing quote, no newline after it.",
    }
    rows = []
    for name, data in bad.items():
        stage, msg, off = verdicts[name]
        rows.append(["`%s`" % name, len(data), desc[name], "%s: %s%s" % (stage, msg, "" if off is None else
                                                                        " (**byte %d**)" % off),
                     _nl_cell(name)])
    w(md_table(["file", "bytes", "content", "CPython", "nlohmann 3.11.2 SAX after gzread"], rows))
    w("")
    w("nlohmann's `position` (what `parse_error` gets, and what the importer prints as \"byte offset\") "
      "counts the bytes read, so it is the 0-based offset of the offending byte + 1, and the data length + 1 "
      "when the input ends early. For .gz files it counts inflated bytes. Checked with `--verify-nlohmann`.")
    w("")
    w("`truncated.json.gz` inflates to the first %d bytes of kineto_gpu_2x.json before the error (a reader "
      "streaming it must still report the gzip error, not a JSON one at that point, or both)." %
      len(_partial_inflate(bad["truncated.json.gz"])))
    w("")
    w("Not in this folder: a plain-text file named `.gz` (zlib reads it as plain text, by design) and a "
      "concatenation of gzip members (zlib reads them as one stream).")
    w("")
    return "\n".join(L)


def _nl_cell(name):
    ok, pos, zerr, what = NLOHMANN_EXPECTED[name]
    parts = []
    if zerr:
        parts.append("zlib: %s" % zerr)
    parts.append("parses" if ok else "%s, **position %d**" % (what, pos))
    return "; ".join(parts)


def _partial_inflate(data):
    d = __import__("zlib").decompressobj(16 + 15)
    return d.decompress(data)


if __name__ == "__main__":
    main()
