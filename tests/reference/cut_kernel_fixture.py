#!/usr/bin/env python3
"""Cuts a small trace from a public Kineto trace: the first launch of each distinct kernel, its runtime
call, the op that launched it and the ops around that op on its thread (so the launching op and its
ancestors, e.g. aten::convolution, are there), with the trace's metadata and deviceProperties.
Usage: cut_kernel_fixture.py IN.json.gz OUT.json.gz"""
import gzip, json, sys

src, dst = sys.argv[1], sys.argv[2]
d = json.load(gzip.open(src))
ev = d['traceEvents']
first = {}
for e in ev:
    if e.get('cat') == 'kernel' and e.get('ph') == 'X' and e['name'] not in first:
        first[e['name']] = e
corr = {e['args'].get('correlation') for e in first.values()}
runtime = [e for e in ev if e.get('cat') in ('cuda_runtime', 'cuda_driver') and e.get('args', {}).get('correlation') in corr]
ext = {e['args'].get('External id') for e in list(first.values()) + runtime} - {None}
ops = [e for e in ev if e.get('cat') == 'cpu_op' and e.get('args', {}).get('External id') in ext]
keep_ops = {id(e) for e in ops}
for op in ops:  # the enclosing ops on the same thread
    for e in ev:
        if e.get('cat') == 'cpu_op' and e.get('tid') == op.get('tid') and e.get('pid') == op.get('pid') \
                and e['ts'] <= op['ts'] and e['ts'] + e.get('dur', 0) >= op['ts'] + op.get('dur', 0):
            keep_ops.add(id(e))
keep = [e for e in ev if e.get('ph') == 'M' or id(e) in keep_ops] + runtime + list(first.values())
out = {k: v for k, v in d.items() if k != 'traceEvents'}
out['traceEvents'] = keep
with gzip.open(dst, 'wt', compresslevel=9) as f:
    json.dump(out, f)
print(len(first), 'kernels,', len(runtime), 'runtime calls,', len(keep_ops), 'ops')
