#include "io/trace_import.h"

#include <simdjson.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

namespace awb {

using nlohmann::json;

namespace {

constexpr size_t kChunk = size_t(4) << 20;   // bytes inflated per read
constexpr size_t kBatch = size_t(4) << 20;   // bytes of event objects parsed by simdjson at once
constexpr size_t kMaxWarnings = 5;

// A problem found while reading, with the uncompressed byte offset it was found at; import_chrome_trace
// turns it into a TraceImportError naming the file.
struct ReadError {
    std::string what;
};

[[noreturn]] void fail(const std::string& what, int64_t offset) {
    throw ReadError{what + " (byte offset " + std::to_string(offset) + ")"};
}

// The file, inflated as it is read (zlib reads plain files as they are), in a buffer that keeps the
// bytes from `pos` on. Offsets are of the uncompressed stream.
class Input {
public:
    explicit Input(const std::string& path) : file_(gzopen(path.c_str(), "rb")) {
        if (file_) gzbuffer(file_, 1 << 18);
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0) file_size_ = int64_t(st.st_size);
    }
    ~Input() {
        if (file_) gzclose(file_);
    }
    Input(const Input&) = delete;
    Input& operator=(const Input&) = delete;

    bool ok() const { return file_ != nullptr; }
    const char* data() const { return buf_.data(); }
    size_t size() const { return buf_.size(); }
    int64_t offset(size_t p) const { return base_ + int64_t(p); }
    int64_t consumed() const { return base_ + int64_t(buf_.size()); }
    int64_t file_size() const { return file_size_; }
    int64_t file_position() { return file_ ? int64_t(gzoffset(file_)) : 0; }

    size_t pos = 0;

    // Reads more, keeping [pos, size); false at the end of the input. Reads at least as much as is
    // pending, so a value far larger than a chunk is scanned a logarithmic number of times.
    bool fill() {
        if (eof_) return false;
        if (pos > 0) {
            buf_.erase(0, pos);
            base_ += int64_t(pos);
            pos = 0;
        }
        const size_t old = buf_.size();
        // Small first reads (a small file costs little), then chunks; never less than what is pending.
        const size_t want = std::max(std::min(kChunk, size_t(64) << 10 << std::min(reads_++, 6)), old);
        buf_.resize(old + want);
        size_t got = 0;
        while (got < want) {
            const unsigned slice = unsigned(std::min<size_t>(want - got, size_t(1) << 30));
            const int n = gzread(file_, buf_.data() + old + got, slice);
            if (n < 0) {
                buf_.resize(old + got);
                int code = 0;
                const char* msg = gzerror(file_, &code);
                fail(std::string("the gzip stream is damaged: ") + msg, consumed());
            }
            if (n == 0) break;
            got += size_t(n);
        }
        buf_.resize(old + got);
        if (got == 0) {
            eof_ = true;
            int code = 0;
            const char* msg = gzerror(file_, &code);
            if (code != Z_OK && code != Z_STREAM_END) fail(std::string("the gzip stream is damaged: ") + msg, consumed());
            return false;
        }
        return true;
    }

private:
    gzFile file_;
    std::string buf_;
    int64_t base_ = 0;
    int64_t file_size_ = 0;
    int reads_ = 0;
    bool eof_ = false;
};

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The next character after whitespace (reading more as needed), or -1 at the end of the input.
int peek(Input& in) {
    for (;;) {
        const char* d = in.data();
        while (in.pos < in.size()) {
            if (!is_space(d[in.pos])) return static_cast<unsigned char>(d[in.pos]);
            ++in.pos;
        }
        if (!in.fill()) return -1;
    }
}

constexpr size_t kMore = size_t(-1);

// One past the closing quote of the string whose contents start at i, or kMore.
size_t string_end(const char* b, size_t i, size_t end) {
    const size_t first = i;
    while (i < end) {
        const void* q = std::memchr(b + i, '"', end - i);
        if (!q) return kMore;
        const size_t k = size_t(static_cast<const char*>(q) - b);
        size_t backslashes = 0;
        while (k - backslashes > first && b[k - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return k + 1;
        i = k + 1;
    }
    return kMore;
}

// Structure only: the extent of the value at `from` (strings and nesting; simdjson validates the
// contents later). kMore when the value runs past `end`.
size_t scan_value(const char* b, size_t from, size_t end) {
    const char c = b[from];
    if (c == '"') return string_end(b, from + 1, end);
    if (c == '{' || c == '[') {
        int64_t depth = 0;
        for (size_t i = from; i < end;) {
            const char ch = b[i];
            if (ch == '"') {
                i = string_end(b, i + 1, end);
                if (i == kMore) return kMore;
                continue;
            }
            if (ch == '{' || ch == '[') {
                ++depth;
            } else if (ch == '}' || ch == ']') {
                if (--depth == 0) return i + 1;
            }
            ++i;
        }
        return kMore;
    }
    size_t i = from;
    while (i < end && !is_space(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']') ++i;
    return i == end ? kMore : i;
}

// The end of the value at in.pos, reading more as needed; a value cut off by the end of the file fails.
size_t value_end(Input& in, const char* what) {
    for (;;) {
        const size_t end = scan_value(in.data(), in.pos, in.size());
        if (end != kMore) return end;
        const size_t pending = in.size() - in.pos;
        if (!in.fill()) {
            const char c = in.data()[in.pos];
            if (c != '"' && c != '{' && c != '[') return in.size();  // a number or literal ends the file
            fail(std::string("the file ends inside ") + what + " that starts at byte offset " + std::to_string(in.offset(in.pos)) +
                     " (truncated?)",
                 in.offset(in.pos + pending));
        }
    }
}

// pid/tid are numbers or strings ("stream 7", "12345"): the digits, or a stable hash.
uint64_t id_of_string(std::string_view s) {
    uint64_t digits = 0;
    bool any = false;
    for (char c : s)
        if (c >= '0' && c <= '9') {
            digits = digits * 10 + uint64_t(c - '0');
            any = true;
        }
    return any ? digits : std::hash<std::string_view>{}(s);
}

EventKind kind_of(std::string_view cat) {
    if (cat == "cpu_op" || cat == "Operator" || cat == "operator") return EventKind::CpuOp;
    if (cat == "user_annotation" || cat == "gpu_user_annotation") return EventKind::UserAnnotation;
    if (cat == "kernel" || cat == "Kernel") return EventKind::Kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::Memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return EventKind::Memset;
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return EventKind::Runtime;
    return EventKind::Other;
}

bool on_device(std::string_view cat) {
    return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" || cat == "gpu_memset" ||
           cat == "Memset" || cat == "gpu_user_annotation" || cat == "cuda_sync";
}

// The fields of one event object as read, before it becomes a TraceEvent / MemoryEvent.
struct RawEvent {
    std::string_view ph, cat, name, pid_text, tid_text;
    int64_t flow_id = -1;  // "id" of s/f flow events
    bool has_ts = false, has_dur = false, bad = false;
    int64_t ts = 0, dur = 0;
    uint64_t pid = 0, tid = 0;
    std::string bad_field;
    // args
    int64_t external_id = 0, correlation = 0, sequence_nr = -1, fwd_thread = 0;
    int64_t device = -1, stream = -1;
    int64_t device_type = 0, device_id = -1, bytes = 0, total_allocated = -1, total_reserved = -1;
    int64_t sort_index = -1;
    std::string_view arg_name;  // "M" events: the process or thread name
    DeviceLaunch launch;
    bool has_launch = false;
    bool bad_bytes = false;
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::string> dtypes;
};

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

bool read_string(const element& v, std::string_view& out) { return v.type() == element_type::STRING && !v.get_string().get(out); }

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

void read_types(const element& v, std::vector<std::string>& out) {
    simdjson::dom::array a;
    if (v.get_array().get(a)) return;
    for (element x : a) {
        std::string_view s;
        out.emplace_back(read_string(x, s) ? std::string(s) : std::string());
    }
}

void read_args(const simdjson::dom::object& args, RawEvent& r) {
    for (const auto& field : args) {
        const std::string_view key = field.key;
        const element& v = field.value;
        DeviceLaunch& l = r.launch;
        int64_t n = 0;
        if (key == "External id" || key == "external id") {
            read_int(v, r.external_id);
        } else if (key == "correlation") {
            read_int(v, r.correlation);
        } else if (key == "Sequence number") {
            read_int(v, r.sequence_nr);
        } else if (key == "Fwd thread id") {
            read_int(v, r.fwd_thread);
        } else if (key == "Input Dims" || key == "Input dims") {
            read_dims(v, r.shapes);
        } else if (key == "Input type") {
            read_types(v, r.dtypes);
        } else if (key == "device") {
            read_int(v, r.device);
        } else if (key == "stream") {
            read_int(v, r.stream);
        } else if (key == "grid") {
            read_triple(v, l.grid);
            r.has_launch = true;
        } else if (key == "block") {
            read_triple(v, l.block);
            r.has_launch = true;
        } else if (key == "registers per thread") {
            if (read_int(v, n)) l.registers_per_thread = int32_t(n);
            r.has_launch = true;
        } else if (key == "shared memory") {
            read_int(v, l.shared_memory_bytes);
            r.has_launch = true;
        } else if (key == "blocks per SM") {
            read_double(v, l.blocks_per_sm);
            r.has_launch = true;
        } else if (key == "warps per SM") {
            read_double(v, l.warps_per_sm);
            r.has_launch = true;
        } else if (key == "est. achieved occupancy %" || key == "theoretical occupancy %") {
            read_double(v, l.occupancy_pct);
            r.has_launch = true;
        } else if (key == "bytes") {
            read_int(v, l.bytes);
            r.has_launch = true;
        } else if (key == "memory bandwidth (GB/s)") {
            read_double(v, l.bandwidth_gb_s);
            r.has_launch = true;
        } else if (key == "Device Type") {
            read_int(v, r.device_type);
        } else if (key == "Device Id") {
            read_int(v, r.device_id);
        } else if (key == "Bytes") {
            if (!read_int(v, r.bytes)) r.bad_bytes = true;
        } else if (key == "Total Allocated") {
            read_int(v, r.total_allocated);
        } else if (key == "Total Reserved") {
            read_int(v, r.total_reserved);
        } else if (key == "name") {
            read_string(v, r.arg_name);
        } else if (key == "sort_index") {
            read_int(v, r.sort_index);
        }
    }
}

// Reads one event object; fields of the wrong type mark it bad (it is skipped with a warning).
void read_event(const simdjson::dom::object& obj, RawEvent& r) {
    for (const auto& field : obj) {
        const std::string_view key = field.key;
        const element& v = field.value;
        auto wrong = [&r, key](const char* expected) {
            if (!r.bad) r.bad_field = "\"" + std::string(key) + "\" is not " + expected;
            r.bad = true;
        };
        if (key == "ph") {
            if (!read_string(v, r.ph)) wrong("a string");
        } else if (key == "cat") {
            if (!read_string(v, r.cat)) wrong("a string");
        } else if (key == "name") {
            if (!read_string(v, r.name)) wrong("a string");
        } else if (key == "ts") {
            r.has_ts = read_us(v, r.ts);
            if (!r.has_ts) wrong("a number of microseconds within 2e15");
        } else if (key == "dur") {
            r.has_dur = read_us(v, r.dur);
            if (!r.has_dur) wrong("a number of microseconds within 2e15");
        } else if (key == "pid") {
            if (!read_id(v, r.pid, r.pid_text)) wrong("a number or a string");
        } else if (key == "tid") {
            if (!read_id(v, r.tid, r.tid_text)) wrong("a number or a string");
        } else if (key == "args") {
            simdjson::dom::object args;
            if (!v.get_object().get(args)) read_args(args, r);
        } else if (key == "id") {
            read_int(v, r.flow_id);
        }
    }
}

// Equal launch configurations share one DeviceLaunch.
struct LaunchKey {
    std::array<int64_t, 13> v;
    bool operator==(const LaunchKey&) const = default;
};
struct LaunchKeyHash {
    size_t operator()(const LaunchKey& k) const {
        uint64_t h = 1469598103934665603ull;
        for (int64_t x : k.v) h = (h ^ uint64_t(x)) * 1099511628211ull;
        return size_t(h);
    }
};
LaunchKey key_of(const DeviceLaunch& l) {
    auto bits = [](double d) {
        int64_t b = 0;
        std::memcpy(&b, &d, sizeof b);
        return b;
    };
    return {{l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.registers_per_thread, l.shared_memory_bytes,
             bits(l.blocks_per_sm), bits(l.warps_per_sm), bits(l.occupancy_pct), l.bytes, bits(l.bandwidth_gb_s)}};
}

class Reader {
public:
    Reader(Input& in, RunObserver* observer, const std::string& path) : in_(in), observer_(observer) {
        meta_.source = path;
    }

    ImportedTrace read();

private:
    void read_root_object();
    void read_events_array();
    bool closed_or_comma(char close, const char* inside, const char* where);
    void top_level_value(std::string_view key, size_t start, size_t end);
    void add_event_text(size_t start, size_t end);
    void flush();
    void parse_one_by_one();
    void reserve_from_first_batch();
    void convert(RawEvent& r, int64_t offset);
    void skip(const std::string& why, int64_t offset);
    // A trace has a dozen categories: a short list searched linearly beats a map keyed by new strings.
    void count_category(std::string_view cat) {
        for (auto& [name, n] : category_counts_)
            if (name == cat) {
                ++n;
                return;
            }
        category_counts_.emplace_back(std::string(cat), 1);
    }
    void poll();

    Input& in_;
    RunObserver* observer_;
    simdjson::dom::parser parser_;
    std::string batch_;
    std::vector<int64_t> starts_;  // byte offset of each event of the batch
    ImportedTrace out_;
    std::vector<TraceEvent> events_;
    std::vector<MemoryEvent> memory_;
    TraceMeta meta_;
    int64_t base_ns_ = 0;
    bool saw_events_ = false;
    bool reserved_ = false;
    std::unordered_map<LaunchKey, std::shared_ptr<const DeviceLaunch>, LaunchKeyHash> launches_;
    std::vector<std::pair<std::string, int64_t>> category_counts_;
    InputsInterner inputs_;
    struct ThreadName {
        uint64_t pid, tid;
        std::string name;
        bool from_metadata;
    };
    std::vector<ThreadName> thread_names_;  // sorted into CPU threads and device streams at the end
    struct LegacyFlow {
        int64_t id;
        bool start;
        uint64_t tid;
        int64_t ts;
    };
    std::vector<LegacyFlow> legacy_flows_;
    void link_legacy_device_spans();
};

void Reader::skip(const std::string& why, int64_t offset) {
    ++out_.skipped_events;
    if (out_.warnings.size() < kMaxWarnings)
        out_.warnings.push_back("event at byte offset " + std::to_string(offset) + " skipped: " + why);
}

void Reader::poll() {
    if (!observer_) return;
    const int done = int(in_.file_position() >> 20);
    const int total = int(in_.file_size() >> 20);
    if (total >= 16)  // small files read in a blink: no progress lines
        observer_->on_progress(done, std::max(total, done), "read " + std::to_string(done) + " of " + std::to_string(total) + " MiB");
    throw_if_cancelled(observer_);
}

ImportedTrace Reader::read() {
    const int c = peek(in_);
    if (c < 0) fail("the file is empty (or only whitespace)", in_.consumed());
    if (c == '{') {
        read_root_object();
    } else if (c == '[') {
        read_events_array();  // the legacy profiler's plain array of events
    } else {
        fail(std::string("not a chrome trace: it starts with ") +
                 (c >= 32 && c < 127 ? "'" + std::string(1, char(c)) + "'" : "byte " + std::to_string(c)) +
                 ", not '{' or '['",
             in_.offset(in_.pos));
    }
    const int trailing = peek(in_);
    if (trailing >= 0) fail("unexpected data after the end of the trace", in_.offset(in_.pos));
    flush();
    if (!saw_events_) fail("no \"traceEvents\" list: not a chrome trace", in_.consumed());
    if (events_.empty() && memory_.empty())
        throw ReadError{"holds no trace events (no complete \"X\" events or [memory] instants" +
                        (out_.skipped_events ? ": " + out_.warnings.front() + ")" : std::string(")"))};
    // Kineto writes baseTimeNanoseconds after the events, and timestamps relative to it.
    for (auto& e : events_) {
        e.start_ns += base_ns_;
        e.end_ns += base_ns_;
    }
    for (auto& m : memory_) m.ts_ns += base_ns_;
    link_legacy_device_spans();
    meta_.origin_ns = base_ns_;
    // A thread name under a device's pid and a stream id its events use names a stream (Kineto puts
    // GPU streams under pid = device index, tid = stream), any other a CPU thread.
    std::set<std::pair<uint64_t, uint64_t>> streams;
    for (const auto& e : events_)
        if (e.device != DeviceKind::CPU) streams.insert({uint64_t(int64_t(e.device_index)), e.thread});
    for (auto& n : thread_names_) {
        auto& names = streams.count({n.pid, n.tid}) ? meta_.stream_names : meta_.thread_names;
        if (n.from_metadata)
            names[n.tid] = std::move(n.name);  // "M" thread_name wins over a textual tid
        else
            names.emplace(n.tid, std::move(n.name));
    }
    if (out_.rank >= 0) {
        for (auto& e : events_) e.rank = out_.rank;
        for (auto& m : memory_) m.rank = out_.rank;
        meta_.ranks = {out_.rank};
    }
    for (const auto& [name, n] : category_counts_) out_.categories[name] += n;
    out_.bytes_read = in_.consumed();
    out_.trace = Trace::build(std::move(events_), std::move(memory_), std::move(meta_));
    return std::move(out_);
}

void Reader::read_root_object() {
    ++in_.pos;  // '{'
    int c = peek(in_);
    if (c == '}') {
        ++in_.pos;
        return;
    }
    for (;;) {
        if (c != '"') fail("expected a key in the top-level object", in_.offset(in_.pos));
        const size_t kend = value_end(in_, "a key");
        const std::string key(in_.data() + in_.pos + 1, kend - in_.pos - 2);
        in_.pos = kend;
        if (peek(in_) != ':') fail("expected ':' after the key \"" + key + "\"", in_.offset(in_.pos));
        ++in_.pos;
        c = peek(in_);
        if (c < 0) fail("the file ends after the key \"" + key + "\" (truncated?)", in_.offset(in_.pos));
        if (key == "traceEvents") {
            if (c != '[') fail("\"traceEvents\" is not a list", in_.offset(in_.pos));
            read_events_array();
        } else {
            const size_t end = value_end(in_, "a value");
            top_level_value(key, in_.pos, end);
            in_.pos = end;
        }
        if (closed_or_comma('}', "the top-level object", "in the top-level object")) return;
        c = peek(in_);
    }
}

void Reader::top_level_value(std::string_view key, size_t start, size_t end) {
    static const std::set<std::string_view> kHeader = {"schemaVersion", "cupti_version", "cuda_runtime_version",
                                                       "cuda_driver_version", "hip_runtime_version", "record_shapes",
                                                       "profile_memory", "with_stack", "with_flops", "with_modules"};
    const bool header = kHeader.count(key) > 0;
    const bool wanted = header || key == "baseTimeNanoseconds" || key == "traceName" || key == "deviceProperties" ||
                        key == "distributedInfo" || key == "attention_workbench";
    if (!wanted) return;
    json v;
    try {
        v = json::parse(in_.data() + start, in_.data() + end);
    } catch (const json::exception& e) {
        fail("the value of \"" + std::string(key) + "\" is not valid JSON: " + e.what(), in_.offset(start));
    }
    if (header) {
        if (v.is_primitive()) out_.header[std::string(key)] = std::move(v);
    } else if (key == "baseTimeNanoseconds" && v.is_number()) {
        // Timestamps and durations are at most 2e18 ns (checked as read), so a base within 2e18 cannot overflow.
        const double base = v.get<double>();
        if (!(std::fabs(base) <= 2e18)) fail("\"baseTimeNanoseconds\" is out of range", in_.offset(start));
        base_ns_ = v.is_number_float() ? int64_t(std::llround(base)) : v.is_number_unsigned() ? int64_t(v.get<uint64_t>()) : v.get<int64_t>();
    } else if (key == "traceName" && v.is_string()) {
        out_.trace_name = v.get<std::string>();
    } else if (key == "deviceProperties") {
        out_.device_properties = std::move(v);
    } else if (key == "distributedInfo" && v.is_object()) {
        auto int_of = [&v](const char* k) { return v.contains(k) && v[k].is_number_integer() ? v[k].get<int>() : -1; };
        out_.rank = int_of("rank");
        out_.world_size = int_of("world_size");
        if (v.contains("backend") && v["backend"].is_string()) out_.backend = v["backend"].get<std::string>();
        if (v.contains("nccl_version") && v["nccl_version"].is_string()) out_.header["nccl_version"] = v["nccl_version"];
    } else if (key == "attention_workbench") {
        out_.extra = std::move(v);
    }
}

void Reader::read_events_array() {
    saw_events_ = true;
    ++in_.pos;  // '['
    int c = peek(in_);
    if (c == ']') {
        ++in_.pos;
        return;
    }
    for (;;) {
        if (c < 0) fail("the file ends inside \"traceEvents\" (truncated?)", in_.offset(in_.pos));
        const size_t end = value_end(in_, "an event");
        if (c == '{') {
            add_event_text(in_.pos, end);
        } else {
            skip("not an object", in_.offset(in_.pos));
        }
        in_.pos = end;
        if (closed_or_comma(']', "\"traceEvents\"", "between events")) return;
        c = peek(in_);
    }
}

// After a member of an object or list: true at its closing bracket, false after a ','; both consumed.
bool Reader::closed_or_comma(char close, const char* inside, const char* where) {
    const int c = peek(in_);
    if (c == close) {
        ++in_.pos;
        return true;
    }
    if (c != ',')
        fail(c < 0 ? std::string("the file ends inside ") + inside + " (truncated?)"
                   : std::string("expected ',' or '") + close + "' " + where,
             in_.offset(in_.pos));
    ++in_.pos;
    return false;
}

// The legacy profiler (torch 1.x, use_cuda=True) timed each op on the device with CUDA events: one
// span per op on pid "CUDA functions", named like the op and joined to it by a cpu_to_cuda flow. The op
// gets the span as its device time the way torch 1.x counts it (total = its span, which already holds
// its children's; self = span minus the children's), marked by TraceMeta::legacy_device_spans.
void Reader::link_legacy_device_spans() {
    if (legacy_flows_.empty()) return;
    std::map<std::pair<uint64_t, int64_t>, size_t> cpu_at, device_at;  // (tid, start) -> event
    for (size_t i = 0; i < events_.size(); ++i)
        (events_[i].device == DeviceKind::CPU ? cpu_at : device_at).emplace(std::pair{events_[i].thread, events_[i].start_ns}, i);
    std::map<int64_t, std::pair<int64_t, int64_t>> ends;  // id -> (op, span) event indices
    for (const LegacyFlow& f : legacy_flows_) {
        const auto& at = f.start ? cpu_at : device_at;
        const auto it = at.find({f.tid, f.ts});
        if (it == at.end()) continue;
        auto& e = ends.try_emplace(f.id, -1, -1).first->second;
        (f.start ? e.first : e.second) = int64_t(it->second);
    }
    constexpr int64_t kLegacyIdBase = int64_t(1) << 40;  // apart from any External id in the file
    for (const auto& [id, e] : ends) {
        if (e.first < 0 || e.second < 0) continue;
        events_[size_t(e.first)].correlation_id = kLegacyIdBase + id;
        events_[size_t(e.second)].linked_correlation_id = kLegacyIdBase + id;
        meta_.legacy_device_spans = true;
    }
}

void Reader::add_event_text(size_t start, size_t end) {
    if (batch_.size() + (end - start) > kBatch) flush();
    batch_.push_back(batch_.empty() ? '[' : ',');
    starts_.push_back(in_.offset(start));
    batch_.append(in_.data() + start, end - start);
}

void Reader::flush() {
    if (starts_.empty()) return;
    batch_.push_back(']');
    batch_.reserve(batch_.size() + simdjson::SIMDJSON_PADDING);
    simdjson::dom::element doc;
    simdjson::dom::array events;
    if (!parser_.parse(batch_.data(), batch_.size(), false).get(doc) && !doc.get_array().get(events)) {
        size_t k = 0;
        for (element e : events) {
            simdjson::dom::object obj;
            RawEvent r;
            if (!e.get_object().get(obj)) read_event(obj, r);
            convert(r, starts_[k++]);
        }
    } else {
        parse_one_by_one();
    }
    batch_.clear();
    starts_.clear();
    reserve_from_first_batch();
    poll();
}

// After the first batch, the events per byte seen so far times the file's (inflated) size: one
// allocation of about the right size instead of doubling (which holds 1.5x the events while it copies).
void Reader::reserve_from_first_batch() {
    if (reserved_ || in_.file_size() <= 0 || in_.consumed() <= 0) return;
    reserved_ = true;
    const double position = double(std::max<int64_t>(in_.file_position(), 1));
    const double inflated_total = double(in_.file_size()) * double(in_.consumed()) / position;
    const double per_byte = double(events_.size()) / double(in_.consumed());
    const double estimate = per_byte * inflated_total * 1.05;
    if (estimate > double(events_.size()) && estimate < 2e9) events_.reserve(size_t(estimate));
}

// The batch is not valid JSON as a whole: parse its events one by one, to skip the ones with a number
// out of range (1e400, 2^64) and to name the first broken one with its offset.
void Reader::parse_one_by_one() {
    size_t pos = 1;
    std::string one;
    simdjson::dom::parser parser;
    for (int64_t start : starts_) {
        const size_t end = scan_value(batch_.data(), pos, batch_.size());
        if (end == kMore) fail("an event is not valid JSON", start);
        one.assign(batch_, pos, end - pos);
        one.reserve(one.size() + simdjson::SIMDJSON_PADDING);
        pos = end + 1;  // past the ','
        simdjson::dom::element doc;
        simdjson::dom::object obj;
        const simdjson::error_code error = parser.parse(one.data(), one.size(), false).get(doc);
        if (error == simdjson::NUMBER_ERROR || error == simdjson::NUMBER_OUT_OF_RANGE) {
            skip("a number is out of range (" + std::string(simdjson::error_message(error)) + ")", start);
            continue;
        }
        if (error == simdjson::DEPTH_ERROR) {
            skip("nested deeper than " + std::to_string(parser.max_depth()) + " levels", start);
            continue;
        }
        if (error) fail("an event is not valid JSON: " + std::string(simdjson::error_message(error)), start);
        RawEvent r;
        if (!doc.get_object().get(obj)) read_event(obj, r);
        convert(r, start);
    }
}

void Reader::convert(RawEvent& r, int64_t offset) {
    const std::string_view ph = r.ph;
    if (!ph.empty() && ph != "X" && ph != "i" && ph != "I" && ph != "M" && ph != "C" && ph != "s" && ph != "f" && ph != "t") {
        count_category(r.cat.empty() ? ph : r.cat);
        return;  // B/E and other phases: counted, not shown
    }
    if (r.bad) {
        skip(r.bad_field, offset);
        return;
    }
    count_category(!r.cat.empty() ? r.cat : ph.empty() ? std::string_view("(none)") : ph);
    if (ph == "M") {
        ++out_.metadata_events;
        if (r.name == "thread_name") {
            thread_names_.push_back({r.pid, r.tid, std::string(r.arg_name), true});
        } else if (r.name == "process_name") {
            meta_.process_names[r.pid] = std::string(r.arg_name);
        }
        return;
    }
    if (ph == "C") {
        ++out_.counter_events;
        return;
    }
    if (ph == "s" || ph == "f" || ph == "t") {
        ++out_.flow_events;
        // The legacy profiler's flow from an op to its CUDA span (both at the flow's tid and ts).
        if (r.cat == "cpu_to_cuda" && r.flow_id >= 0 && r.has_ts) legacy_flows_.push_back({r.flow_id, ph == "s", r.tid, r.ts});
        return;
    }
    if (ph == "i" || ph == "I") {
        if (r.name != "[memory]") {
            ++out_.instant_events;
            return;
        }
        if (!r.has_ts || r.bad_bytes) {
            skip(r.bad_bytes ? "[memory] \"Bytes\" is out of range" : "[memory] instant without \"ts\"", offset);
            return;
        }
        MemoryEvent m;
        m.ts_ns = r.ts;
        m.bytes = r.bytes;
        m.device = r.device_type == 1 ? DeviceKind::CUDA : DeviceKind::CPU;
        m.device_index = int(r.device_id);
        m.thread = r.tid;
        m.total_allocated = r.total_allocated;
        m.total_reserved = r.total_reserved;
        memory_.push_back(m);
        return;
    }
    // "X" (or no phase: the legacy array's entries are complete events)
    if (!r.has_ts) {
        skip("no \"ts\"", offset);
        return;
    }
    TraceEvent t;
    t.name = std::string(r.name);
    const bool legacy_device = r.cat.empty() && r.pid_text.find("CUDA") != std::string_view::npos;
    t.kind = r.cat.empty() ? (legacy_device ? EventKind::Kernel : EventKind::CpuOp) : kind_of(r.cat);
    t.start_ns = r.ts;
    t.end_ns = r.ts + std::max<int64_t>(0, r.dur);
    if (on_device(r.cat) || legacy_device) {
        t.device = DeviceKind::CUDA;
        t.device_index = int(r.device >= 0 ? r.device : int64_t(r.pid));
        t.thread = r.stream >= 0 ? uint64_t(r.stream) : r.tid;
        t.correlation_id = r.correlation;
        t.linked_correlation_id = r.external_id;
        if (r.has_launch) {
            auto& shared = launches_[key_of(r.launch)];
            if (!shared) shared = std::make_shared<const DeviceLaunch>(r.launch);
            t.launch = shared;
        }
    } else {
        t.thread = r.tid;
        // A tid that is a name ("PyTorch Profiler" of Kineto's span) names its lane.
        if (!r.tid_text.empty() && id_of_string(r.tid_text) != 0 && r.tid_text.find_first_of("0123456789") == std::string_view::npos)
            thread_names_.push_back({r.pid, r.tid, std::string(r.tid_text), false});
        if (t.kind == EventKind::Runtime) {
            // As in Kineto's own records: a runtime call's id is CUPTI's correlation (its kernels carry
            // the same), and it links to the op whose External id it carries.
            t.correlation_id = r.correlation;
            t.linked_correlation_id = r.external_id;
        } else {
            t.correlation_id = r.external_id;
        }
    }
    if (t.kind == EventKind::UserAnnotation) t.scope = 5;  // at::RecordScope::USER_SCOPE
    t.sequence_nr = r.sequence_nr;
    t.fwd_thread = uint64_t(r.fwd_thread);
    if (!r.shapes.empty() || !r.dtypes.empty()) t.inputs = inputs_.intern({std::move(r.shapes), std::move(r.dtypes), {}});
    events_.push_back(std::move(t));
}

}  // namespace

ImportedTrace import_chrome_trace(const std::string& path, RunObserver* observer) {
    Input in(path);
    if (!in.ok()) throw TraceImportError("cannot open '" + path + "'");
    try {
        Reader reader(in, observer, path);
        return reader.read();
    } catch (const ReadError& e) {
        throw TraceImportError("'" + path + "' is not a readable trace: " + e.what);
    } catch (const std::bad_alloc&) {
        throw TraceImportError("'" + path + "' does not fit in memory");
    }
}

ImportedTrace import_chrome_traces(const std::vector<std::string>& paths, RunObserver* observer) {
    if (paths.size() == 1) return import_chrome_trace(paths.front(), observer);
    if (paths.empty()) throw TraceImportError("no trace files to open");
    std::vector<ImportedTrace> parts;
    for (const auto& path : paths) parts.push_back(import_chrome_trace(path, observer));
    std::set<int> ranks;
    bool unique = true;
    for (const auto& p : parts) unique = unique && p.rank >= 0 && ranks.insert(p.rank).second;
    ImportedTrace out;
    std::vector<TraceEvent> events;
    std::vector<MemoryEvent> memory;
    TraceMeta meta;
    meta.origin_ns = INT64_MAX;
    for (size_t i = 0; i < parts.size(); ++i) {
        ImportedTrace& p = parts[i];
        const int32_t rank = unique ? p.rank : int32_t(i);
        meta.ranks.push_back(rank);
        meta.origin_ns = std::min(meta.origin_ns, p.trace.meta().origin_ns);
        for (TraceEvent e : p.trace.events()) {
            e.rank = rank;
            events.push_back(std::move(e));
        }
        for (MemoryEvent m : p.trace.memory()) {
            m.rank = rank;
            memory.push_back(m);
        }
        for (const auto& [tid, name] : p.trace.meta().thread_names) meta.thread_names.emplace(tid, name);
        for (const auto& [tid, name] : p.trace.meta().stream_names) meta.stream_names.emplace(tid, name);
        for (const auto& [pid, name] : p.trace.meta().process_names) meta.process_names.emplace(pid, name);
        meta.legacy_device_spans = meta.legacy_device_spans || p.trace.meta().legacy_device_spans;
        for (const auto& [cat, n] : p.categories) out.categories[cat] += n;
        out.flow_events += p.flow_events;
        out.counter_events += p.counter_events;
        out.metadata_events += p.metadata_events;
        out.instant_events += p.instant_events;
        out.skipped_events += p.skipped_events;
        for (auto& w : p.warnings) out.warnings.push_back(paths[i] + ": " + w);
        out.bytes_read += p.bytes_read;
        out.world_size = std::max(out.world_size, p.world_size);
        if (out.backend.empty()) out.backend = p.backend;
        if (out.device_properties.is_null()) out.device_properties = p.device_properties;
        if (out.header.empty()) out.header = p.header;
        if (out.extra.is_null()) out.extra = p.extra;
    }
    std::sort(meta.ranks.begin(), meta.ranks.end());
    meta.source = paths.front();
    out.trace_name = std::to_string(parts.size()) + " ranks of one run";
    out.trace = Trace::build(std::move(events), std::move(memory), std::move(meta));
    return out;
}

std::vector<std::string> trace_files_of(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) return {path};
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
        const std::string name = entry.path().filename().string();
        auto ends = [&name](const char* suffix) {
            const size_t n = std::strlen(suffix);
            return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
        };
        if (entry.is_regular_file() && (ends(".json") || ends(".json.gz"))) out.push_back(entry.path().string());
    }
    if (out.empty()) throw TraceImportError("'" + path + "' holds no .json or .json.gz traces");
    std::sort(out.begin(), out.end());
    return out;
}

bool looks_like_chrome_trace(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return false;
    std::string head(64 * 1024, '\0');
    const int n = gzread(f, head.data(), unsigned(head.size()));
    gzclose(f);
    head.resize(size_t(std::max(n, 0)));
    const size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return false;
    return head[first] == '[' || head.find("\"traceEvents\"") != std::string::npos;
}

}  // namespace awb
