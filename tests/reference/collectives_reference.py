#!/usr/bin/env python3
"""Collectives across ranks computed in plain Python from the raw events of a gloo run's rank traces
(no attnwb code), compared with `attnwb inspect --collectives --json` on the same folder.

What both sides implement separately (docs/inspect.md "Collectives"):
  - a call is a c10d::* op on the calling thread (outermost); gloo runs it on a worker thread of its
    process group (send/recv on the calling thread): the k-th call's work is the first unclaimed gloo:*
    annotation of the same collective (reduce_scatter runs as gloo:all_reduce) starting at or after it;
  - bytes: the larger of the op's input and output (Input Dims of the tensor arguments), or the gloo
    annotation's tensor (times the group's size for all_gather);
  - a rank's worker threads, by id, belong to its gloo process groups in pg_config's order;
  - calls are matched by process group and order (send with recv by (src, dst) and order); skew = last
    start - first start; wait = last start - own start; transfer = the shortest duration; the straggler
    is the rank whose late arrivals cost the others the most wait;
  - overlap on the CPU: the union of a rank's calls' work against the union of its cpu_op events
    outside every collective op (what runs under gloo's open send/recv spans counts as computation).

    python3 tests/reference/collectives_reference.py ATTNWB FOLDER...
"""
import decimal
import json
import os
import subprocess
import sys
import tempfile

from gpu_breakdown_reference import union  # merged intervals, touching ones joined

PREFIX = "c10d::"
NAMES = {"allreduce": "all_reduce", "allgather": "all_gather", "allgather_base": "all_gather",
         "allgather_into_tensor_coalesced": "all_gather", "reduce_scatter_base": "reduce_scatter",
         "reduce_scatter_tensor_coalesced": "reduce_scatter", "alltoall_base": "all_to_all", "alltoall": "all_to_all",
         "broadcast": "broadcast", "send": "send", "recv": "recv", "barrier": "barrier", "reduce": "reduce"}
BYTES = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, "int": 4}


def ns(x):
    return int(round(decimal.Decimal(x) * 1000))


def name_of(raw):
    n = raw.split(":")[-1].strip("_")
    return NAMES.get(n, n)


def elements(dims):
    if not dims or any(isinstance(d, list) for d in dims):
        return None
    n = 1
    for d in dims:
        n *= d
    return n


def load_rank(path):
    with open(path) as f:
        root = json.load(f, parse_float=decimal.Decimal)
    info = root["distributedInfo"]
    base = int(root.get("baseTimeNanoseconds", 0))
    events = []
    for e in root["traceEvents"]:
        if e.get("ph") != "X" or "dur" not in e or e.get("cat") == "Trace":
            continue
        start = ns(e["ts"]) + base
        events.append({"name": e["name"], "cat": e.get("cat"), "tid": e["tid"], "start": start, "end": start + ns(e["dur"]),
                       "args": e.get("args", {})})
    events.sort(key=lambda e: (e["start"], -e["end"]))
    return info, events


def steps_of(events):
    return [(e["start"], e["end"], int(e["name"].split("#")[1])) for e in events if e["name"].startswith("ProfilerStep#")]


def calls_of(info, events, world):
    rank = info["rank"]
    steps = steps_of(events)
    ops = [e for e in events if e["cat"] == "cpu_op" and e["name"].startswith(PREFIX) and name_of(e["name"]) in NAMES.values()]
    # outermost only: an op inside another c10d op is part of it
    ops = [o for o in ops if not any(p is not o and p["tid"] == o["tid"] and p["start"] <= o["start"] and o["end"] <= p["end"] for p in ops)]
    gloo = [e for e in events if e["name"].startswith("gloo:")]
    claimed = set()
    calls = []
    for op in ops:
        name = name_of(op["name"])
        call = {"rank": rank, "name": name, "op": op, "start": op["start"], "end": op["end"], "work_tid": None}
        for i, g in enumerate(gloo):
            gname = name_of(g["name"])
            if i in claimed or g["start"] < op["start"] or not (gname == name or (name == "reduce_scatter" and gname == "all_reduce")):
                continue
            claimed.add(i)
            call.update(start=g["start"], end=g["end"], work_tid=g["tid"], annotation=g)
            break
        conc = op["args"].get("Concrete Inputs", [])
        if name in ("send", "recv"):
            call["peer"] = int(conc[2])
        dims, types = op["args"].get("Input Dims", []), op["args"].get("Input type", [])
        sizes = [elements(d) for d in dims[:2]]
        if len(sizes) == 2 and None not in sizes and types[0] in BYTES:
            call["bytes"] = max(sizes) * BYTES[types[0]]
        elif "annotation" in call:
            a = call["annotation"]["args"]
            n = elements(a["Input Dims"][0]) * BYTES[a["Input type"][0]]
            call["bytes"] = n * (world if name == "all_gather" else 1)
        call["step"] = next((k for s, e, k in steps if s <= op["start"] < e), -1)
        calls.append(call)
    # process groups of the worker threads
    groups = [g for g in info.get("pg_config", []) if rank in g["ranks"] and "gloo" in g["backend_config"]]
    workers = sorted({c["work_tid"] for c in calls if c["work_tid"] is not None and c["work_tid"] != c["op"]["tid"]})
    per = len(workers) // len(groups) if groups and len(workers) % len(groups) == 0 else 0
    for c in calls:
        c["group"] = ""
        if per and c["work_tid"] in workers:
            c["group"] = groups[workers.index(c["work_tid"]) // per]["pg_name"]
    cpu = [e for e in events if e["cat"] == "cpu_op"]
    return calls, cpu


def inside(a, b):
    return sum(max(0, min(e, y) - max(s, x)) for s, e in a for x, y in b)


def reference(folder):
    ranks = {}
    for f in sorted(os.listdir(folder)):
        info, events = load_rank(os.path.join(folder, f))
        calls, cpu = calls_of(info, events, info["world_size"])
        ranks[info["rank"]] = (info, calls, cpu)
    sequences = {}
    for rank, (info, calls, _) in ranks.items():
        for c in sorted(calls, key=lambda c: c["op"]["start"]):
            if c["name"] in ("send", "recv"):
                src, dst = (rank, c["peer"]) if c["name"] == "send" else (c["peer"], rank)
                key = ("p2p", f"{src}->{dst}")
            else:
                key = ("group", c["group"])
            sequences.setdefault(key, {}).setdefault(rank, []).append(c)
    matched = []
    for (kind, group), by_rank in sequences.items():
        for k in range(min(len(v) for v in by_rank.values())):
            cs = [by_rank[r][k] for r in sorted(by_rank)]
            last = max(c["start"] for c in cs)
            lasts = [c["rank"] for c in cs if c["start"] == last]
            matched.append({"name": "send_recv" if kind == "p2p" else cs[0]["name"], "group": group, "index": k,
                            "bytes": max(c.get("bytes", -1) for c in cs), "skew": last - min(c["start"] for c in cs),
                            "transfer": min(c["end"] - c["start"] for c in cs),
                            "waits": {c["rank"]: last - c["start"] for c in cs},
                            "last": lasts[0] if last > min(c["start"] for c in cs) else None})
    caused = {}
    for m in matched:
        if m["last"] is not None:
            caused[m["last"]] = caused.get(m["last"], 0) + sum(m["waits"].values())
    straggler = max(caused, key=lambda r: caused[r]) if caused and max(caused.values()) > 0 else None
    overlap = {}
    for rank, (info, calls, cpu) in ranks.items():
        comm = union([(c["start"], c["end"]) for c in calls])
        spans = [(c["op"]["start"], c["op"]["end"], c["op"]["tid"]) for c in calls]
        comp = union([(e["start"], e["end"]) for e in cpu
                      if not any(t == e["tid"] and s <= e["start"] and e["end"] <= x for s, x, t in spans)])
        overlap[rank] = (sum(e - s for s, e in comm), inside(comm, comp))
    return matched, straggler, overlap


def main():
    attnwb, folders = sys.argv[1], sys.argv[2:]
    failures = compared = 0
    for folder in folders:
        matched, straggler, overlap = reference(folder)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "c.json")
            subprocess.run([attnwb, "inspect", "--collectives", "-q", "--rows", "1", "--json", out, folder], check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                ours = json.load(f)["traces"][0]["collectives"]

        def check(what, got, want):
            nonlocal failures, compared
            compared += 1
            if got != want:
                failures += 1
                print(f"FAIL {folder}: {what}: attnwb {got}, reference {want}")

        check("matched collectives", len(ours["calls"]), len(matched))
        by_key = {(c["name"], c["group"], c["index"]): c for c in ours["calls"]}
        for m in matched:
            c = by_key.get((m["name"], m["group"], m["index"]))
            key = f"{m['name']} group {m['group']} #{m['index']}"
            if c is None:
                check(key, None, "present")
                continue
            check(key + " bytes", c["bytes"], m["bytes"])
            check(key + " skew_ns", c["skew_ns"], m["skew"])
            check(key + " transfer_ns", c["transfer_ns"], m["transfer"])
            check(key + " waits", {r["rank"]: r["wait_ns"] for r in c["ranks"]}, m["waits"])
            check(key + " last rank", c["last_rank"], m["last"])
        check("straggler", ours["straggler"]["rank"] if ours["straggler"] else None, straggler)
        whole = {o["rank"]: (o["comm_ns"], o["hidden_ns"]) for o in ours["overlap"] if o["step"] == -1}
        check("overlap (comm, hidden) per rank", whole, overlap)
        print(f"ok {folder}: {len(matched)} collectives" if not failures else f"{folder}: {failures} difference(s) so far")
    print(f"collectives reference: {compared} figures compared, {failures} differ")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
