#!/usr/bin/python3
"""Chrome-trace import benchmark: `attnwb inspect` against Python's json.load (and
HolisticTraceAnalysis with --hta), same file, same run.

What it measures
  Wall time and peak RSS of `attnwb inspect FILE --rows 5` (our importer plus the operator and kernel
  tables) and of `/usr/bin/python3 -c 'json.load(open(FILE))'`, each in its own child process
  (os.wait4: ru_maxrss of that child, KiB on Linux), --repeat times each (median wall, max RSS),
  after one untimed `cat FILE > /dev/null` so both read from a warm page cache. Throughput is the
  file size over the wall time (MB = 10^6 bytes; RSS in MiB = 2^20 bytes).
  attnwb runs with --timing, which prints the import alone (reading the file into the trace, before the
  tables) on stderr: its median MB/s is shown as "import".
  Goals: whole-process attnwb inspect >= 10x Python's
  MB/s, import >= 500 MB/s on a 2-core machine, attnwb peak RSS <= 0.6x the uncompressed file size, and
  a 4 GB trace in <= 10 s.
  With --gz the file is also gzipped (level 6, streamed) and the .gz is timed the same way
  (attnwb inspect FILE.gz; Python gzip.open + json.load); MB/s there is uncompressed MB per second.

The trace
  Generated here: the layout of torch.profiler's export_chrome_trace / tensorboard_trace_handler output
  for GPU training steps of a small Llama-like model in bf16 on an H200 with DDP (Kineto's formatting,
  timestamps in microseconds with 3 decimals relative to baseTimeNanoseconds, which comes at the end
  like Kineto writes it): cpu_op trees with shapes (record_shapes), python_function frames
  (with_stack), ProfilerStep#N / Optimizer user_annotation, cudaLaunchKernel runtime calls, one kernel
  per launch on stream 7 (NCCL all-reduce kernels on stream 24), memcpy/memset, ac2g flows, [memory]
  instants (profile_memory), a counter per step, M metadata, Kineto's span events. Streamed to disk,
  deterministic (--seed). A sidecar FILE.meta.json holds what the generator wrote (event counts by
  category, duration, peak memory), which is compared with the summary line attnwb prints.

Usage
  /usr/bin/python3 scripts/bench_import.py                      # 320 MB trace, 3 runs each side
  /usr/bin/python3 scripts/bench_import.py --size-mb 5 --repeat 1 --show-output
  /usr/bin/python3 scripts/bench_import.py --gz --json /tmp/awb-bench/import.json
  /usr/bin/python3 scripts/bench_import.py --size-mb 4096 --skip-python     # the "a 4 GB trace opens" goal
  /usr/bin/python3 scripts/bench_import.py --hta ~/.cache/attention-workbench/venv-hta/bin/python   # HTA too
  /usr/bin/python3 scripts/bench_import.py --generate --size-mb 50 --out /tmp/t.json   # generator only

A real trace, grown
  --grow [TRACE] also times a real Kineto/Chrome trace (.json or .json.gz; default
  ../shared/public-traces/tracelens/mi300x_resnet_act_checkpoint.json.gz: a ResNet training run with
  with_stack, 61% of its events python_function frames with long names, Input Dims/type/Strides and Concrete
  Inputs, as users record; hta/a100_80gb_rank0.json.gz, rank 0 of a distributed A100 run without
  python_function events, is another one to try) grown to at least
  --size-mb by repeating its events whole: the first copy is the source's text, copy r has every "ts"
  shifted by r x (the trace's span + at least 1 ms, rounded up to whole ms) and every id that links
  events (args correlation, External id, Ev Idx, Profiler Event Index, Python id / Python parent id,
  Sequence number, wait_on_cuda_event_record_corr_id; the id / bind_id of flow and async events)
  + r x one stride (a power of ten above the largest), so that linking stays one-to-one within each copy
  and across keys; the step numbers go on (ProfilerStep#N + r x the trace's number of steps: attnwb's
  per-step GPU breakdown takes a step number that comes back for the first one's window); everything
  else verbatim (other names, Input Dims, Concrete Inputs, [memory] events), the
  metadata (M) events and the top-level keys (deviceProperties, distributedInfo, ...) once. Streamed,
  deterministic, kept as /tmp/awb-bench/grown_<name>_<size>mb.json with a .meta.json sidecar (source,
  repetitions, bytes, events per repetition) and reused while source, size and GROW_VERSION match.
  It is timed beside the generated trace (--skip-generated: alone), with --gz and --repeat alike;
  --verify compares attnwb's results of the grown trace with repetitions x the source's (operators,
  kernels, GPU time breakdown, event counts).
  /usr/bin/python3 scripts/bench_import.py --grow --size-mb 300                 # generated and grown, 300 MB each
  /usr/bin/python3 scripts/bench_import.py --grow TRACE.json.gz --skip-generated --verify --size-mb 50

Generated files are kept under /tmp/awb-bench and reused when size and seed match (--regenerate forces
a new one, --no-keep deletes them afterwards). Python's json.load peaks at ~4.5x the file size; it is
skipped (with a note) when MemAvailable is below 6x. A one-event trace is timed first: attnwb's start-up
(no LibTorch in attnwb: a few ms) is a fixed cost in every figure, shown separately. --verify adds one untimed
`attnwb inspect --rows 0 --json` compared with the generator's counts (ops, kernels, device time).
Prints figures and ratios; asserts nothing (speed goals are read, not unit-tested).
"""
import argparse
import decimal
import gzip
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from functools import lru_cache

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kineto_json import (Raw, complete, copy_args, flow_end, flow_start, kineto_event_text,  # noqa: E402: one writer
                         kernel_args, kineto_tail, memory_record, op_args, python_args, runtime_args, ts_text)

GENERATOR_VERSION = 1
MB = 1000 * 1000
MIB = 1024 * 1024
BASE_TIME_NS = 1700000000000000000
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ATTNWB = os.path.join(HERE, "..", "build", "app", "attnwb")
PYTHON = "/usr/bin/python3"

# ---------------------------------------------------------------------------------------------------
# Generator
# ---------------------------------------------------------------------------------------------------

PID = 2718281            # the training process; its main thread has tid == pid
MAIN_TID = PID
BWD_TID = PID + 173      # autograd engine's device thread
COMPUTE_STREAM = 7
NCCL_STREAM = 24
SM_COUNT = 132           # H200
BF16, F32, I64 = "c10::BFloat16", "float", "long int"

# Model: Llama-like, bf16, batch 4 x 2048 tokens, 8 layers (a small model profiled on one rank of 8).
BATCH, SEQ, HIDDEN, HEADS, HEAD_DIM, FFN, VOCAB, LAYERS = 4, 2048, 4096, 32, 128, 11008, 32000, 8
TOKENS = BATCH * SEQ

GEMM_KERNELS = [
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
    "nvjet_tst_256x128_64x4_2x1_v_bz_coopB_TNT",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
]
BMM_KERNEL = ("void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_tn_align8>"
              "(cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_tn_align8::Params)")
BMM_BWD_KERNEL = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"


def _binary(functor):
    f = f"at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::{functor}<float> >"
    impl = f"at::native::gpu_kernel_impl_nocast<{f} >(at::TensorIteratorBase&, {f} const&)::{{lambda(int)#1}}"
    return f"void at::native::elementwise_kernel<128, 2, {impl}>(int, {impl})"


def _vectorized(functor, arity):
    return (f"void at::native::vectorized_elementwise_kernel<4, {functor}, at::detail::Array<char*, {arity}> >"
            f"(int, {functor}, at::detail::Array<char*, {arity}>)")


_COPY = ("at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
         "{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}")
_SILU = ("at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::"
         "{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}")
K = {
    "mul": _binary("MulFunctor"),
    "div": _binary("DivFunctor"),
    "add": _vectorized("at::native::CUDAFunctor_add<c10::BFloat16>", 3),
    "pow": _vectorized("at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<c10::BFloat16, float>"
                       "(at::TensorIteratorBase&, float)::{lambda(c10::BFloat16)#1}", 2),
    "rsqrt": _vectorized("at::native::(anonymous namespace)::rsqrt_kernel_cuda(at::TensorIteratorBase&)::"
                         "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}", 2),
    "silu": _vectorized(_SILU, 2),
    "silu_bwd": _vectorized("at::native::(anonymous namespace)::silu_backward_kernel(at::TensorIteratorBase&)::"
                            "{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::"
                            "{lambda(c10::BFloat16, c10::BFloat16)#1}", 3),
    "fill": _vectorized("at::native::FillFunctor<float>", 1),
    "copy": f"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<{_COPY}>"
            f"(at::TensorIteratorBase&, {_COPY} const&)::{{lambda(int)#1}}>(int, at::native::gpu_kernel_impl_nocast<{_COPY}>"
            f"(at::TensorIteratorBase&, {_COPY} const&)::{{lambda(int)#1}})",
    "mean": "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
            "unsigned int, c10::BFloat16, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
            "unsigned int, c10::BFloat16, 4>)",
    "softmax": "void (anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16, "
               "(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)",
    "softmax_bwd": "void (anonymous namespace)::cunn_SoftMaxBackward<8, c10::BFloat16, float, c10::BFloat16, "
                   "(anonymous namespace)::SoftMaxBackwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, long)",
    "log_softmax": "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
                   "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
    "log_softmax_bwd": "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
                       "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)",
    "nll": "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>"
           "(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
    "nll_bwd": "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>"
               "(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
    "index_select": "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>"
                    "(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, "
                    "unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
    "embedding_bwd": "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, float, long>"
                     "(long const*, c10::BFloat16 const*, c10::BFloat16*, int, long, int, int)",
    "adamw": "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, "
             "at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, (at::native::ADAM_MODE)1, false>, "
             "double*, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::"
             "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, "
             "(at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*)",
    "nccl": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
}


def contiguous_strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def T(shape, dtype=BF16, strides=None):
    """A tensor input: shape, dtype, strides (contiguous when None)."""
    return ("T", tuple(shape), dtype, tuple(strides) if strides else contiguous_strides(shape))


def S(text):
    return ("S", str(text))                 # a scalar (int, float, bool)


def L(values):
    return ("L", "[" + ", ".join(str(v) for v in values) + "]")  # an int list


NONE = ("N",)


@lru_cache(maxsize=None)
def shape_fields(inputs):
    """record_shapes args of a cpu_op, as Kineto writes them: (key, value) pairs of Concrete Inputs, Input
    type, Input Strides, Input Dims."""
    if not inputs:
        return ()
    concrete, types, strides, dims = [], [], [], []
    for x in inputs:
        if x[0] == "T":
            concrete.append('""')
            types.append(f'"{x[2]}"')
            strides.append("[" + ", ".join(map(str, x[3])) + "]")
            dims.append("[" + ", ".join(map(str, x[1])) + "]")
        else:
            concrete.append('"%s"' % (x[1] if x[0] != "N" else ""))
            types.append({"S": '"Scalar"', "L": '"ScalarList"', "N": '""'}[x[0]])
            strides.append("[]")
            dims.append("[]")
    return (("Concrete Inputs", Raw(f"[{', '.join(concrete)}]")), ("Input type", Raw(f"[{', '.join(types)}]")),
            ("Input Strides", Raw(f"[{', '.join(strides)}]")), ("Input Dims", Raw(f"[{', '.join(dims)}]")))


def nbytes(shape, dtype=BF16):
    n = 1
    for d in shape:
        n *= d
    return n * (4 if dtype == F32 else 8 if dtype == I64 else 2)


class KinetoTraceGenerator:
    """Writes GPU training steps in Kineto's layout. Each step's events are built, sorted and written;
    only one step is ever held in memory."""

    def __init__(self, out, rng, trace_name):
        self.out = out
        self.rng = rng
        self.trace_name = trace_name
        self.bytes = 0
        self.events = 0
        self.first_event = True
        self.counts = {}            # "ph/cat" -> events written
        self.clock = {MAIN_TID: 5_000_000, BWD_TID: 0}   # ns since baseTimeNanoseconds
        self.stack = {MAIN_TID: [], BWD_TID: []}
        self.py_stack = {MAIN_TID: [], BWD_TID: []}
        self.gpu_free = {COMPUTE_STREAM: 0, NCCL_STREAM: 0}
        self.ext = 0
        self.ev_idx = 0
        self.corr = 100000
        self.seq = 0
        self.py_id = 0
        self.step_no = 10           # schedule(wait=..., warmup=...) makes the first recorded step #10
        self.cpu_block = []         # the step's CPU side: (ts, -dur, order, text, cat, (memory key, delta) or None)
        self.gpu_block = []         # the step's CUPTI side: (ts, order, ((ph, cat, text), ...)), flows after their event
        self.order = 0
        # Caching-allocator model: device -> allocated bytes, reserved bytes, free addresses by size.
        self.allocated = {1: 23 * 1024 * MIB, 0: 0}   # weights + AdamW states resident before the window
        self.reserved = {1: 24 * 1024 * MIB, 0: 0}
        self.free_addrs = {}
        self.next_addr = {1: 0x7F2A00000000, 0: 0x55D1C0000000}
        self.level = {}             # (device type, device id) -> running sum of Bytes (what a replay sees)
        self.peak = {}
        self.grads = []             # weight grads alive until the next step's zero_grad
        self.step_gpu_range = [1 << 62, 0]   # first kernel start, last kernel end of the step (stream 7)
        self.ts_min = None
        self.ts_max = 0
        self.op_calls = {}          # cpu_op name -> calls (for --verify)
        self.kernel_stats = {}      # kernel name -> [calls, total ns]
        self.device_busy_ns = 0     # kernels + memcpy + memset
        self.cpu_names = {}         # category -> names of CPU-side complete events (for --verify)

    # --- output -------------------------------------------------------------------------------
    def write(self, text):
        self.out.write(text)
        self.bytes += len(text)    # ASCII only

    def emit(self, text, ph, cat):
        self.write(text if self.first_event else ",\n" + text)
        self.first_event = False
        self.events += 1
        key = f"{ph}/{cat}"
        self.counts[key] = self.counts.get(key, 0) + 1

    def header(self):
        devices = ",\n".join(
            f'''    {{
      "id": {i}, "name": "NVIDIA H200", "totalGlobalMem": 150754820096,
      "computeMajor": 9, "computeMinor": 0,
      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
      "regsPerBlock": 65536, "warpSize": 32,
      "sharedMemPerBlock": 49152, "numSms": {SM_COUNT}
    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472
    }}''' for i in range(8))
        self.write(f'''{{
  "schemaVersion": 1,
  "deviceProperties": [
{devices}
  ],
  "cupti_version": 24,
  "cuda_runtime_version": 12040,
  "cuda_driver_version": 12040,
  "record_shapes": 1,
  "profile_memory": 1,
  "with_stack": 1,
  "distributedInfo": {{"backend": "nccl", "rank": 0, "world_size": 8, "pg_count": 1, "pg_config": [{{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]}}], "nccl_version": "2.21.5"}},
  "traceEvents": [
''')

    def footer(self):
        end = max(self.ts_max, self.clock[MAIN_TID]) + 20_000
        tail = kineto_tail(PID, 0, 0, end, [(MAIN_TID, "python3"), (BWD_TID, "pt_autograd_0")],
                           [COMPUTE_STREAM, NCCL_STREAM])
        for e in tail:
            self.emit(kineto_event_text(e), e["ph"], e.get("cat", "") if e["ph"] == "X" else "")
        self.cpu_names.setdefault("Trace", set()).add("PyTorch Profiler (0)")
        self.write(f'''
  ],
  "traceName": "{self.trace_name}",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": {BASE_TIME_NS}
}}
''')
        self.ts_min = 0 if self.ts_min is None else min(self.ts_min, 0)
        self.ts_max = max(self.ts_max, end)

    def flush_step(self):
        """Writes the step: CPU-side events (ops, annotations, python frames, [memory]) sorted by start,
        then the CUPTI side (runtime calls, kernels, copies, each followed by its flow), like Kineto."""
        self.cpu_block.sort(key=lambda e: (e[0], e[1], e[2]))
        for ts, _, _, text, cat, mem in self.cpu_block:
            if mem is not None:
                key, delta = mem  # (device type, device id): the level starts at what was resident before
                self.level[key] = self.level.get(key, self.allocated[key[0]]) + delta
                self.peak[key] = max(self.peak.get(key, 0), self.level[key])
                granule = 20 * MIB if key[0] == 1 else 2 * MIB
                reserved = max(self.reserved.get(key, self.reserved[key[0]]), -(-self.level[key] // granule) * granule)
                self.reserved[key] = reserved
                text = text.replace("@RESERVED@", str(reserved)).replace("@ALLOCATED@", str(self.level[key]))
                self.emit(text, "i", "[memory]")
            else:
                self.emit(text, "X", cat)
        self.gpu_block.sort(key=lambda e: (e[0], e[1]))
        for _, _, parts in self.gpu_block:
            for ph, cat, text in parts:
                self.emit(text, ph, cat)
        self.cpu_block.clear()
        self.gpu_block.clear()

    def note_range(self, start, end):
        if self.ts_min is None or start < self.ts_min:
            self.ts_min = start
        if end > self.ts_max:
            self.ts_max = end

    # --- CPU side -----------------------------------------------------------------------------
    def advance(self, tid, lo, hi):
        self.clock[tid] += self.rng.randint(lo, hi)

    def begin(self, tid, name, inputs=(), ag=False, cat="cpu_op"):
        self.advance(tid, 250, 900)
        self.ext += 1
        seq = -1
        if ag:
            self.seq += 1
            seq = self.seq
        self.stack[tid].append((name, cat, self.clock[tid], self.ext, inputs, seq, self.ev_idx))
        self.ev_idx += 1
        self.advance(tid, 600, 2500)
        return self.ext

    def end(self, tid, extra_ns=0):
        self.advance(tid, 400, 1800)
        self.clock[tid] += extra_ns
        name, cat, start, ext, inputs, seq, ev_idx = self.stack[tid].pop()
        dur = self.clock[tid] - start
        if cat == "cpu_op":
            self.op_calls[name] = self.op_calls.get(name, 0) + 1
        if cat == "user_annotation":
            args = op_args(ext, ev_idx=ev_idx)
        else:
            fwd = 1 if tid == BWD_TID else 0
            args = op_args(ext, seq if seq >= 0 else None, fwd, shape_fields(inputs), ev_idx=ev_idx)
        self.add_cpu(start, dur, cat, name=name, text=kineto_event_text(complete(cat, name, PID, tid, start, dur, args)))

    def add_cpu(self, start, dur, cat, text, mem=None, name=None):
        if name is not None:
            self.cpu_names.setdefault(cat, set()).add(name)
        self.order += 1
        self.cpu_block.append((start, -dur, self.order, text, cat, mem))
        self.note_range(start, start + dur)

    def op(self, tid, name, inputs=(), ag=True, kernel=None, alloc=(), body=None, extra_ns=0):
        """One cpu_op: children from body(), then allocations and the kernel launch inside it."""
        self.begin(tid, name, inputs, ag)
        if body:
            body()
        addrs = [self.malloc(tid, n) for n in alloc]
        if kernel:
            self.launch(tid, *kernel)
        self.end(tid, extra_ns)
        return addrs

    def view(self, tid, name, inputs):
        """A view op (no kernel, no memory): aten::view, aten::t -> aten::transpose -> aten::as_strided..."""
        if name == "aten::t":
            return self.op(tid, "aten::t", inputs, body=lambda: self.view(tid, "aten::transpose", inputs + (S(0), S(1))))
        if name in ("aten::transpose", "aten::expand", "aten::permute", "aten::unsqueeze", "aten::slice"):
            strided = lambda: self.op(tid, "aten::as_strided", inputs[:1] + (NONE, NONE, NONE), ag=False)
            return self.op(tid, name, inputs, body=strided)
        return self.op(tid, name, inputs)

    def python(self, tid, name, body):
        self.advance(tid, 300, 1200)
        start = self.clock[tid]
        self.py_id += 1
        me = self.py_id
        parent = self.py_stack[tid][-1] if self.py_stack[tid] else 0
        self.py_stack[tid].append(me)
        self.ev_idx += 1
        ev_idx = self.ev_idx
        body()
        self.advance(tid, 300, 2000)
        self.py_stack[tid].pop()
        dur = self.clock[tid] - start
        self.add_cpu(start, dur, "python_function", name=name, text=kineto_event_text(
            complete("python_function", name, PID, tid, start, dur, python_args(parent, me, ev_idx))))

    def module(self, tid, cls, index, body):
        """An nn.Module call as with_stack records it."""
        self.python(tid, "torch/nn/modules/module.py(1736): _wrapped_call_impl", lambda: self.python(
            tid, "torch/nn/modules/module.py(1747): _call_impl", lambda: self.python(
                tid, f"nn.Module: {cls}_{index}", lambda: self.python(tid, f"model.py({self.forward_line(cls)}): forward", body))))

    @staticmethod
    def forward_line(cls):
        return {"Attention": 214, "MLP": 171, "RMSNorm": 52, "TransformerBlock": 268, "Transformer": 301,
                "Linear": 124, "Embedding": 160}.get(cls, 99)

    # --- memory -------------------------------------------------------------------------------
    def malloc(self, tid, n, device_type=1):
        n = (n + 511) // 512 * 512
        pool = self.free_addrs.setdefault((device_type, n), [])
        if pool:
            addr = pool.pop()
        else:
            addr = self.next_addr[device_type]
            self.next_addr[device_type] += n
        self.memory_event(tid, addr, n, device_type)
        return (addr, n, device_type)

    def free(self, tid, block):
        addr, n, device_type = block
        self.free_addrs.setdefault((device_type, n), []).append(addr)
        self.memory_event(tid, addr, -n, device_type)

    def memory_event(self, tid, addr, delta, device_type):
        """A [memory] record; its allocator totals are filled in time order when the step is written
        (flush_step), as an allocator shared by the threads would report them."""
        self.advance(tid, 80, 400)
        device_id = 0 if device_type == 1 else -1
        ts = self.clock[tid]
        record = memory_record(PID, tid, ts, Raw("@RESERVED@"), Raw("@ALLOCATED@"), delta, addr, device_id, device_type)
        self.add_cpu(ts, 0, "[memory]", kineto_event_text(record), mem=((device_type, device_id), delta))

    # --- GPU side -----------------------------------------------------------------------------
    def launch(self, tid, kind, name, gpu_ns, grid=(1, 1, 1), block=(128, 1, 1), regs=32, smem=0, nbytes_=0,
               stream=COMPUTE_STREAM):
        """A runtime call on the CPU thread and its device activity, linked by correlation id and an ac2g flow."""
        ext = self.stack[tid][-1][3] if self.stack[tid] else 0
        self.corr += 1
        corr = self.corr
        api, cbid, api_cat = {"kernel": ("cudaLaunchKernel", 211, "cuda_runtime"),
                              "gemm": ("cuLaunchKernelEx", 652, "cuda_driver"),
                              "memcpy": ("cudaMemcpyAsync", 41, "cuda_runtime"),
                              "memset": ("cudaMemsetAsync", 51, "cuda_runtime")}[kind]
        self.advance(tid, 300, 900)
        rt_start = self.clock[tid]
        self.advance(tid, 2800, 6500)
        rt_dur = self.clock[tid] - rt_start
        self.note_range(rt_start, rt_start + rt_dur)
        self.cpu_names.setdefault(api_cat, set()).add(api)
        start = max(self.gpu_free[stream], rt_start + self.rng.randint(3000, 9000))
        dur = max(1200, int(gpu_ns * self.rng.uniform(0.96, 1.06)))
        self.gpu_free[stream] = start + dur + self.rng.randint(800, 2500)
        self.device_busy_ns += dur
        if kind not in ("memcpy", "memset"):
            k = self.kernel_stats.setdefault(name, [0, 0])
            k[0] += 1
            k[1] += dur
        self.note_range(start, start + dur)
        if stream == COMPUTE_STREAM:
            self.step_gpu_range[0] = min(self.step_gpu_range[0], start)
            self.step_gpu_range[1] = max(self.step_gpu_range[1], start + dur)
        runtime = kineto_event_text(complete(api_cat, api, PID, tid, rt_start, rt_dur, runtime_args(ext, cbid, corr)))
        flow_s = kineto_event_text(flow_start(corr, PID, tid, rt_start))
        flow_f = kineto_event_text(flow_end(corr, 0, stream, start))
        if kind in ("memcpy", "memset"):
            cat = "gpu_" + kind
            args = copy_args(ext, 0, stream, corr, nbytes_, dur)
        else:
            cat = "kernel"
            blocks = grid[0] * grid[1] * grid[2]
            warps = blocks * ((block[0] * block[1] * block[2] + 31) // 32)
            occupancy = min(100, int(0.5 + 100.0 * min(1.0, warps / (SM_COUNT * 64.0))))
            args = kernel_args(ext, 0, stream, corr, grid, block, regs, smem, SM_COUNT, 32, occupancy)
        device = kineto_event_text(complete(cat, name, 0, stream, start, dur, args))
        self.order += 1
        self.gpu_block.append((rt_start, self.order, ((("X", api_cat, runtime)), ("s", "ac2g", flow_s))))
        self.order += 1
        self.gpu_block.append((start, self.order, (("X", cat, device), ("f", "ac2g", flow_f))))

    def sync(self, tid, name="cudaStreamSynchronize", cbid=131):
        """A runtime call that waits for the compute stream to drain."""
        ext = self.stack[tid][-1][3] if self.stack[tid] else 0
        self.corr += 1
        self.advance(tid, 300, 900)
        start = self.clock[tid]
        self.clock[tid] = max(start + self.rng.randint(1500, 4000), self.gpu_free[COMPUTE_STREAM] + self.rng.randint(2000, 6000))
        dur = self.clock[tid] - start
        self.note_range(start, start + dur)
        self.cpu_names.setdefault("cuda_runtime", set()).add(name)
        self.order += 1
        text = kineto_event_text(complete("cuda_runtime", name, PID, tid, start, dur, runtime_args(ext, cbid, self.corr)))
        self.gpu_block.append((start, self.order, (("X", "cuda_runtime", text),)))

    # --- kernel cost model (H200-ish: ~620 TFLOP/s bf16 GEMM, ~3.6 TB/s elementwise) --------
    @staticmethod
    def gemm_ns(m, n, k, batch=1):
        return int(2.0 * batch * m * n * k / 620e12 * 1e9) + 4000

    @staticmethod
    def mem_ns(nb):
        return int(nb / 3.6e12 * 1e9) + 2500

    def elementwise(self, tid, name, kname, shape, n_in=2, ag=True, dtype=BF16, scalar=None, alloc=True):
        inputs = tuple(T(shape, dtype) for _ in range(n_in)) + ((S(scalar),) if scalar is not None else ())
        nb = nbytes(shape, dtype)
        blocks = max(1, nb // 2 // 512)
        return self.op(tid, name, inputs, ag=ag, alloc=(nb,) if alloc else (),
                       kernel=("kernel", K[kname], self.mem_ns(nb * (n_in + 1)), (min(blocks, 2 ** 31 - 1), 1, 1), (128, 1, 1), 16))

    def mm(self, tid, a, b, out_shape, kname=None, m_n_k=None, batch=1, name="aten::mm"):
        m, n, k = m_n_k
        kname = kname or self.rng.choice(GEMM_KERNELS)
        grid = (max(1, n // 128), max(1, m // 256), batch)
        return self.op(tid, name, (T(a[0], BF16, a[1] if len(a) > 1 else None), T(b[0], BF16, b[1] if len(b) > 1 else None)),
                       alloc=(nbytes(out_shape),),
                       kernel=("gemm" if batch == 1 else "kernel", kname, self.gemm_ns(m, n, k, batch), grid,
                               (384, 1, 1) if batch == 1 else (128, 1, 1), 168 if batch == 1 else 126,
                               213504 if batch == 1 else 33792))

    # --- the model ----------------------------------------------------------------------------
    def linear(self, tid, x_shape, in_f, out_f, index):
        """nn.Linear (no bias): aten::linear -> aten::t + aten::matmul -> aten::view, aten::mm, aten::_unsafe_view."""
        x = T(x_shape)
        w = T((out_f, in_f))
        out = {}

        def body():
            self.view(tid, "aten::t", (w,))
            def matmul():
                self.view(tid, "aten::view", (x, L((TOKENS, in_f))))
                out["addr"] = self.mm(tid, ((TOKENS, in_f),), ((in_f, out_f), (1, in_f)), (TOKENS, out_f),
                                      m_n_k=(TOKENS, out_f, in_f))
                self.view(tid, "aten::_unsafe_view", (T((TOKENS, out_f)), L(x_shape[:-1] + (out_f,))))
            self.op(tid, "aten::matmul", (x, T((in_f, out_f), BF16, (1, in_f))), body=matmul)

        self.module(tid, "Linear", index, lambda: self.op(tid, "aten::linear", (x, w, NONE), body=body))
        return out["addr"]

    def rmsnorm(self, tid, index):
        shape = (BATCH, SEQ, HIDDEN)
        saved = []

        def body():
            tmp = self.elementwise(tid, "aten::pow", "pow", shape, n_in=1, scalar=2)
            def mean():
                return self.op(tid, "aten::mean", (T(shape), L([-1]), S("True"), NONE), alloc=(nbytes((BATCH, SEQ, 1)),),
                               kernel=("kernel", K["mean"], self.mem_ns(nbytes(shape)), (TOKENS // 4, 1, 1), (32, 16, 1), 32))
            var = mean()
            self.free(tid, tmp[0])
            eps = self.elementwise(tid, "aten::add", "add", (BATCH, SEQ, 1), n_in=1, scalar="1e-05")
            self.free(tid, var[0])
            saved.extend(self.elementwise(tid, "aten::rsqrt", "rsqrt", (BATCH, SEQ, 1), n_in=1))
            self.free(tid, eps[0])
            saved.extend(self.elementwise(tid, "aten::mul", "mul", shape))
            saved.extend(self.elementwise(tid, "aten::mul", "mul", shape))
        self.module(tid, "RMSNorm", index, body)
        return saved

    def attention(self, tid, layer):
        """Manual attention as the workbench's 'manual' variant runs it: q/k/v projections, bmm, scale,
        softmax, bmm, output projection."""
        heads_shape = (BATCH, SEQ, HEADS, HEAD_DIM)
        bh = BATCH * HEADS
        saved = []

        def body():
            for i in range(3):
                saved.extend(self.linear(tid, (BATCH, SEQ, HIDDEN), HIDDEN, HIDDEN, 4 * layer + i))
                self.view(tid, "aten::view", (T((BATCH, SEQ, HIDDEN)), L(heads_shape)))
                self.view(tid, "aten::transpose", (T(heads_shape), S(1), S(2)))
            self.view(tid, "aten::transpose", (T((BATCH, HEADS, SEQ, HEAD_DIM)), S(-2), S(-1)))

            def scores_matmul():
                self.view(tid, "aten::expand", (T((BATCH, HEADS, SEQ, HEAD_DIM)), L((BATCH, HEADS, SEQ, HEAD_DIM)), S("False")))
                self.op(tid, "aten::reshape", (T((BATCH, HEADS, SEQ, HEAD_DIM)), L((bh, SEQ, HEAD_DIM))),
                        body=lambda: self.view(tid, "aten::view", (T((BATCH, HEADS, SEQ, HEAD_DIM)), L((bh, SEQ, HEAD_DIM)))))
                self.view(tid, "aten::expand", (T((BATCH, HEADS, HEAD_DIM, SEQ)), L((BATCH, HEADS, HEAD_DIM, SEQ)), S("False")))
                self.op(tid, "aten::reshape", (T((BATCH, HEADS, HEAD_DIM, SEQ)), L((bh, HEAD_DIM, SEQ))),
                        body=lambda: self.view(tid, "aten::view", (T((BATCH, HEADS, HEAD_DIM, SEQ)), L((bh, HEAD_DIM, SEQ)))))
                scores.extend(self.mm(tid, ((bh, SEQ, HEAD_DIM),), ((bh, HEAD_DIM, SEQ),), (bh, SEQ, SEQ), kname=BMM_KERNEL,
                                      m_n_k=(SEQ, SEQ, HEAD_DIM), batch=bh, name="aten::bmm"))
                self.view(tid, "aten::_unsafe_view", (T((bh, SEQ, SEQ)), L((BATCH, HEADS, SEQ, SEQ))))
            scores = []
            self.op(tid, "aten::matmul", (T((BATCH, HEADS, SEQ, HEAD_DIM)), T((BATCH, HEADS, HEAD_DIM, SEQ))), body=scores_matmul)
            scaled = self.elementwise(tid, "aten::div", "div", (BATCH, HEADS, SEQ, SEQ), n_in=1, scalar="11.313708498984761")
            self.free(tid, scores[0])

            def softmax():
                saved.extend(self.op(tid, "aten::_softmax", (T((BATCH, HEADS, SEQ, SEQ)), S(-1), S("False")),
                                     alloc=(nbytes((BATCH, HEADS, SEQ, SEQ)),),
                                     kernel=("kernel", K["softmax"], self.mem_ns(2 * nbytes((BATCH, HEADS, SEQ, SEQ))),
                                             (bh * SEQ, 1, 1), (1024, 1, 1), 38, 64)))
            self.op(tid, "aten::softmax", (T((BATCH, HEADS, SEQ, SEQ)), S(-1), NONE), body=softmax)
            self.free(tid, scaled[0])
            ctx = []

            def ctx_matmul():
                self.view(tid, "aten::expand", (T((BATCH, HEADS, SEQ, SEQ)), L((BATCH, HEADS, SEQ, SEQ)), S("False")))
                self.view(tid, "aten::view", (T((BATCH, HEADS, SEQ, SEQ)), L((bh, SEQ, SEQ))))
                ctx.extend(self.mm(tid, ((bh, SEQ, SEQ),), ((bh, SEQ, HEAD_DIM),), (bh, SEQ, HEAD_DIM), kname=BMM_KERNEL,
                                   m_n_k=(SEQ, HEAD_DIM, SEQ), batch=bh, name="aten::bmm"))
                self.view(tid, "aten::_unsafe_view", (T((bh, SEQ, HEAD_DIM)), L((BATCH, HEADS, SEQ, HEAD_DIM))))
            self.op(tid, "aten::matmul", (T((BATCH, HEADS, SEQ, SEQ)), T((BATCH, HEADS, SEQ, HEAD_DIM))), body=ctx_matmul)
            saved.extend(ctx)
            self.view(tid, "aten::transpose", (T((BATCH, HEADS, SEQ, HEAD_DIM)), S(1), S(2)))

            def contiguous():
                def clone():
                    self.op(tid, "aten::empty_like", (T(heads_shape, BF16, (HIDDEN * SEQ, HEAD_DIM, SEQ * HEAD_DIM, 1)), NONE, NONE, NONE, NONE, NONE),
                            body=lambda: saved.extend(self.op(tid, "aten::empty_strided", (L(heads_shape), L(contiguous_strides(heads_shape)), S(15), S(0), NONE, S("False")),
                                                              ag=False, alloc=(nbytes(heads_shape),))))
                    self.op(tid, "aten::copy_", (T(heads_shape), T(heads_shape, BF16, (HIDDEN * SEQ, HEAD_DIM, SEQ * HEAD_DIM, 1)), S("False")),
                            kernel=("kernel", K["copy"], self.mem_ns(2 * nbytes(heads_shape)), (TOKENS * HIDDEN // 512, 1, 1), (128, 1, 1), 30))
                self.op(tid, "aten::clone", (T(heads_shape, BF16, (HIDDEN * SEQ, HEAD_DIM, SEQ * HEAD_DIM, 1)), NONE), body=clone)
            self.op(tid, "aten::contiguous", (T(heads_shape, BF16, (HIDDEN * SEQ, HEAD_DIM, SEQ * HEAD_DIM, 1)), S(0)), body=contiguous)
            self.view(tid, "aten::view", (T(heads_shape), L((BATCH, SEQ, HIDDEN))))
            saved.extend(self.linear(tid, (BATCH, SEQ, HIDDEN), HIDDEN, HIDDEN, 4 * layer + 3))
        self.module(tid, "Attention", layer, body)
        return saved

    def mlp(self, tid, layer):
        saved = []

        def body():
            gate = self.linear(tid, (BATCH, SEQ, HIDDEN), HIDDEN, FFN, 100 + 3 * layer)
            self.module(tid, "SiLU", layer, lambda: saved.extend(
                self.elementwise(tid, "aten::silu", "silu", (BATCH, SEQ, FFN), n_in=1)))
            up = self.linear(tid, (BATCH, SEQ, HIDDEN), HIDDEN, FFN, 101 + 3 * layer)
            saved.extend(gate + up)
            saved.extend(self.elementwise(tid, "aten::mul", "mul", (BATCH, SEQ, FFN)))
            saved.extend(self.linear(tid, (BATCH, SEQ, FFN), FFN, HIDDEN, 102 + 3 * layer))
        self.module(tid, "MLP", layer, body)
        return saved

    def block(self, tid, layer):
        saved = []

        def body():
            saved.extend(self.rmsnorm(tid, 2 * layer))
            saved.extend(self.attention(tid, layer))
            saved.extend(self.elementwise(tid, "aten::add", "add", (BATCH, SEQ, HIDDEN)))
            saved.extend(self.rmsnorm(tid, 2 * layer + 1))
            saved.extend(self.mlp(tid, layer))
            saved.extend(self.elementwise(tid, "aten::add", "add", (BATCH, SEQ, HIDDEN)))
        self.module(tid, "TransformerBlock", layer, body)
        return saved

    def backward_layer(self, tid, layer, saved):
        """The autograd thread's work for one block, last op first, each node as
        'autograd::engine::evaluate_function: XBackward0' -> 'XBackward0' -> aten ops."""
        def node(fn, ops):
            def inner():
                self.begin(tid, fn, (), ag=False)
                ops()
                self.end(tid)
            self.begin(tid, f"autograd::engine::evaluate_function: {fn}", (), ag=False)
            inner()
            self.end(tid)

        shape = (BATCH, SEQ, HIDDEN)
        ffn = (BATCH, SEQ, FFN)
        grads = []

        def mm_backward(out_f, in_f):
            def ops():
                self.view(tid, "aten::t", (T((in_f, out_f), BF16, (1, in_f)),))
                tmp = self.mm(tid, ((TOKENS, out_f),), ((out_f, in_f),), (TOKENS, in_f), m_n_k=(TOKENS, in_f, out_f))
                self.view(tid, "aten::t", (T((TOKENS, out_f)),))
                grads.extend(self.mm(tid, ((out_f, TOKENS), (1, out_f)), ((TOKENS, in_f),), (out_f, in_f),
                                     m_n_k=(out_f, in_f, TOKENS)))
                self.view(tid, "aten::t", (T((out_f, in_f)),))
                self.free(tid, tmp[0])
            node("MmBackward0", ops)
            node("torch::autograd::AccumulateGrad",
                 lambda: self.op(tid, "aten::detach", (T((in_f, out_f)),), ag=False,
                                 body=lambda: self.op(tid, "detach", (T((in_f, out_f)),), ag=False)))

        def elementwise_backward(fn, kname, shp, n):
            def ops():
                for _ in range(n):
                    tmp = self.elementwise(tid, "aten::mul", kname, shp, ag=False)
                    self.free(tid, tmp[0])
            node(fn, ops)

        elementwise_backward("AddBackward0", "add", shape, 0)
        for out_f, in_f in ((HIDDEN, FFN), (FFN, HIDDEN), (FFN, HIDDEN)):
            mm_backward(out_f, in_f)
            if out_f == HIDDEN:
                elementwise_backward("MulBackward0", "mul", ffn, 2)
                elementwise_backward("SiluBackward0", "silu_bwd", ffn, 1)
        elementwise_backward("MulBackward0", "mul", shape, 2)
        mm_backward(HIDDEN, HIDDEN)
        elementwise_backward("CloneBackward0", "copy", shape, 1)

        def bmm_backward():
            for _ in range(2):
                tmp = self.mm(tid, ((BATCH * HEADS, SEQ, SEQ),), ((BATCH * HEADS, SEQ, HEAD_DIM),), (BATCH * HEADS, SEQ, HEAD_DIM),
                              kname=BMM_BWD_KERNEL, m_n_k=(SEQ, HEAD_DIM, SEQ), batch=BATCH * HEADS, name="aten::bmm")
                self.free(tid, tmp[0])
        node("BmmBackward0", bmm_backward)

        def softmax_backward():
            tmp = self.op(tid, "aten::_softmax_backward_data", (T((BATCH, HEADS, SEQ, SEQ)), T((BATCH, HEADS, SEQ, SEQ)), S(-1), S(15)),
                          alloc=(nbytes((BATCH, HEADS, SEQ, SEQ)),),
                          kernel=("kernel", K["softmax_bwd"], self.mem_ns(3 * nbytes((BATCH, HEADS, SEQ, SEQ))),
                                  (BATCH * HEADS * SEQ, 1, 1), (1024, 1, 1), 40, 128))
            self.free(tid, tmp[0])
        node("SoftmaxBackward0", softmax_backward)
        elementwise_backward("DivBackward0", "div", (BATCH, HEADS, SEQ, SEQ), 1)
        node("BmmBackward0", bmm_backward)
        for _ in range(3):
            mm_backward(HIDDEN, HIDDEN)
        elementwise_backward("MulBackward0", "mul", shape, 2)
        elementwise_backward("RsqrtBackward0", "rsqrt", (BATCH, SEQ, 1), 1)
        # Saved activations of this block die as its backward finishes.
        for b in reversed(saved):
            self.free(tid, b)
        self.grads.extend(grads)

    def all_reduce(self, tid, numel):
        """DDP bucket all-reduce: record_param_comms on the autograd thread, the NCCL kernel on its own stream."""
        nb = numel * 2
        self.op(tid, "nccl:all_reduce", (T((numel,)),), ag=False, body=lambda: self.op(
            tid, "record_param_comms", (T((numel,)), S(0), S("False")), ag=False,
            kernel=("kernel", K["nccl"], int(nb / 180e9 * 1e9) + 20000, (24, 1, 1), (640, 1, 1), 96, 0, 0, NCCL_STREAM)))

    def step(self):
        """One ProfilerStep#N: batch upload, zero_grad, forward, loss, backward, optimizer, loss.item()."""
        tid = MAIN_TID
        name = f"ProfilerStep#{self.step_no}"
        self.step_no += 1
        self.step_gpu_range = [1 << 62, 0]
        step_ext = self.begin(tid, name, cat="user_annotation")

        def train_step():
            # Batch upload: pinned host tensor, H2D copy.
            ids = (BATCH, SEQ)
            host = self.malloc(tid, nbytes(ids, I64), device_type=0)
            dev = []
            def to_copy():
                dev.extend(self.op(tid, "aten::empty_strided", (L(ids), L(contiguous_strides(ids)), S(4), S(0), NONE, S("False")),
                                   ag=False, alloc=(nbytes(ids, I64),)))
                self.op(tid, "aten::copy_", (T(ids, I64), T(ids, I64), S("True")),
                        kernel=("memcpy", "Memcpy HtoD (Pinned -> Device)", self.mem_ns(nbytes(ids, I64)) + 3000,
                                (1, 1, 1), (1, 1, 1), 0, 0, nbytes(ids, I64)))
            self.op(tid, "aten::to", (T(ids, I64), S(4), S(0), L(["cuda", 0]), NONE, S("True"), S("False"), NONE), body=lambda:
                    self.op(tid, "aten::_to_copy", (T(ids, I64), S(4), S(0), NONE, NONE, S("True"), NONE), body=to_copy))
            self.free(tid, host)

            # zero_grad(set_to_none=True): last step's grads go.
            def zero_grad():
                for g in self.grads:
                    self.free(tid, g)
                self.grads = []
            self.begin(tid, "Optimizer.zero_grad#AdamW.zero_grad", cat="user_annotation")
            zero_grad()
            self.end(tid)

            # Forward.
            activations = []
            def forward():
                emb = []
                def embedding():
                    self.view(tid, "aten::view", (T(ids, I64), L([-1])))
                    emb.extend(self.op(tid, "aten::index_select", (T((VOCAB, HIDDEN)), S(0), T((TOKENS,), I64)),
                                       alloc=(nbytes((BATCH, SEQ, HIDDEN)),),
                                       kernel=("kernel", K["index_select"], self.mem_ns(nbytes((BATCH, SEQ, HIDDEN))),
                                               (TOKENS * HIDDEN // 128 // 4, 1, 1), (128, 1, 1), 24)))
                    self.view(tid, "aten::view", (T((TOKENS, HIDDEN)), L((BATCH, SEQ, HIDDEN))))
                self.module(tid, "Embedding", 0, lambda: self.op(tid, "aten::embedding", (T((VOCAB, HIDDEN)), T(ids, I64), S(-1), S("False"), S("False")), body=embedding))
                for layer in range(LAYERS):
                    activations.append(self.block(tid, layer))
                activations[0].extend(emb)
                activations[-1].extend(self.rmsnorm(tid, 2 * LAYERS))
                activations[-1].extend(self.linear(tid, (BATCH, SEQ, HIDDEN), HIDDEN, VOCAB, 999))
            self.module(tid, "Transformer", 0, forward)

            # Loss.
            logits = (TOKENS, VOCAB)
            loss_saved = []   # log-softmax output, freed by its backward
            loss = []         # loss and total weight, freed once loss.item() has run
            def cross_entropy():
                def log_softmax():
                    loss_saved.extend(self.op(tid, "aten::_log_softmax", (T(logits, F32), S(1), S("False")), alloc=(nbytes(logits, F32),),
                                              kernel=("kernel", K["log_softmax"], self.mem_ns(2 * nbytes(logits, F32)), (TOKENS, 1, 1), (1024, 1, 1), 40, 64)))
                self.op(tid, "aten::log_softmax", (T(logits, F32), S(1), NONE), body=log_softmax)
                def nll():
                    self.op(tid, "aten::nll_loss", (T(logits, F32), T((TOKENS,), I64), NONE, S(1), S(-100)), body=lambda: loss.extend(self.op(
                        tid, "aten::nll_loss_forward", (T(logits, F32), T((TOKENS,), I64), NONE, S(1), S(-100)),
                        alloc=(512, 512), kernel=("kernel", K["nll"], 9000, (1, 1, 1), (32, 1, 1), 28, 1024))))
                self.op(tid, "aten::nll_loss_nd", (T(logits, F32), T((TOKENS,), I64), NONE, S(1), S(-100)), body=nll)
            self.python(tid, "torch/nn/functional.py(3479): cross_entropy", lambda: self.op(
                tid, "aten::cross_entropy_loss", (T(logits, F32), T((TOKENS,), I64), NONE, S(1), S(-100), S("0.0")), body=cross_entropy))

            # Backward: the main thread seeds the grad and waits; the autograd thread does the work.
            def backward():
                seed = []
                def ones_like():
                    self.op(tid, "aten::empty_like", (T((), F32), NONE, NONE, NONE, NONE, NONE), ag=False, body=lambda: seed.extend(
                        self.op(tid, "aten::empty_strided", (L([]), L([]), S(6), S(0), NONE, S("False")), ag=False, alloc=(512,))))
                    self.op(tid, "aten::fill_", (T((), F32), S(1)), ag=False,
                            kernel=("kernel", K["fill"], 1500, (1, 1, 1), (64, 1, 1), 16))
                self.op(tid, "aten::ones_like", (T((), F32), NONE, NONE, NONE, NONE, S(1)), ag=False, body=ones_like)
                self.clock[BWD_TID] = max(self.clock[BWD_TID], self.clock[tid]) + self.rng.randint(15000, 40000)
                bwd = BWD_TID
                def loss_backward():
                    for fn, kname in (("NllLossBackward0", "nll_bwd"), ("LogSoftmaxBackward0", "log_softmax_bwd")):
                        self.begin(bwd, f"autograd::engine::evaluate_function: {fn}", ag=False)
                        self.begin(bwd, fn, ag=False)
                        tmp = self.op(bwd, "aten::" + ("nll_loss_backward" if fn.startswith("Nll") else "_log_softmax_backward_data"),
                                      (T(logits, F32), T(logits, F32)), ag=False, alloc=(nbytes(logits, F32),),
                                      kernel=("kernel", K[kname], self.mem_ns(2 * nbytes(logits, F32)), (TOKENS, 1, 1), (1024, 1, 1), 32))
                        self.end(bwd)
                        self.end(bwd)
                        self.free(bwd, tmp[0])
                loss_backward()
                for b in loss_saved:
                    self.free(bwd, b)
                for layer in reversed(range(LAYERS)):
                    self.backward_layer(bwd, layer, activations[layer])
                    if layer % 2 == 0:
                        self.all_reduce(bwd, 25 * 1000 * 1000 // 2)
                self.free(bwd, seed[0])
                self.clock[tid] = max(self.clock[tid], self.clock[bwd]) + self.rng.randint(20000, 60000)
            self.python(tid, "torch/_tensor.py(581): backward", lambda: self.python(
                tid, "torch/autograd/__init__.py(347): backward", lambda: self.python(
                    tid, "torch/autograd/graph.py(825): _engine_run_backward", backward)))

            # Optimizer: fused AdamW, a few multi-tensor launches.
            self.begin(tid, "Optimizer.step#AdamW.step", cat="user_annotation")
            def adamw():
                for _ in range(6):
                    self.launch(tid, "kernel", K["adamw"], 2_400_000, (320, 1, 1), (512, 1, 1), 72, 0)
            self.op(tid, "aten::_fused_adamw_", (T((9 * LAYERS + 2,)), S("0.0003"), S("0.9"), S("0.95"), S("0.1"), S("1e-08"), S("False"), S("False"), NONE, NONE), ag=False, body=adamw)
            self.end(tid)

            # loss.item(): D2H copy and a synchronize, which waits for the GPU to finish the step.
            def item():
                def dense():
                    self.launch(tid, "memcpy", "Memcpy DtoH (Device -> Pageable)", 1800, nbytes_=4)
                    self.sync(tid)
                self.op(tid, "aten::_local_scalar_dense", (T((), F32),), ag=False, body=dense)
            self.op(tid, "aten::item", (T((), F32),), ag=False, body=item)
            # An occasional zero-fill of a gradient-accumulation buffer (cudaMemsetAsync).
            self.op(tid, "aten::zero_", (T((HIDDEN,), F32),), ag=False, body=lambda: self.op(
                tid, "aten::fill_", (T((HIDDEN,), F32), S(0)), ag=False,
                kernel=("memset", "Memset (Device)", 1500, (1, 1, 1), (1, 1, 1), 0, 0, HIDDEN * 4)))
            # The loss and the uploaded ids are released at the end of the step.
            for b in loss + dev:
                self.free(tid, b)
        self.python(tid, "train.py(88): train_step", train_step)
        self.end(tid)

        # The step as the GPU sees it, and one counter sample.
        gs, ge = self.step_gpu_range
        if ge > gs:
            self.order += 1
            self.gpu_block.append((gs, self.order, (("X", "gpu_user_annotation", f'''  {{
    "ph": "X", "cat": "gpu_user_annotation", "name": "{name}", "pid": 0, "tid": {COMPUTE_STREAM},
    "ts": {ts_text(gs)}, "dur": {ts_text(ge - gs)},
    "args": {{
      "External id": {step_ext}
    }}
  }}'''),)))
        ts = self.clock[tid]
        self.order += 1
        self.gpu_block.append((ts, self.order, (("C", "", f'''  {{
    "ph": "C", "name": "GPU 0 Memory", "pid": 0, "tid": 0,
    "ts": {ts_text(ts)},
    "args": {{
      "Allocated (GiB)": {self.allocated[1] / 2**30:.3f}, "Reserved (GiB)": {self.reserved[1] / 2**30:.3f}
    }}
  }}'''),)))
        self.flush_step()


def generate(path, size_mb, seed=0):
    """Writes a Kineto-layout trace of about size_mb MB (10^6 bytes; a few MB over, one step at most) to
    path, streamed; returns the description that is also saved as path + '.meta.json'."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    target = size_mb * MB
    free = shutil.disk_usage(os.path.dirname(os.path.abspath(path))).free
    if free < target * 1.05 + 64 * MIB:
        raise SystemExit(f"bench_import: {free / MB:.0f} MB free next to {path}, {target / MB:.0f} MB needed")
    part = path + ".part"
    tty = sys.stderr.isatty()
    t0 = time.perf_counter()
    with open(part, "w", encoding="ascii", newline="\n", buffering=4 * MIB) as out:
        gen = KinetoTraceGenerator(out, random.Random(seed), f"./log/h200-node07_{PID}.1700000000123.pt.trace.json")
        gen.header()
        next_report = 0
        while gen.bytes < target - 4096:
            gen.step()
            if tty and gen.bytes >= next_report:
                print(f"\rgenerating {path}: {gen.bytes / MB:.0f} / {size_mb} MB", end="", file=sys.stderr, flush=True)
                next_report += 16 * MB
        gen.footer()
    os.replace(part, path)
    if tty:
        print("\r\033[K", end="", file=sys.stderr)
    counts = dict(sorted(gen.counts.items()))
    x = {k.split("/", 1)[1]: v for k, v in counts.items() if k.startswith("X/")}
    # What an importer that keeps complete events and [memory] instants (attnwb's kinds) should report.
    kinds = {"cpu_op": x.get("cpu_op", 0),
             "user_annotation": x.get("user_annotation", 0) + x.get("gpu_user_annotation", 0),
             "kernel": x.get("kernel", 0), "gpu_memcpy": x.get("gpu_memcpy", 0), "gpu_memset": x.get("gpu_memset", 0),
             "cuda_runtime": x.get("cuda_runtime", 0) + x.get("cuda_driver", 0),
             "other": x.get("python_function", 0) + x.get("Trace", 0)}
    meta = {
        "generator_version": GENERATOR_VERSION, "size_mb": size_mb, "seed": seed, "path": os.path.abspath(path),
        "bytes": os.path.getsize(path), "events": gen.events, "steps": gen.step_no - 10, "layers_per_step": LAYERS,
        "seconds": round(time.perf_counter() - t0, 1),
        "events_by_ph_cat": counts,
        "expected": {
            "complete_events": sum(x.values()), "complete_events_by_kind": kinds,
            "memory_events": counts.get("i/[memory]", 0),
            "duration_us": (gen.ts_max - gen.ts_min) / 1000.0,
            "peak_memory_bytes": max(gen.peak.values()) if gen.peak else 0,
            "cpu_threads_with_events": [MAIN_TID, BWD_TID],
            "device_busy_us": gen.device_busy_ns / 1000.0,
            "op_calls": dict(sorted(gen.op_calls.items())),
            "kernels": {k: {"calls": c, "total_us": ns / 1000.0} for k, (c, ns) in sorted(gen.kernel_stats.items())},
            "cpu_side_names": {cat: sorted(names) for cat, names in sorted(gen.cpu_names.items())},
        },
    }
    with open(path + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def generated_trace(path, size_mb, seed, regenerate):
    """The trace at path, reused when its sidecar says it was made with the same size, seed and generator."""
    meta_path = path + ".meta.json"
    if not regenerate and os.path.exists(path) and os.path.exists(meta_path):
        try:
            with open(meta_path) as f:
                meta = json.load(f)
            if (meta.get("generator_version"), meta.get("size_mb"), meta.get("seed")) == (GENERATOR_VERSION, size_mb, seed) \
                    and meta.get("bytes") == os.path.getsize(path):
                print(f"reusing {path} ({meta['bytes'] / MB:.1f} MB, {meta['events']} events)")
                return meta
        except (OSError, ValueError):
            pass
    meta = generate(path, size_mb, seed)
    print(f"wrote {path}: {meta['events']} events, {meta['bytes']} bytes ({meta['bytes'] / MB:.1f} MB) "
          f"in {meta['seconds']} s")
    return meta


def gzip_file(src, dst, regenerate):
    """Streams src into dst at gzip level 6 (reused when newer than src)."""
    if not regenerate and os.path.exists(dst) and os.path.getmtime(dst) >= os.path.getmtime(src):
        print(f"reusing {dst} ({os.path.getsize(dst) / MB:.1f} MB)")
        return
    t0 = time.perf_counter()
    with open(src, "rb") as fin, gzip.open(dst + ".part", "wb", compresslevel=6) as fout:
        shutil.copyfileobj(fin, fout, 4 * MIB)
    os.replace(dst + ".part", dst)
    print(f"wrote {dst}: {os.path.getsize(dst) / MB:.1f} MB in {time.perf_counter() - t0:.1f} s")


# ---------------------------------------------------------------------------------------------------
# Growing a real trace
# ---------------------------------------------------------------------------------------------------

GROW_VERSION = 2
PUBLIC_TRACES = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "public-traces"))
DEFAULT_REAL_TRACE = os.path.join(PUBLIC_TRACES, "tracelens", "mi300x_resnet_act_checkpoint.json.gz")
GROW_GAP_US = 1000          # at least this much idle time between two repetitions
# Keys whose values link events to each other. Repetition r adds r x stride to each (one stride for all
# keys, so that links across keys hold: an ac2g flow's id is its kernel's correlation, a cuda_sync's
# wait_on_cuda_event_record_corr_id a correlation). The event's own "id"/"bind_id" only in flow and
# async events; the others in "args". Sequence number links a forward op to its backward op.
EVENT_ID_KEYS = ("id", "bind_id")
ARG_ID_KEYS = ("correlation", "External id", "external id", "Ev Idx", "Profiler Event Index", "Python id",
               "Python parent id", "Sequence number", "wait_on_cuda_event_record_corr_id")
ZERO_IS_NONE = {"correlation", "External id", "external id", "wait_on_cuda_event_record_corr_id"}
ID_PHASES = {"s", "t", "f", "b", "n", "e"}
_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
# A key is always preceded by '{', ',' or white space; inside a string every '"' is escaped, so this
# matches keys only (at any depth: _hole_matches sorts out which object a key belongs to).
HOLE = re.compile(r'(?<=[{,\s])"(ts|%s)"\s*:\s*(%s|"(?:[^"\\]|\\.)*"|null)'
                  % ("|".join(re.escape(k) for k in EVENT_ID_KEYS + ARG_ID_KEYS), _NUMBER))
EVENTS_KEY = re.compile(r'"traceEvents"\s*:\s*\[')
ARGS_KEY = re.compile(r'(?<=[{,\s])"args"\s*:\s*')
WS = re.compile(r"\s*")


def read_trace_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read().decode("utf-8")


def iter_trace_events(text):
    """(start, end, event) of each element of the trace's event array (Kineto's {"traceEvents": [...]}
    or a bare array), numbers as Decimal (exact: 1712195495519695.812 is not a double)."""
    m = EVENTS_KEY.search(text)
    if m:
        pos = m.end()
    elif text.lstrip().startswith("["):
        pos = text.index("[") + 1
    else:
        raise ValueError("no traceEvents array")
    dec = json.JSONDecoder(parse_float=decimal.Decimal)
    pos = WS.match(text, pos).end()
    while text[pos] != "]":
        obj, end = dec.raw_decode(text, pos)
        yield pos, end, obj
        pos = WS.match(text, end).end()
        if text[pos] == ",":
            pos = WS.match(text, pos + 1).end()


def _expected_keys(obj):
    """Keys of HOLE this event holds where a repetition may change them: key -> 'event' or 'args'."""
    keys = {k: "event" for k in ("ts",) + EVENT_ID_KEYS if k in obj}
    args = obj.get("args")
    if isinstance(args, dict):
        keys.update({k: "args" for k in ARG_ID_KEYS if k in args})
    return keys


def _hole_matches(text, obj):
    """The matches of HOLE in one event's text that are its own "ts"/"id"/"bind_id" or its args' ids."""
    matches = list(HOLE.finditer(text))
    want = _expected_keys(obj)
    if len(matches) == len(want) and {m.group(1) for m in matches} == set(want):
        return matches
    # A key also appears where it is not one of ours (e.g. an "id" inside args): place each by the args span.
    a = ARGS_KEY.search(text)
    a0 = a.end() if a else len(text)
    a1 = json.JSONDecoder().raw_decode(text, a0)[1] if a else len(text)
    kept = [m for m in matches if (a0 <= m.start() < a1) == (want.get(m.group(1)) == "args")
            and m.group(1) in want]
    if sorted(m.group(1) for m in kept) != sorted(want):
        raise ValueError(f"cannot place the keys {sorted(want)} in event: {text[:200]}")
    return kept


def _ts_hole(value):
    """(prefix, integer part, fraction text, unit) of a timestamp: shifted by whole microseconds, the
    fraction's digits stay as written."""
    d = decimal.Decimal(value)
    whole = int(d.to_integral_value(rounding=decimal.ROUND_FLOOR))
    frac = d - whole
    return "", whole, (format(frac, "f")[1:] if d.as_tuple().exponent < 0 else ""), 1


def _id_hole(key, value):
    """(prefix, base, suffix, unit) of a linking id, or None when it stays as written (null, negative,
    a 0 that means 'none', a float). A string id of digits stays a string; another string gets '~r'."""
    if value.startswith('"'):
        inner = value[1:-1]
        return ('"', int(inner), '"', 0) if inner.isdigit() else (value[:-1] + "~", 0, '"', 2)
    if not re.fullmatch(r"\d+", value) or (value == "0" and key in ZERO_IS_NONE):
        return None
    return "", int(value), "", 0


STEP_NAME = re.compile(r'(?<=[{,\s])"name"\s*:\s*"ProfilerStep#(\d+)"')


def _event_holes(text, obj):
    """(start, end, key, hole) of each value of one event's text that a repetition changes, in order."""
    out = []
    for m in _hole_matches(text, obj):
        key, value = m.group(1), m.group(2)
        if key == "ts":
            hole = _ts_hole(value) if value[0] in "-0123456789" else None
        elif key in EVENT_ID_KEYS and obj.get("ph") not in ID_PHASES:
            hole = None
        else:
            hole = _id_hole(key, value)
        if hole is not None:
            out.append((m.start(2), m.end(2), key, hole))
    step = STEP_NAME.search(text) if str(obj.get("name", "")).startswith("ProfilerStep#") else None
    if step:   # copies continue the step numbers: ProfilerStep#N + r x (the trace's steps)
        out.append((step.start(1), step.end(1), "ProfilerStep#", ("", int(step.group(1)), "", 3)))
    return sorted(out)


class GrowTemplate:
    """One repetition of a trace's events with holes where repetitions differ: lits[0] hole[0] lits[1] ...
    A hole (prefix, base, suffix, unit) renders as prefix + str(base + deltas[unit]) + suffix, with
    deltas = (r x id stride, r x time offset, r, r x the number of ProfilerStep#N steps)."""

    def __init__(self, text):
        self.lits, self.holes, self.counts = [], [], {}
        self.metadata_events = self.events = 0
        self.ts_min, self.ts_end, self.max_id = None, None, 0
        self.steps = (1 << 62, -1)      # lowest, highest N of the ProfilerStep#N names
        first = last = sep = None
        cur = []
        for start, end, obj in iter_trace_events(text):
            if first is None:
                first = start
            elif sep is None:
                sep = text[last:start]
            last = end
            if obj.get("ph") == "M":
                self.metadata_events += 1   # written once, in the first repetition (the source's own text)
                continue
            if self.events:
                cur.append(sep or ",\n")
            self._add_event(text[start:end], obj, cur)
        if not self.events:
            raise ValueError("no events but metadata")
        self.lits.append("".join(cur))
        self.prefix, self.first_rep, self.suffix = text[:first], text[first:last], text[last:]
        self.sep = sep or ",\n"
        if self.ts_min is not None and self.ts_min < 0:
            raise ValueError("negative timestamps: not supported")
        span = (self.ts_end - self.ts_min) if self.ts_min is not None else 0
        self.offset_us = math.ceil(decimal.Decimal(span + GROW_GAP_US) / 1000) * 1000   # whole milliseconds
        self.id_stride = 10 ** len(str(self.max_id))
        self.step_stride = max(0, self.steps[1] - self.steps[0] + 1)

    def _add_event(self, text, obj, cur):
        self.events += 1
        self._note_time(obj)
        pos = 0
        for start, end, key, hole in _event_holes(text, obj):
            cur.append(text[pos:start])
            self.lits.append("".join(cur))
            cur.clear()
            self.holes.append(hole)
            pos = end
            self.counts[key] = self.counts.get(key, 0) + 1
            if hole[3] == 0:
                self.max_id = max(self.max_id, hole[1])
            elif hole[3] == 3:
                self.steps = (min(self.steps[0], hole[1]), max(self.steps[1], hole[1]))
        cur.append(text[pos:])

    def _note_time(self, obj):
        ts = obj.get("ts")
        if not isinstance(ts, (int, decimal.Decimal)):
            return
        dur = obj.get("dur")
        end = ts + (dur if isinstance(dur, (int, decimal.Decimal)) and dur > 0 else 0)
        self.ts_min = ts if self.ts_min is None else min(self.ts_min, ts)
        self.ts_end = end if self.ts_end is None else max(self.ts_end, end)

    def render(self, r):
        """Repetition r >= 1 of the (non-metadata) events."""
        deltas = (r * self.id_stride, r * self.offset_us, r, r * self.step_stride)
        vals = [p + str(b + deltas[u]) + s for p, b, s, u in self.holes]
        out = [None] * (len(self.lits) + len(vals))
        out[0::2] = self.lits
        out[1::2] = vals
        return "".join(out)


def grow_trace(source, out, repetitions):
    """Writes `repetitions` copies of the trace `source` (.json or .json.gz) to `out`, streamed: the first
    is the source's text; copy r has every "ts" shifted by r x offset (whole ms over the trace's span
    plus GROW_GAP_US) and every linking id (ARG_ID_KEYS, flow ids) + r x stride; metadata (M) events and
    the top-level keys (deviceProperties, distributedInfo, ...) once. Returns the description also
    saved as out + '.meta.json'."""
    t0 = time.perf_counter()
    text = read_trace_text(source)
    tpl = GrowTemplate(text)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".part", "w", encoding="utf-8", newline="") as f:
        f.write(tpl.prefix)
        f.write(tpl.first_rep)
        for r in range(1, repetitions):
            f.write(tpl.sep)
            f.write(tpl.render(r))
        f.write(tpl.suffix)
    os.replace(out + ".part", out)
    st = os.stat(source)
    meta = {"grow_version": GROW_VERSION, "source": os.path.abspath(source), "source_bytes": st.st_size,
            "source_mtime_ns": st.st_mtime_ns, "source_json_bytes": len(text.encode("utf-8")), "path": os.path.abspath(out),
            "repetitions": repetitions, "bytes": os.path.getsize(out), "events_per_repetition": tpl.events,
            "metadata_events": tpl.metadata_events, "events": tpl.events * repetitions + tpl.metadata_events,
            "offset_us": tpl.offset_us, "id_stride": tpl.id_stride,
            "step_stride": tpl.step_stride, "renumbered_per_repetition": dict(sorted(tpl.counts.items())),
            "seconds": round(time.perf_counter() - t0, 1)}
    with open(out + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def grown_path(source, size_mb):
    stem = re.sub(r"(\.pt\.trace)?\.json(\.gz)?$", "", os.path.basename(source))
    return f"/tmp/awb-bench/grown_{re.sub(r'[^A-Za-z0-9_.-]+', '_', stem)}_{size_mb}mb.json"


def _json_bytes(path):
    """Uncompressed size of a trace, streamed."""
    if not path.endswith(".gz"):
        return os.path.getsize(path)
    n = 0
    with gzip.open(path, "rb") as f:
        while chunk := f.read(4 * MIB):
            n += len(chunk)
    return n


def _grow_in_child(source, path, size_mb):
    """grow_trace to at least size_mb MB, in a forked child: the timed tools are children of this process,
    and a child's ru_maxrss starts from this process's RSS at fork, so this one must stay small."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            reps = max(1, -(-size_mb * MB // _json_bytes(source)))
            meta = grow_trace(source, path, reps)
            meta["size_mb"] = size_mb
            with open(path + ".meta.json", "w") as f:
                json.dump(meta, f, indent=1)
            code = 0
        except BaseException as e:  # noqa: B902: the child reports and exits, whatever happened
            print(f"bench_import: growing {source}: {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            sys.stdout.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench_import: could not grow {source}")
    with open(path + ".meta.json") as f:
        return json.load(f)


def grown_trace(source, size_mb, regenerate=False, path=None):
    """The grown trace of source of at least size_mb MB (whole repetitions), reused when its sidecar says
    it was grown from the same file (path, bytes, mtime) to the same size by this version."""
    if not os.path.isfile(source):
        raise SystemExit(f"bench_import: --grow {source}: no such trace (the public traces are in {PUBLIC_TRACES})")
    path = path or grown_path(source, size_mb)
    st = os.stat(source)
    want = (GROW_VERSION, os.path.abspath(source), st.st_size, st.st_mtime_ns, size_mb)
    try:
        with open(path + ".meta.json") as f:
            meta = json.load(f)
        got = tuple(meta.get(k) for k in ("grow_version", "source", "source_bytes", "source_mtime_ns", "size_mb"))
        if not regenerate and got == want and meta.get("bytes") == os.path.getsize(path):
            print(f"reusing {path} ({meta['bytes'] / MB:.1f} MB, {meta['repetitions']} x {os.path.basename(source)})")
            return meta
    except (OSError, ValueError):
        pass
    meta = _grow_in_child(source, path, size_mb)
    print(f"wrote {path}: {meta['repetitions']} x {os.path.basename(source)}, {meta['events']} events, "
          f"{meta['bytes'] / MB:.1f} MB in {meta['seconds']} s")
    return meta


# ---------------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------------

PY_RSS_FACTOR = 6   # json.load of this layout peaks at ~4.5x the file size; skipped when MemAvailable is below 6x
PY_LOAD = ("import gzip, json, sys\n"
           "p = sys.argv[1]\n"
           "with (gzip.open(p, 'rt', encoding='utf-8') if p.endswith('.gz') else open(p, encoding='utf-8')) as f:\n"
           "    d = json.load(f)\n"
           "print(len(d['traceEvents']), 'events')\n")


# HolisticTraceAnalysis (PyPI), the peer users would otherwise pick: its TraceAnalysis reads a folder of
# per-rank traces (its own parser, pandas DataFrames). --hta names a python that has it installed.
HTA_LOAD = ("import sys\n"
            "from hta.trace_analysis import TraceAnalysis\n"
            "a = TraceAnalysis(trace_dir=sys.argv[1])\n"
            "print(len(a.t.get_trace(a.t.get_ranks()[0])), 'events')\n")


def hta_folder(path, workdir):
    """A folder holding only this trace (a symlink), as HTA's TraceAnalysis wants."""
    folder = os.path.join(workdir, "hta-" + re.sub(r"[^A-Za-z0-9]+", "_", os.path.basename(path)))
    os.makedirs(folder, exist_ok=True)
    link = os.path.join(folder, os.path.basename(path))
    if not os.path.islink(link):
        os.symlink(os.path.abspath(path), link)
    return folder


def run_child(cmd, stdout_path):
    """Runs cmd, returns (wall seconds, peak RSS KiB, exit code); stdout/stderr go to files."""
    with open(stdout_path, "wb") as out, open(stdout_path + ".err", "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)   # reaped by wait4; tell Popen
    return wall, usage.ru_maxrss, p.returncode


def warm_cache(path):
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)


def measure(tools, repeat, size_bytes, workdir):
    """Runs each (label, cmd) of tools `repeat` times, interleaved (a, b, a, b, ...) so that a change in the
    machine's load hits both alike; returns label -> median wall, max RSS and the derived figures."""
    samples = {label: {"walls": [], "rss": [], "loads": []} for label, _ in tools}
    failed = {}
    for i in range(repeat):
        for label, cmd in tools:
            if label in failed:
                continue
            out = os.path.join(workdir, re.sub(r"[^A-Za-z0-9]+", "_", label) + ".out")
            load = os.getloadavg()[0]
            wall, maxrss, rc = run_child(cmd, out)
            if rc != 0:
                with open(out + ".err", errors="replace") as f:
                    err = f.read()[-2000:]
                print(f"  {label}: exit {rc} (run {i + 1})\n{err}")
                failed[label] = {"tool": label, "cmd": cmd, "failed": True, "exit_code": rc, "stderr_tail": err}
                continue
            s = samples[label]
            with open(out + ".err", errors="replace") as f:
                m = IMPORT_TIMING.search(f.read())
            if m:
                s.setdefault("import_s", []).append(float(m.group(1)))
            s["walls"].append(wall)
            s["rss"].append(maxrss)
            s["loads"].append(round(load, 2))
            s["stdout"] = out
            print(f"  {label} run {i + 1}/{repeat}: {wall:.2f} s, peak RSS {maxrss / 1024:.0f} MiB  (load {load:.2f})",
                  flush=True)
    results = {}
    for label, cmd in tools:
        if label in failed:
            results[label] = failed[label]
            continue
        s = samples[label]
        wall = statistics.median(s["walls"])
        peak = max(s["rss"]) * 1024
        results[label] = {"tool": label, "cmd": cmd, "walls_s": [round(w, 3) for w in s["walls"]], "wall_s": round(wall, 3),
                          "mb_per_s": round(size_bytes / MB / wall, 2), "peak_rss_bytes": peak,
                          "peak_rss_mib": round(peak / MIB, 1), "rss_over_file": round(peak / size_bytes, 3),
                          "load_avg_at_start": s["loads"], "stdout": s["stdout"]}
        if s.get("import_s"):
            imp = statistics.median(s["import_s"])
            results[label]["import_s"] = round(imp, 3)
            results[label]["import_mb_per_s"] = round(size_bytes / MB / imp, 2)
    return results


# attnwb inspect --timing: "read 301.3 MB of JSON in 0.461 s (654 MB/s)"
IMPORT_TIMING = re.compile(r"of JSON in ([\d.]+) s")


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


SUMMARY = re.compile(r"(\d+) events \(([^)]*)\), (\d+) CPU thread\(s\), (?:\d+ device stream\(s\), )?(\d+) memory events, peak ([\d.]+) MiB")


def check_summary(stdout_path, meta):
    """Compares the summary line of attnwb inspect with what the generator wrote."""
    with open(stdout_path, errors="replace") as f:
        text = f.read()
    m = SUMMARY.search(text)
    if not m:
        return {"parsed": False, "note": "no summary line of the known form in attnwb's output"}
    exp = meta["expected"]
    kinds = dict((k, int(v)) for k, v in (part.rsplit(" ", 1) for part in m.group(2).split(", ") if part))
    reported = {"events": int(m.group(1)), "by_kind": kinds, "cpu_threads": int(m.group(3)),
                "memory_events": int(m.group(4)), "peak_mib": float(m.group(5))}
    want_kinds = {k: v for k, v in exp["complete_events_by_kind"].items() if v}
    issues = []
    if reported["events"] != exp["complete_events"]:
        issues.append(f"events: reported {reported['events']}, file has {exp['complete_events']} complete events")
    for k in sorted(set(want_kinds) | set(kinds)):
        if kinds.get(k, 0) != want_kinds.get(k, 0):
            issues.append(f"{k}: reported {kinds.get(k, 0)}, file has {want_kinds.get(k, 0)}")
    if reported["memory_events"] != exp["memory_events"]:
        issues.append(f"memory events: reported {reported['memory_events']}, file has {exp['memory_events']}")
    if reported["cpu_threads"] != len(exp["cpu_threads_with_events"]):
        issues.append(f"CPU threads: reported {reported['cpu_threads']}, the file's CPU pid has "
                      f"{len(exp['cpu_threads_with_events'])} (plus Kineto's 'Spans' pseudo-thread)")
    if abs(reported["peak_mib"] - exp["peak_memory_bytes"] / MIB) > 0.15:
        issues.append(f"peak memory: reported {reported['peak_mib']} MiB, replaying the file's Bytes on what was resident gives "
                      f"{exp['peak_memory_bytes'] / MIB:.1f} MiB")
    dur = re.search(r"^duration ([\d.]+) (ms|s|us)", text, re.M)
    if dur:
        value = float(dur.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[dur.group(2)]
        reported["duration_ms"] = value
        if abs(value - exp["duration_us"] / 1e3) > max(0.01, 1e-3 * exp["duration_us"] / 1e3):
            issues.append(f"duration: reported {value} ms, file spans {exp['duration_us'] / 1e3:.3f} ms")
    return {"parsed": True, "reported": reported, "issues": issues}


TINY_TRACE = """{
  "schemaVersion": 1,
  "traceEvents": [
  {
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
    "ts": 1.000, "dur": 10.000,
    "args": {
      "External id": 1,"Record function id": 0, "Ev Idx": 0
    }
  }
  ],
  "traceName": "tiny",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1700000000000000000
}
"""


def startup_baseline(args, workdir):
    """Both tools on a one-event trace: process start-up and the fixed cost of a run."""
    tiny = os.path.join(workdir, "tiny_kineto.json")
    with open(tiny, "w") as f:
        f.write(TINY_TRACE)
    print("\nstart-up (one-event trace)")
    tools = [("attnwb startup", [args.attnwb, "inspect", tiny, "--rows", "5"])]
    if not args.skip_python:
        tools.append(("python startup", [PYTHON, "-c", PY_LOAD, tiny]))
    rows = measure(tools, args.repeat, len(TINY_TRACE), workdir)
    return {label: {k: v for k, v in r.items() if k in ("wall_s", "walls_s", "peak_rss_bytes", "peak_rss_mib", "failed")}
            for label, r in rows.items()}


def verify(args, path, meta, workdir):
    """One untimed `attnwb inspect --rows 0 --json` of the trace, compared with what the generator wrote:
    calls per cpu_op name, calls and time per kernel, device time attributed to CPU rows, rows that are
    not operators of the file."""
    out = os.path.join(workdir, "verify.inspect.json")
    proc = subprocess.run([args.attnwb, "inspect", path, "--rows", "0", "--quiet", "--json", out],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        print(f"verify: attnwb inspect exit {proc.returncode}: {proc.stderr[-500:]}")
        return {"exit_code": proc.returncode}
    with open(out) as f:
        trace = json.load(f)["traces"][0]
    exp = meta["expected"]
    issues = []
    rows = {}
    for r in trace["operators"]:
        rows.setdefault((r["name"], r["device_type"]), r)
    for name, calls in exp["op_calls"].items():
        got = rows.get((name, "cpu"), {}).get("calls", 0)
        if got != calls:
            issues.append(f"cpu_op {name}: {got} calls in the table, {calls} in the file")
    kernels = {}  # the table has a row per launch configuration (grid, block, ...): summed by name
    for k in trace.get("kernels", []):
        if k.get("kind", "kernel") != "kernel":
            continue  # copies and sets: the file's kernels are kernels only
        got = kernels.setdefault(k["name"], {"calls": 0, "total_us": 0.0})
        got["calls"] += k["calls"]
        got["total_us"] += k["total_us"]
    for name, k in exp["kernels"].items():
        got = kernels.get(name)
        if not got:
            issues.append(f"kernel missing from the kernel table: {name[:80]}")
        elif got["calls"] != k["calls"] or abs(got["total_us"] - k["total_us"]) > 1e-3 * k["total_us"] + 0.01:
            issues.append(f"kernel {name[:60]}...: {got['calls']} calls / {got['total_us']:.1f} us in the table, "
                          f"{k['calls']} / {k['total_us']:.1f} us in the file")
    for name in kernels:
        if name not in exp["kernels"]:
            issues.append(f"kernel table has a name the file does not: {name[:80]}")
    # Device time: each kernel/copy should be attributed once (to the op that launched it).
    name_cat = {n: cat for cat, names in exp["cpu_side_names"].items() for n in names}
    busy = exp["device_busy_us"]
    by_cat = {}
    for r in trace["operators"]:
        if r["device_type"] == "cpu" and r["self_device_us"]:
            cat = "cpu_op" if r["name"] in exp["op_calls"] else name_cat.get(r["name"], "user_annotation")
            by_cat[cat] = by_cat.get(cat, 0.0) + r["self_device_us"]
    attributed = sum(by_cat.values())
    device = {"kernels_copies_memsets_us": busy, "self_device_on_cpu_rows_us": round(attributed, 3),
              "self_device_on_cpu_rows_by_category_us": {k: round(v, 3) for k, v in sorted(by_cat.items())}}
    if attributed > 1.01 * busy:
        parts = ", ".join(f"{k} rows {v / 1e3:.1f} ms" for k, v in sorted(by_cat.items()))
        issues.append(f"self device time on CPU rows sums to {attributed / 1e3:.1f} ms, the file's kernels, copies and "
                      f"memsets to {busy / 1e3:.1f} ms ({attributed / busy:.2f}x): {parts}")
    # Rows that are not operators (cpu_op) of the file, by the category of the events they come from.
    extra = {}
    for r in trace["operators"]:
        if r["device_type"] == "cpu" and r["name"] not in exp["op_calls"]:
            cat = name_cat.get(r["name"], "user_annotation" if r["name"].endswith("*") else "?")
            extra.setdefault(cat, []).append(r["name"])
    result = {"issues": issues, "device_time": device,
              "non_operator_rows": {cat: {"rows": len(v), "examples": v[:4]} for cat, v in sorted(extra.items())}}
    print(f"\nverify (attnwb inspect --rows 0 --json, untimed): {len(trace['operators'])} table rows, "
          f"{len(kernels)} kernel names ({len(exp['kernels'])} in the file)")
    for line in issues[:12]:
        print("  MISMATCH " + line)
    if len(issues) > 12:
        print(f"  ... {len(issues) - 12} more")
    if not issues:
        print("  cpu_op calls, kernel calls and times, device time: as in the file")
    for cat, v in sorted(extra.items()):
        print(f"  rows from {cat} events (not cpu_op): {len(v)}, e.g. {', '.join(v[:3])}")
    return result


# What `attnwb inspect --rows 0 --breakdown --json` of a grown trace must show: every figure below
# is repetitions x the source's (times within 1 ns x repetitions; counts and bytes exact) or the same.
OP_ADDITIVE = ("calls", "self_cpu_us", "cpu_total_us", "self_device_us", "device_total_us", "cpu_memory_bytes",
               "self_cpu_memory_bytes", "device_memory_bytes", "self_device_memory_bytes")
KERNEL_ADDITIVE = ("calls", "total_us")
KERNEL_SAME = ("min_us", "max_us", "avg_us")
CLASS_ADDITIVE = ("calls", "total_us")
BREAKDOWN_ADDITIVE = ("events", "busy_us", "computation_us", "communication_us", "memcpy_us", "memset_us",
                      "exposed_communication_us", "exposed_memcpy_us")
SUMMARY_ADDITIVE = ("events", "memory_events", "flow_events", "instant_events", "counter_events")
SUMMARY_SAME = ("metadata_events", "cpu_threads", "device_streams")


def inspect_json(attnwb, path, out):
    """attnwb inspect --rows 0 --breakdown --json of one trace: its traces[0]."""
    proc = subprocess.run([attnwb, "inspect", path, "--rows", "0", "--quiet", "--breakdown", "--json", out],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"attnwb inspect {path}: exit {proc.returncode}: {proc.stderr[-500:]}")
    with open(out) as f:
        return json.load(f)["traces"][0]


def _flat_breakdown(row):
    flat = {f: row.get(f) or 0 for f in BREAKDOWN_ADDITIVE}
    flat.update({f"{c}_us (class)": v["us"] for c, v in (row.get("by_class") or {}).items()})
    return flat


def _sum_rows(rows, key, fields=None):
    """key(row) -> {field: sum over the rows of that key}."""
    out = {}
    for r in rows:
        acc = out.setdefault(key(r), {})
        for f in fields or r:
            acc[f] = acc.get(f, 0) + (r.get(f) or 0)
    return out


def _compare(what, orig, grown, factor, reps, issues):
    """grown[key][field] == factor x orig[key][field] for every key and field of either; returns how many
    figures were compared. Times (fields ending in _us) may differ by 1 ns x repetitions."""
    n = 0
    for key in sorted(set(orig) | set(grown), key=str):
        a, g = orig.get(key, {}), grown.get(key, {})
        for f in sorted(set(a) | set(g)):
            want, got = factor * a.get(f, 0), g.get(f, 0)
            tol = 0.001 * reps if f.endswith("_us") or f.endswith("(class)") else 0
            n += 1
            if abs(got - want) > tol + 1e-9 * abs(want):
                issues.append(f"{what} {key} {f}: {got} in the grown trace, {factor} x {a.get(f, 0)} = {want} expected")
    return n


def grown_mismatches(orig, grown, reps):
    """Compares attnwb's results (inspect_json) of a trace grown `reps` times with those of its source:
    operators (calls, self/total CPU and device time, memory), kernels (calls, totals; min/max/avg the
    same), kernel classes, the GPU time breakdown per (rank, device, step) (busy, computation,
    communication, memcpy, memset, exposed, per class; copy r's ProfilerStep#N folded back on the source's)
    and the event counts. Returns (issues, figures compared)."""
    issues, n = [], 0
    op_key = lambda r: (r["name"], r["device_type"])
    n += _compare("operator", _sum_rows(orig["operators"], op_key, OP_ADDITIVE),
                  _sum_rows(grown["operators"], op_key, OP_ADDITIVE), reps, reps, issues)
    k_key = lambda r: (r["name"], r.get("device"), r.get("kind"), str(r.get("grid")), str(r.get("block")))
    n += _compare("kernel", _sum_rows(orig["kernels"], k_key, KERNEL_ADDITIVE),
                  _sum_rows(grown["kernels"], k_key, KERNEL_ADDITIVE), reps, reps, issues)
    same = lambda rows: {k_key(r): {f: r.get(f) or 0 for f in KERNEL_SAME} for r in rows}
    n += _compare("kernel", same(orig["kernels"]), same(grown["kernels"]), 1, reps, issues)
    c_key = lambda r: (r.get("device"), r["class"], r["name"])
    n += _compare("kernel class", _sum_rows(orig.get("kernel_classes") or [], c_key, CLASS_ADDITIVE),
                  _sum_rows(grown.get("kernel_classes") or [], c_key, CLASS_ADDITIVE), reps, reps, issues)
    steps = sorted({r["step"] for r in orig.get("gpu_breakdown") or [] if r.get("step") is not None})
    fold = lambda n: n if n is None or not steps else steps[0] + (n - steps[0]) % (steps[-1] - steps[0] + 1)
    b_key = lambda r: (r.get("rank"), r.get("device"), fold(r.get("step")))   # copy r's steps are N + r x steps
    flat = lambda t: [dict(_flat_breakdown(r), key=b_key(r)) for r in t.get("gpu_breakdown") or []]
    n += _compare("breakdown", _sum_rows(flat(orig), lambda r: r.pop("key")),
                  _sum_rows(flat(grown), lambda r: r.pop("key")), reps, reps, issues)
    n += _compare_summary(orig["summary"], grown["summary"], reps, issues)
    return issues, n


def _compare_summary(orig, grown, reps, issues):
    n = _compare("summary", {"": {f: orig.get(f) or 0 for f in SUMMARY_ADDITIVE}},
                 {"": {f: grown.get(f) or 0 for f in SUMMARY_ADDITIVE}}, reps, reps, issues)
    n += _compare("summary", {"": {f: orig.get(f) or 0 for f in SUMMARY_SAME}},
                  {"": {f: grown.get(f) or 0 for f in SUMMARY_SAME}}, 1, reps, issues)
    n += _compare("events of kind", {"": orig.get("events_by_kind") or {}}, {"": grown.get("events_by_kind") or {}},
                  reps, reps, issues)
    cats = lambda s: {k: v for k, v in (s.get("events_by_category") or {}).items() if k != "M"}
    return n + _compare("events of category", {"": cats(orig)}, {"": cats(grown)}, reps, reps, issues)


def verify_grown(args, meta, workdir):
    """One untimed attnwb inspect --rows 0 --breakdown --json of the source and of the grown trace:
    the grown one's results must be repetitions x the source's (grown_mismatches)."""
    try:
        orig = inspect_json(args.attnwb, meta["source"], os.path.join(workdir, "verify.source.inspect.json"))
        grown = inspect_json(args.attnwb, meta["path"], os.path.join(workdir, "verify.grown.inspect.json"))
    except RuntimeError as e:
        print(f"verify: {e}")
        return {"error": str(e)}
    issues, n = grown_mismatches(orig, grown, meta["repetitions"])
    print(f"\nverify (attnwb inspect --rows 0 --breakdown --json of the source and the grown trace, untimed): "
          f"{n} figures compared with {meta['repetitions']} x the source's")
    for line in issues[:12]:
        print("  MISMATCH " + line)
    if len(issues) > 12:
        print(f"  ... {len(issues) - 12} more")
    if not issues:
        print("  operators, kernels, kernel classes, GPU time breakdown, event counts: as repeated")
    return {"issues": issues, "figures_compared": n}


def print_table(rows, size_bytes, title):
    print(f"\n{title}  ({size_bytes / MB:.1f} MB = {size_bytes / MIB:.1f} MiB uncompressed)")
    print(f"{'tool':<28} {'wall s (median)':>16} {'MB/s':>9} {'peak RSS MiB':>13} {'RSS / file':>11}")
    for r in rows:
        if r.get("failed"):
            print(f"{r['tool']:<28} {'failed (exit ' + str(r['exit_code']) + ')':>16}")
        elif r.get("skipped"):
            print(f"{r['tool']:<28} {'skipped':>16}  {r['skipped']}")
        else:
            print(f"{r['tool']:<28} {r['wall_s']:>16.2f} {r['mb_per_s']:>9.1f} {r['peak_rss_mib']:>13.1f} {r['rss_over_file']:>10.2f}x")


GOAL_RATIO, GOAL_IMPORT_MB_S, GOAL_RSS, GOAL_4GB_S = 10.0, 500.0, 0.6, 10.0


def compare(ours, python, startup=None, size_bytes=0):
    """Ratios and verdicts of the import goals (see the module docstring)."""
    out = {}
    met = lambda ok: "met" if ok else "NOT met"
    base = (startup or {}).get("attnwb startup")
    if ours and not ours.get("failed") and base and not base.get("failed") and ours["wall_s"] > 2 * base["wall_s"]:
        net = ours["mb_per_s"] * ours["wall_s"] / (ours["wall_s"] - base["wall_s"])
        out["attnwb_mb_per_s_without_startup"] = round(net, 2)
        print(f"attnwb without its start-up ({base['wall_s']:.2f} s, {base['peak_rss_mib']:.0f} MiB): {net:.1f} MB/s")
    if ours and not ours.get("failed"):
        if "import_mb_per_s" in ours:
            out["import_mb_per_s"] = ours["import_mb_per_s"]
            out["import_goal_met"] = ours["import_mb_per_s"] >= GOAL_IMPORT_MB_S
            print(f"attnwb import alone: {ours['import_s']:.2f} s, {ours['import_mb_per_s']:.0f} MB/s  "
                  f"(goal >= {GOAL_IMPORT_MB_S:.0f} MB/s on 2 cores: {met(out['import_goal_met'])}; {os.cpu_count()} CPUs here)")
        out["rss_over_file"] = ours["rss_over_file"]
        out["rss_goal_met"] = ours["rss_over_file"] <= GOAL_RSS
        print(f"attnwb peak RSS / file size: {ours['rss_over_file']:.2f}x  (goal <= {GOAL_RSS}x: {met(out['rss_goal_met'])})")
        if size_bytes >= 4e9:
            out["four_gb_goal_met"] = ours["wall_s"] <= GOAL_4GB_S
            print(f"attnwb inspect of {size_bytes / 1e9:.1f} GB: {ours['wall_s']:.1f} s  "
                  f"(goal <= {GOAL_4GB_S:.0f} s: {met(out['four_gb_goal_met'])})")
    if ours and python and not ours.get("failed") and not python.get("failed") and not python.get("skipped"):
        ratio = ours["mb_per_s"] / python["mb_per_s"]
        out["throughput_ratio"] = round(ratio, 3)
        out["throughput_goal_met"] = ratio >= GOAL_RATIO
        print(f"attnwb / python throughput: {ratio:.2f}x  (goal >= {GOAL_RATIO:.0f}x: {met(out['throughput_goal_met'])})")
        out["rss_ratio_vs_python"] = round(ours["peak_rss_bytes"] / python["peak_rss_bytes"], 3)
        print(f"attnwb / python peak RSS: {out['rss_ratio_vs_python']:.2f}x")
    return out


def bench_file(path, size_bytes, args, meta, workdir, title, startup=None):
    print(f"\n{title}: {path}")
    tools = [("attnwb inspect", [args.attnwb, "inspect", path, "--rows", "5", "--timing"])]
    python_label = "python gzip+json.load" if path.endswith(".gz") else "python json.load"
    avail = mem_available()
    python = None
    if args.skip_python:
        python = {"tool": python_label, "skipped": "--skip-python"}
    elif avail is not None and avail < PY_RSS_FACTOR * size_bytes:
        python = {"tool": python_label, "skipped": f"needs ~{PY_RSS_FACTOR * size_bytes / 2**30:.0f} GiB, "
                                                   f"{avail / 2**30:.0f} GiB available"}
    else:
        tools.append((python_label, [PYTHON, "-c", PY_LOAD, path]))
    if args.hta:
        tools.append(("HTA TraceAnalysis", [args.hta, "-c", HTA_LOAD, hta_folder(path, workdir)]))
    warm_cache(path)
    results = measure(tools, args.repeat, size_bytes, workdir)
    ours = results["attnwb inspect"]
    python = python or results[python_label]
    hta = results.get("HTA TraceAnalysis")
    print_table([ours, python] + ([hta] if hta else []), size_bytes, title)
    result = {"file": path, "file_bytes": os.path.getsize(path), "uncompressed_bytes": size_bytes,
              "attnwb": ours, "python": python, "comparison": compare(ours, python, startup, size_bytes)}
    if hta:
        result["hta"] = hta
        if not hta.get("failed") and not ours.get("failed"):
            result["comparison"]["hta_wall_over_attnwb"] = round(hta["wall_s"] / ours["wall_s"], 2)
            result["comparison"]["hta_rss_over_attnwb"] = round(hta["peak_rss_bytes"] / ours["peak_rss_bytes"], 2)
            print(f"HTA / attnwb: wall {hta['wall_s'] / ours['wall_s']:.1f}x, peak RSS {hta['peak_rss_bytes'] / ours['peak_rss_bytes']:.1f}x")
    if not ours.get("failed") and "expected" not in meta:
        print("check: a grown trace is checked by --verify (repetitions x the source's results)")
    elif not ours.get("failed"):
        result["check"] = check_summary(ours["stdout"], meta)
        if args.show_output:
            with open(ours["stdout"], errors="replace") as f:
                print("\n--- attnwb inspect output (last run) ---\n" + f.read().rstrip() + "\n---")
        chk = result["check"]
        if not chk["parsed"]:
            print(f"check: {chk['note']}")
        elif chk["issues"]:
            print("check against the generator: " + "; ".join(chk["issues"]))
        else:
            print("check against the generator: event counts, memory events, threads, peak and duration agree")
    return result


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("--size-mb", type=int, default=320, help="trace size in MB (10^6 bytes), default 320")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--out", help="trace path (default /tmp/awb-bench/kineto_<size>mb.json)")
    ap.add_argument("--grow", nargs="?", const=DEFAULT_REAL_TRACE, metavar="TRACE",
                    help="also time a real trace (.json or .json.gz) grown to --size-mb by repeating its events "
                         "(default TRACE: ../shared/public-traces/tracelens/mi300x_resnet_act_checkpoint.json.gz)")
    ap.add_argument("--skip-generated", action="store_true", help="with --grow: time the grown real trace only")
    ap.add_argument("--generate", action="store_true", help="only generate (and grow) the trace (reused if present), measure nothing")
    ap.add_argument("--regenerate", action="store_true", help="generate (grow, gzip) again even when a matching file exists")
    ap.add_argument("--keep", action=argparse.BooleanOptionalAction, default=True,
                    help="keep the generated files for later runs (default); --no-keep deletes them at the end")
    ap.add_argument("--attnwb", default=DEFAULT_ATTNWB, help="attnwb binary (default build/app/attnwb)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per tool (median wall, max RSS), default 3")
    ap.add_argument("--gz", action="store_true", help="also gzip the trace (level 6) and time both tools on the .gz")
    ap.add_argument("--skip-python", action="store_true", help="do not run Python's json.load (e.g. for 4 GB)")
    ap.add_argument("--hta", metavar="PYTHON",
                    help="also time HolisticTraceAnalysis loading the trace, with this python (one that has "
                         "HolisticTraceAnalysis installed, e.g. a venv: pip install HolisticTraceAnalysis)")
    ap.add_argument("--show-output", action="store_true", help="print attnwb inspect's output of the last run")
    ap.add_argument("--verify", action="store_true",
                    help="one more, untimed attnwb inspect --rows 0 --json, compared with the generator's counts "
                         "(grown trace: with repetitions x the source's results)")
    ap.add_argument("--json", help="write the figures as JSON to this file")
    args = ap.parse_args()
    if args.skip_generated and not args.grow:
        ap.error("--skip-generated needs --grow")
    return args


def check_tools(args):
    if args.hta and not (os.path.isfile(args.hta) and os.access(args.hta, os.X_OK)):
        raise SystemExit(f"bench_import: --hta {args.hta}: no such python (a venv's bin/python with HolisticTraceAnalysis)")
    args.attnwb = os.path.abspath(args.attnwb)
    if not os.access(args.attnwb, os.X_OK):
        raise SystemExit(f"bench_import: no attnwb at {args.attnwb} (build it, or pass --attnwb)")


def bench_generated(args, path, meta, workdir, startup, report):
    """The generated trace: plain JSON, --gz, --verify (report keys json, gz, verify as before)."""
    report["json"] = bench_file(path, meta["bytes"], args, meta, workdir, "plain JSON", startup)
    if args.gz:
        gz = path + ".gz"
        gzip_file(path, gz, args.regenerate)
        report["gz"] = bench_file(gz, meta["bytes"], args, meta, workdir, "gzip (level 6)", startup)
    if args.verify:
        report["verify"] = verify(args, path, meta, workdir)


def bench_grown(args, meta, workdir, startup):
    """The grown real trace: plain JSON, --gz, --verify; returns its part of the report."""
    path, size = meta["path"], meta["bytes"]
    print(f"\ngrown real trace: {meta['repetitions']} x {meta['source']} ({meta['events_per_repetition']} events "
          f"each, {meta['events']} in all)")
    out = {"trace": {k: v for k, v in meta.items() if k != "path"},
           "json": bench_file(path, size, args, meta, workdir, "grown real trace, plain JSON", startup)}
    if args.gz:
        gzip_file(path, path + ".gz", args.regenerate)
        out["gz"] = bench_file(path + ".gz", size, args, meta, workdir, "grown real trace, gzip (level 6)", startup)
    if args.verify:
        out["verify"] = verify_grown(args, meta, workdir)
    return out


def main():
    args = parse_args()
    path = args.out or f"/tmp/awb-bench/kineto_{args.size_mb}mb.json"
    meta = None if args.skip_generated else generated_trace(path, args.size_mb, args.seed, args.regenerate)
    grown = grown_trace(args.grow, args.size_mb, args.regenerate) if args.grow else None
    if args.generate:
        for k, v in (meta or {}).get("events_by_ph_cat", {}).items():
            print(f"  {k:<28} {v}")
        return 0
    check_tools(args)
    workdir = os.path.join(os.path.dirname(os.path.abspath(path)), "runs")
    os.makedirs(workdir, exist_ok=True)
    report = {"schema": "attention-workbench/bench-import", "schema_version": 1,
              "date": time.strftime("%Y-%m-%dT%H:%M:%S"), "host_cpus": os.cpu_count(), "load_avg_before": os.getloadavg(),
              "attnwb": args.attnwb, "repeat": args.repeat,
              "goals": {"throughput_ratio_min": GOAL_RATIO, "import_mb_per_s_min": GOAL_IMPORT_MB_S,
                        "rss_over_file_max": GOAL_RSS, "four_gb_wall_s_max": GOAL_4GB_S}}
    if meta:
        report["trace"] = {k: v for k, v in meta.items() if k != "path"}
    print((f"trace: {meta['events']} events in {meta['steps']} training steps; " if meta else "")
          + f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    report["startup"] = startup = startup_baseline(args, workdir)
    if meta:
        bench_generated(args, path, meta, workdir, startup, report)
    if grown:
        report["grown"] = bench_grown(args, grown, workdir, startup)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"\nwrote {args.json}")
    if not args.keep:
        for p in ([path] if meta else []) + ([grown["path"]] if grown else []):
            for q in (p, p + ".meta.json", p + ".gz"):
                if os.path.exists(q):
                    os.remove(q)
    return 0


if __name__ == "__main__":
    sys.exit(main())
