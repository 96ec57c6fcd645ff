// What the attention recognisers share (analysis/attention*.cpp; not for other files): the calls found
// so far and which ops they own, the ops' siblings, and small readers of recorded inputs.
// Pure C++ (no torch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attention.h"
#include "model/trace.h"

namespace awb::attention_detail {

// The recorded dims of input i, null when absent or empty.
const std::vector<int64_t>* input(const TraceEvent& e, int i);
// The dtype of input i as the trace names it, "" when absent.
std::string dtype_of(const TraceEvent& e, int i);
// The product of the first n dims.
int64_t product(const std::vector<int64_t>& d, size_t n);

// Each op's previous and next sibling on its thread (ops under the same parent, or top-level ones of
// the same rank and thread), -1 at either end. Python functions and other non-op spans are seen
// through: an op under `nn.Module: X` or `torch/nn/functional.py(...): softmax` is a sibling of the
// ops around that span (with_stack traces wrap every call in them).
struct Siblings {
    std::vector<int32_t> prev, next;
    explicit Siblings(const std::vector<TraceEvent>& events);
};

// The calls found so far and the ops they own.
class Calls {
public:
    explicit Calls(const Trace& trace) : events(trace.events()), instance_of(trace.events().size(), -1) {}

    // A new call whose op is event i: its op name, rank, thread and CPU span from the event.
    AttentionInstance at(int32_t i) const;
    // Adds the call, owning op i (and everything under it).
    int32_t add(AttentionInstance call, int32_t i);
    // Adds the call, owning nothing yet (the caller says which events are its).
    int32_t add_unowned(AttentionInstance call);
    // Adds the call, owning the siblings from first to last (and everything under them).
    int32_t add(AttentionInstance call, const Siblings& siblings, int32_t first, int32_t last);
    // The call that owns event i or one of its ancestors, -1 for none.
    int32_t owner(int32_t i) const;

    const std::vector<TraceEvent>& events;
    std::vector<AttentionInstance> out;
    std::vector<int32_t> instance_of;  // op -> call, -1
};

// The recognisers, in the order attention_instances runs them.
void find_op_calls(Calls& calls);      // attention_ops.cpp: SDPA and the libraries' ops (the table's op rules)
void find_manual_calls(Calls& calls);  // attention_manual.cpp: the pattern written out, forward and backward
void find_kernel_calls(Calls& calls, const Trace& trace);  // attention_kernels.cpp: kernels no call owns, by name

}  // namespace awb::attention_detail
