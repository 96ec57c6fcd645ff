#!/usr/bin/env python3
"""An independent GPU time breakdown (plain json, no attnwb code) of each fixture trace, compared with
`attnwb inspect --breakdown --json`: the whole-trace row of every (rank, device) must agree to the
nanosecond (docs/inspect.md "GPU time breakdown" has the definitions; both sides implement them separately).

    python3 tests/reference/gpu_breakdown_reference.py ATTNWB TRACE_OR_FOLDER...
"""
import decimal
import gzip
import json
import os
import subprocess
import sys
import tempfile

DEVICE_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
               "gpu_memset": "memset", "Memset": "memset"}


# Communication kernels by name: NCCL, RCCL, MSCCL, NVSHMEM, the engines' custom all-reduce, symmetric memory, DeepEP.
COMMUNICATION = ("nccl", "rccl", "msccl", "nvshmem", "cross_device_reduce", "quickreduce", "quick_reduce", "allreduce",
                 "all_reduce", "allgather", "all_gather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all",
                 "multimem", "symm_mem", "symmetric_memory", "deep_ep", "custom_ar", "lamport", "sendrecv")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        root = json.load(f, parse_float=decimal.Decimal)  # exact: a float of ts * 1000 loses ns at 1e18
    return root["traceEvents"] if isinstance(root, dict) else root, root.get("distributedInfo", {}) if isinstance(root, dict) else {}


def union(intervals):
    out = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(u):
    return sum(e - s for s, e in u)


def outside(a, b):
    return sum((e - s) - sum(max(0, min(e, y) - max(s, x)) for x, y in b) for s, e in a)


def breakdown(files):
    """{(rank, device): dict of ns figures} for the whole trace."""
    out = {}
    for path in files:
        events, dist = load(path)
        rank = int(dist.get("rank", -1))  # a file that names its rank is that rank
        per_device = {}
        for e in events:
            kind = DEVICE_CATS.get(e.get("cat"))
            if e.get("ph") != "X" or kind is None:
                continue
            # ns on the importer's rule: round(ts * 1000), duration likewise
            start = int(round(decimal.Decimal(e["ts"]) * 1000))
            end = start + int(round(decimal.Decimal(e.get("dur", 0)) * 1000))
            if kind == "kernel":  # kernel classes (core/analysis/kernel_class.h): ROCm's copy/fill kernels, communication
                name = e.get("name", "").lower()
                kind = ("memcpy" if "__amd_rocclr_copy" in name else "memset" if "__amd_rocclr_fill" in name
                        else "communication" if any(c in name for c in COMMUNICATION) else "computation")
            device = int(e.get("args", {}).get("device", 0))
            per_device.setdefault(device, []).append((kind, start, end))
        for device, items in per_device.items():
            by = {k: union([(s, e) for kk, s, e in items if kk == k])
                  for k in ("computation", "communication", "memcpy", "memset")}
            busy = union([(s, e) for _, s, e in items])
            span = max(e for _, _, e in items) - min(s for _, s, _ in items)
            out[(rank, device)] = {
                "span": span, "busy": length(busy), "idle": span - length(busy),
                "computation": length(by["computation"]), "communication": length(by["communication"]),
                "memcpy": length(by["memcpy"]), "memset": length(by["memset"]),
                "exposed_communication": outside(by["communication"], by["computation"]),
                "exposed_memcpy": outside(by["memcpy"], by["computation"]), "events": len(items)}
    return out


def main():
    attnwb, inputs = sys.argv[1], sys.argv[2:]
    failures = 0
    compared = 0
    for target in inputs:
        files = sorted(os.path.join(target, f) for f in os.listdir(target)) if os.path.isdir(target) else [target]
        expected = breakdown(files)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "i.json")
            subprocess.run([attnwb, "inspect", "--breakdown", "-q", "--rows", "1", "--json", out, target],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                rows = json.load(f)["traces"][0]["gpu_breakdown"] or []
        ours = {(-1 if r["rank"] is None else r["rank"], r["device"]): r for r in rows if r["step"] is None}
        if set(ours) != set(expected):
            print(f"FAIL {target}: devices {sorted(ours)} vs reference {sorted(expected)}")
            failures += 1
            continue
        for key, ref in expected.items():
            row = ours[key]
            for field, ns in ref.items():
                got = row["events"] if field == "events" else row[field + "_us"] * 1000
                if abs(got - ns) > 1:  # 1 ns: the JSON's microseconds are doubles
                    print(f"FAIL {target} rank {key[0]} device {key[1]}: {field} {got} vs reference {ns}")
                    failures += 1
                compared += 1
        print(f"ok {target}: {len(expected)} device(s)")
    print(f"gpu breakdown reference: {compared} figures compared, {failures} differ")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
