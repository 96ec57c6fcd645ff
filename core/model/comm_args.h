// What PyTorch records of one collective call: record_param_comms's args (which Kineto also copies onto
// the NCCL kernels the call launches): the collective's name, its message sizes in elements and dtype,
// its process group, all_to_all's splits, a send's or recv's peer and the call's sequence number. And
// a process group as a rank's distributedInfo lists it (pg_config). Pure C++: no torch, no Qt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace awb {

struct CommArgs {
    std::string collective;  // "Collective name" as torch writes it: allreduce, all_gather, _allgather_base, send, ...
    std::string dtype;       // "dtype": Float, BFloat16, ...
    int64_t in_nelems = -1;  // "In msg nelems" / "Out msg nelems": elements of this rank's input / output
    int64_t out_nelems = -1;
    int32_t group_size = -1;           // "Group size"
    std::string group_name;            // "Process Group Name": "0", "1", ...
    std::string group_desc;            // "Process Group Description": default_pg, ...
    std::vector<int32_t> group_ranks;  // "Process Group Ranks": global ranks, "[0, 1]"
    std::vector<int64_t> in_splits;    // "In split size" / "Out split size": all_to_all(v)'s rows per peer
    std::vector<int64_t> out_splits;
    int64_t seq = -1;   // "Seq": the call's number within its process group
    int32_t rank = -1;  // "Rank": the global rank that recorded it
    int32_t peer = -1;  // "Src Rank" (recv) / "Dst Rank" (send)
    bool empty() const { return collective.empty() && in_nelems < 0 && out_nelems < 0 && group_name.empty(); }
    bool operator==(const CommArgs&) const = default;
};

// A process group as distributedInfo's pg_config lists it.
struct ProcessGroup {
    std::string name;     // pg_name: "0", ...
    std::string desc;     // pg_desc: default_pg, ...
    std::string backend;  // backend_config: "cuda:nccl", "cpu:gloo", ...
    int32_t size = -1;    // pg_size
    std::vector<int32_t> ranks;
    bool operator==(const ProcessGroup&) const = default;
};

// "[0, 1, 2]" (torch writes lists as text) or "[]" -> its integers; false when the text is not such a list.
bool parse_int_list(std::string_view text, std::vector<int64_t>& out);

// Bytes of one element of torch's dtype names as record_param_comms and Kineto write them ("Float",
// "BFloat16", "c10::Half", "float", "long int", "Long", "Byte", ...); 0 when unknown.
int dtype_bytes(std::string_view dtype);

}  // namespace awb
