#include "io/trace_fields.h"

#include <array>
#include <climits>
#include <cmath>
#include <functional>
#include <initializer_list>

namespace awb::trace_io {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

bool is_number(const element& v) {
    const element_type t = v.type();
    return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

// Integers as they are; doubles (1.0e3, 12.0) truncated when they fit; anything else is not read.
bool read_int(const element& v, int64_t& out) {
    switch (v.type()) {
        case element_type::INT64: return !v.get_int64().get(out);
        case element_type::UINT64: return false;  // above INT64_MAX
        case element_type::DOUBLE: {
            double d = 0;
            if (v.get_double().get(d) || !std::isfinite(d) || std::fabs(d) > 9.2e18) return false;
            out = int64_t(d);
            return true;
        }
        default: return false;
    }
}

bool read_double(const element& v, double& out) {
    return is_number(v) && !v.get_double().get(out) && std::isfinite(out);
}

bool read_string(const element& v, std::string_view& out) {
    return v.type() == element_type::STRING && !v.get_string().get(out);
}

// Microseconds as nanoseconds: integers exactly, doubles rounded to the nanosecond (exact below
// 9e12 us, far beyond any relative Kineto timestamp). At most 2e15 us (absolute epoch microseconds
// until 2033), and baseTimeNanoseconds at most 2e18, so start + duration + base cannot overflow.
constexpr int64_t kMaxUs = 2000000000000000;
bool read_us(const element& v, int64_t& ns) {
    int64_t us = 0;
    if (v.type() == element_type::INT64 && !v.get_int64().get(us)) {
        if (us <= -kMaxUs || us >= kMaxUs) return false;
        ns = us * 1000;
        return true;
    }
    double d = 0;
    if (v.type() != element_type::DOUBLE || v.get_double().get(d) || !(std::fabs(d) < double(kMaxUs))) return false;
    ns = int64_t(std::llround(d * 1000.0));
    return true;
}

// A number or a string id (pid/tid).
bool read_id(const element& v, uint64_t& out, std::string_view& text) {
    if (v.type() == element_type::STRING) {
        if (v.get_string().get(text)) return false;
        out = id_of_string(text);
        return true;
    }
    if (v.type() == element_type::UINT64) return !v.get_uint64().get(out);
    int64_t n = 0;
    if (!read_int(v, n)) return false;
    out = uint64_t(n);
    return true;
}

// "a.py(3): f;b.py(7): g" -> its frames.
void read_stack(const element& v, std::vector<std::string>& out) {
    std::string_view text;
    if (!read_string(v, text)) return;
    while (!text.empty()) {
        const size_t cut = text.find(';');
        out.emplace_back(text.substr(0, cut));
        text = cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1);
    }
}

void read_triple(const element& v, std::array<int32_t, 3>& out) {
    simdjson::dom::array a;
    if (v.get_array().get(a)) return;
    size_t i = 0;
    for (element x : a) {
        int64_t n = 0;
        if (i >= 3) break;
        if (read_int(x, n)) out[i] = int32_t(n);
        ++i;
    }
}

void read_dims(const element& v, std::vector<std::vector<int64_t>>& out) {
    simdjson::dom::array a;
    if (v.get_array().get(a)) return;
    for (element shape : a) {
        std::vector<int64_t> s;
        simdjson::dom::array dims;
        if (!shape.get_array().get(dims))
            for (element d : dims) {
                int64_t n = 0;
                if (read_int(d, n)) s.push_back(n);  // lists of tensors ([[2, 3], [2, 3]]) stay empty
            }
        out.push_back(std::move(s));
    }
}

// A list torch writes as text ("[0, 1]") or, in other writers, as a JSON array of integers.
void read_int_list(const element& v, std::vector<int64_t>& out) {
    std::string_view text;
    if (read_string(v, text)) {
        parse_int_list(text, out);
        return;
    }
    simdjson::dom::array a;
    if (v.get_array().get(a)) return;
    for (element x : a) {
        int64_t n = 0;
        if (read_int(x, n)) out.push_back(n);
    }
}

void read_rank_list(const element& v, std::vector<int32_t>& out) {
    std::vector<int64_t> ranks;
    read_int_list(v, ranks);
    out.assign(ranks.begin(), ranks.end());
}

void read_int32(const element& v, int32_t& out) {
    int64_t n = 0;
    if (read_int(v, n) && n >= INT32_MIN && n <= INT32_MAX) out = int32_t(n);
}

void read_text(const element& v, std::string& out) {
    std::string_view s;
    if (read_string(v, s))
        out = s;
    else if (int64_t n = 0; read_int(v, n))
        out = std::to_string(n);  // a group named by a number
}

void read_types(const element& v, std::vector<std::string>& out) {
    simdjson::dom::array a;
    if (v.get_array().get(a)) return;
    for (element x : a) {
        std::string_view s;
        out.emplace_back(read_string(x, s) ? std::string(s) : std::string());
    }
}

// Keys to readers, looked up once per field of every event: open addressing on the key's length and
// three of its bytes, which tell the few dozen keys apart in one or two probes (a std::unordered_map
// hashes every byte of every key).
template <class Reader>
class KeyTable {
public:
    KeyTable(std::initializer_list<std::pair<std::string_view, Reader>> entries) {
        for (const auto& [key, reader] : entries) add(key, reader);
    }
    void add(std::string_view key, Reader reader) {
        size_t i = slot(key);
        while (slots_[i].reader) i = (i + 1) % kSlots;
        slots_[i] = {key, reader};
    }
    Reader find(std::string_view key) const {
        for (size_t i = slot(key);; i = (i + 1) % kSlots) {
            if (!slots_[i].reader) return nullptr;
            if (slots_[i].key == key) return slots_[i].reader;
        }
    }

private:
    static constexpr size_t kSlots = 128;  // at least twice the keys
    static size_t slot(std::string_view k) {
        if (k.empty()) return 0;
        return (k.size() * 31 + uint8_t(k[0]) * 7 + uint8_t(k[k.size() / 2]) * 3 + uint8_t(k.back())) % kSlots;
    }
    struct Slot {
        std::string_view key;
        Reader reader = nullptr;
    };
    std::array<Slot, kSlots> slots_{};
};

// The keys of "args" and how each is read. A launch field also marks the event as carrying a launch
// configuration (grid, block, registers, ...: kernels, copies and sets).
using ArgReader = void (*)(const element&, RawEvent&);
// A collective's record: record_param_comms, and the NCCL kernels Kineto copies it onto.
void add_comm_readers(KeyTable<ArgReader>& t) {
    const std::pair<std::string_view, ArgReader> readers[] = {
        {"Collective name", [](const element& v, RawEvent& r) { read_text(v, r.comm.collective); }},
        {"dtype", [](const element& v, RawEvent& r) { read_text(v, r.comm.dtype); }},
        {"In msg nelems", [](const element& v, RawEvent& r) { read_int(v, r.comm.in_nelems); }},
        {"Out msg nelems", [](const element& v, RawEvent& r) { read_int(v, r.comm.out_nelems); }},
        {"Group size", [](const element& v, RawEvent& r) { read_int32(v, r.comm.group_size); }},
        {"Process Group Name", [](const element& v, RawEvent& r) { read_text(v, r.comm.group_name); }},
        {"Process Group Description", [](const element& v, RawEvent& r) { read_text(v, r.comm.group_desc); }},
        {"Process Group Ranks", [](const element& v, RawEvent& r) { read_rank_list(v, r.comm.group_ranks); }},
        {"In split size", [](const element& v, RawEvent& r) { read_int_list(v, r.comm.in_splits); }},
        {"Out split size", [](const element& v, RawEvent& r) { read_int_list(v, r.comm.out_splits); }},
        {"Seq", [](const element& v, RawEvent& r) { read_int(v, r.comm.seq); }},
        {"Rank", [](const element& v, RawEvent& r) { read_int32(v, r.comm.rank); }},
        {"Src Rank", [](const element& v, RawEvent& r) { read_int32(v, r.comm.peer); }},
        {"Dst Rank", [](const element& v, RawEvent& r) { read_int32(v, r.comm.peer); }},
        {"Global rank start", [](const element& v, RawEvent& r) { read_int(v, r.global_rank_start); }},
        {"Global rank stride", [](const element& v, RawEvent& r) { read_int(v, r.global_rank_stride); }},
    };
    for (const auto& [key, reader] : readers) t.add(key, reader);
}

// A table, one reader a line (left as laid out by hand):
// clang-format off
const KeyTable<ArgReader>& arg_readers() {
    static const KeyTable<ArgReader> table = [] {
        KeyTable<ArgReader> t = {
            {"External id", [](const element& v, RawEvent& r) { read_int(v, r.external_id); }},
            {"correlation", [](const element& v, RawEvent& r) { read_int(v, r.correlation); }},
            {"Sequence number", [](const element& v, RawEvent& r) { read_int(v, r.sequence_nr); }},
            {"Fwd thread id", [](const element& v, RawEvent& r) { read_int(v, r.fwd_thread); }},
            {"Input Dims", [](const element& v, RawEvent& r) { read_dims(v, r.shapes); }},
            {"Input type", [](const element& v, RawEvent& r) { read_types(v, r.dtypes); }},
            {"Concrete Inputs", [](const element& v, RawEvent& r) { read_types(v, r.concrete); }},
            {"device", [](const element& v, RawEvent& r) { read_int(v, r.device); }},
            {"stream", [](const element& v, RawEvent& r) { read_int(v, r.stream); }},
            {"grid", [](const element& v, RawEvent& r) {
                 read_triple(v, r.launch.grid);
                 r.has_launch = true;
             }},
            {"block", [](const element& v, RawEvent& r) {
                 read_triple(v, r.launch.block);
                 r.has_launch = true;
             }},
            {"registers per thread",
             [](const element& v, RawEvent& r) {
                 int64_t n = 0;
                 if (read_int(v, n)) r.launch.registers_per_thread = int32_t(n);
                 r.has_launch = true;
             }},
            {"shared memory", [](const element& v, RawEvent& r) {
                 read_int(v, r.launch.shared_memory_bytes);
                 r.has_launch = true;
             }},
            {"blocks per SM", [](const element& v, RawEvent& r) {
                 read_double(v, r.launch.blocks_per_sm);
                 r.has_launch = true;
             }},
            {"warps per SM", [](const element& v, RawEvent& r) {
                 read_double(v, r.launch.warps_per_sm);
                 r.has_launch = true;
             }},
            {"est. achieved occupancy %", [](const element& v, RawEvent& r) {
                 read_double(v, r.launch.occupancy_pct);
                 r.has_launch = true;
             }},
            {"bytes", [](const element& v, RawEvent& r) {
                 read_int(v, r.launch.bytes);
                 r.has_launch = true;
             }},
            {"memory bandwidth (GB/s)", [](const element& v, RawEvent& r) {
                 read_double(v, r.launch.bandwidth_gb_s);
                 r.has_launch = true;
             }},
            {"Device Type", [](const element& v, RawEvent& r) { read_int(v, r.device_type); }},
            {"Device Id", [](const element& v, RawEvent& r) { read_int(v, r.device_id); }},
            {"Bytes", [](const element& v, RawEvent& r) { r.bad_bytes = !read_int(v, r.bytes); }},
            {"Total Allocated", [](const element& v, RawEvent& r) { read_int(v, r.total_allocated); }},
            {"Total Reserved", [](const element& v, RawEvent& r) { read_int(v, r.total_reserved); }},
            {"name", [](const element& v, RawEvent& r) { read_string(v, r.arg_name); }},
            {"kernel", [](const element& v, RawEvent& r) { read_string(v, r.kernel); }},
            {"Replayed from capture", [](const element& v, RawEvent& r) {
                 bool b = false;
                 r.replayed = v.type() == element_type::BOOL && !v.get_bool().get(b) && b;
             }},
            {"sort_index", [](const element& v, RawEvent& r) { read_int(v, r.sort_index); }},
            {"Record scope", [](const element& v, RawEvent& r) { read_int(v, r.scope); }},
            {"Async", [](const element& v, RawEvent& r) {
                 bool b = false;
                 r.is_async = v.type() == element_type::BOOL && !v.get_bool().get(b) && b;
             }},
            {"Call stack", [](const element& v, RawEvent& r) { read_stack(v, r.stack); }},
        };
        add_comm_readers(t);
        // Other spellings of the same fields (older Kineto, ROCm, 2021 traces).
        t.add("external id", t.find("External id"));
        t.add("Input dims", t.find("Input Dims"));
        t.add("theoretical occupancy %", t.find("est. achieved occupancy %"));
        return t;
    }();
    return table;
}
// clang-format on

// The event's own keys. A reader returns what the value should have been when it is not ("a string"),
// or null when it was read.
using FieldReader = const char* (*)(const element&, RawEvent&);
const KeyTable<FieldReader>& field_readers() {
    static const KeyTable<FieldReader> table = {
        {"ph",
         [](const element& v, RawEvent& r) -> const char* { return read_string(v, r.ph) ? nullptr : "a string"; }},
        {"cat",
         [](const element& v, RawEvent& r) -> const char* { return read_string(v, r.cat) ? nullptr : "a string"; }},
        {"name",
         [](const element& v, RawEvent& r) -> const char* { return read_string(v, r.name) ? nullptr : "a string"; }},
        {"ts",
         [](const element& v, RawEvent& r) -> const char* {
             r.has_ts = read_us(v, r.ts);
             return r.has_ts ? nullptr : "a number of microseconds within 2e15";
         }},
        {"dur",
         [](const element& v, RawEvent& r) -> const char* {
             r.has_dur = read_us(v, r.dur);
             return r.has_dur ? nullptr : "a number of microseconds within 2e15";
         }},
        {"pid",
         [](const element& v, RawEvent& r) -> const char* {
             return read_id(v, r.pid, r.pid_text) ? nullptr : "a number or a string";
         }},
        {"tid",
         [](const element& v, RawEvent& r) -> const char* {
             return read_id(v, r.tid, r.tid_text) ? nullptr : "a number or a string";
         }},
        {"args",
         [](const element& v, RawEvent& r) -> const char* {
             simdjson::dom::object args;
             if (v.get_object().get(args)) return nullptr;  // not an object: no args
             const auto& readers = arg_readers();
             for (const auto& field : args)
                 if (const ArgReader read = readers.find(field.key)) read(field.value, r);
             return nullptr;
         }},
        {"id",
         [](const element& v, RawEvent& r) -> const char* {
             read_int(v, r.flow_id);  // flow ids only; another type is not an error
             return nullptr;
         }},
    };
    return table;
}

}  // namespace

uint64_t id_of_string(std::string_view s) {
    uint64_t digits = 0;
    bool any = false;
    for (char c : s)
        if (c >= '0' && c <= '9') {
            digits = digits * 10 + uint64_t(c - '0');
            any = true;
        }
    return any ? digits : std::hash<std::string_view>{}(s) | kTextIdBit;
}

void read_event(const simdjson::dom::object& event, RawEvent& r) {
    const auto& readers = field_readers();
    for (const auto& field : event) {
        const FieldReader read = readers.find(field.key);
        if (!read) continue;
        if (const char* expected = read(field.value, r)) {
            if (!r.bad) r.bad_field = "\"" + std::string(field.key) + "\" is not " + expected;
            r.bad = true;
        }
    }
}

}  // namespace awb::trace_io
