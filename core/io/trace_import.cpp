#include "io/trace_import.h"

#include <simdjson.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <set>
#include <string_view>
#include <thread>
#include <atomic>
#include <exception>
#include <mutex>

#include "model/handoff.h"
#include "io/json_scan.h"
#include "io/trace_convert.h"
#include "io/trace_fields.h"
#include "io/trace_input.h"
#include "io/trace_ranks.h"
#include "model/host_memory.h"
#include "model/units.h"

// The importer's driver: the input (trace_input), the structural scan (json_scan) that finds the
// top-level keys and cuts "traceEvents" into event objects, batches of them parsed by simdjson (on the
// scanner's thread) and read field by field (trace_fields, on the caller's), conversion into the
// Trace (trace_convert), and for a folder or several files the rank merge (trace_ranks) of what
// discovery (trace_files) found.
namespace awb {

using nlohmann::json;

namespace {

// A rank's summary (attnwb inspect RANK --summary) says what it lacks, on every view of it.
void note_summary(ImportedTrace& out) {
    if (!out.extra.is_object() || !out.extra.contains("summary")) return;
    out.notes.run.push_back(
        "a rank's summary (attnwb inspect --summary): the kernels, copies, sets, steps and collectives are whole; "
        "the operator table holds only the outermost ops, those that launched work and those of collective calls");
}

using namespace trace_io;
using simdjson::dom::element;

constexpr size_t kBatch = size_t(512) << 10;  // bytes of event objects parsed by simdjson at once
constexpr size_t kBatchesInFlight = 2;        // cut and waiting to be parsed, at most

// A run of events cut from "traceEvents": their text as one JSON list, and where each came from.
struct Batch {
    struct Item {
        int64_t offset;  // uncompressed byte offset where the value starts
        bool object;     // false: a value that is not an object (skipped); its text is not in the list
    };
    std::string text;  // "[{...},{...}]" (the objects only), with simdjson's padding reserved
    std::vector<Item> items;
    int64_t end_offset = 0;     // uncompressed byte offset just past its last value
    int64_t consumed = 0;       // uncompressed bytes read when it was cut (a chunk ahead of end_offset)
    int64_t file_position = 0;  // bytes of the file read by then (compressed bytes for .gz)
    // The text parsed by the scanner's thread (which has time to spare while the converter does not):
    // the list, or an error that sends the converter to convert_one_by_one. The parser stays with the
    // batch when it is reused, keeping its buffers.
    std::unique_ptr<simdjson::dom::parser> parser;
    simdjson::dom::array list;
    bool parsed = false;
};

// What the file holds besides the events: the top-level keys (the producer fills it, the driver
// moves it into the ImportedTrace at the end).
struct TopLevel {
    ImportedTrace head;  // trace_name, extra, device_properties, header, rank, world_size, backend
    int64_t base_ns = 0;
    bool saw_events = false;
};

// The producer (its own thread): reads and inflates the file, scans its structure, handles the
// top-level keys, cuts "traceEvents" into batches and parses each with simdjson for the consumer.
class Scanner {
public:
    Scanner(TraceInput& in, Handoff<Batch>& out) : in_(in), out_(out) {}

    // Scans the whole file; any error (or the consumer's stop) closes the hand-off with it.
    void run() noexcept;
    TopLevel& top() { return top_; }
    void drop_batch() { batch_ = Batch{}; }

private:
    struct Stopped {};  // the consumer gave up: unwind quietly

    void scan();
    void read_root_object();
    void read_events_array();
    bool closed_or_comma(char close, const char* inside, const char* where);
    void top_level_value(std::string_view key, size_t start, size_t end);
    void add_event(size_t start, size_t end, bool object);
    void cut();
    static void parse(Batch& batch);

    TraceInput& in_;
    Handoff<Batch>& out_;
    Batch batch_;
    TopLevel top_;
};

void Scanner::run() noexcept {
    try {
        scan();
        cut();
        out_.close();
    } catch (const Stopped&) {
        out_.close();
    } catch (...) {
        out_.close(std::current_exception());
    }
}

void Scanner::scan() {
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
    top_.head.bytes_read = in_.consumed();
}

void Scanner::read_root_object() {
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

// Kineto's "deviceProperties": the objects with a name; fields of the wrong type are left at "not given".
std::vector<DeviceProperties> devices_of(const json& v) {
    std::vector<DeviceProperties> out;
    if (!v.is_array()) return out;
    for (const json& d : v) {
        if (!d.is_object() || !d.contains("name") || !d["name"].is_string()) continue;
        auto small = [&d](const char* key, int fallback) {  // a small non-negative integer, else fallback
            const auto it = d.find(key);
            if (it == d.end() || !it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > 1'000'000)
                return fallback;
            return int(it->get<int64_t>());
        };
        DeviceProperties p;
        p.id = small("id", -1);
        p.name = d["name"].get<std::string>();
        if (const auto mem = d.find("totalGlobalMem");
            mem != d.end() && mem->is_number() && mem->get<double>() >= 0 && mem->get<double>() < 1e18)
            p.total_global_mem = int64_t(mem->get<double>());
        p.compute_major = small("computeMajor", -1);
        p.compute_minor = small("computeMinor", 0);
        p.num_sms = small("numSms", -1);
        out.push_back(std::move(p));
    }
    return out;
}

// distributedInfo's "pg_config": [{"pg_name", "pg_desc", "backend_config", "pg_size", "ranks"}]; entries
// that are not objects are left out, fields of the wrong type left at "not given".
std::vector<ProcessGroup> process_groups_of(const json& info) {
    std::vector<ProcessGroup> out;
    const auto it = info.find("pg_config");
    if (it == info.end() || !it->is_array()) return out;
    for (const json& g : *it) {
        if (!g.is_object()) continue;
        ProcessGroup pg;
        auto text = [&g](const char* key) {
            const auto f = g.find(key);
            return f == g.end()             ? std::string()
                   : f->is_string()         ? f->get<std::string>()
                   : f->is_number_integer() ? std::to_string(f->get<int64_t>())
                                            : std::string();
        };
        pg.name = text("pg_name");
        pg.desc = text("pg_desc");
        pg.backend = text("backend_config");
        if (const auto size = g.find("pg_size"); size != g.end() && size->is_number_integer())
            pg.size = size->get<int32_t>();
        if (const auto ranks = g.find("ranks"); ranks != g.end()) {
            if (ranks->is_array()) {
                for (const json& r : *ranks)
                    if (r.is_number_integer()) pg.ranks.push_back(r.get<int32_t>());
            } else if (ranks->is_string()) {
                std::vector<int64_t> parsed;
                if (parse_int_list(ranks->get<std::string>(), parsed)) pg.ranks.assign(parsed.begin(), parsed.end());
            }
        }
        out.push_back(std::move(pg));
    }
    return out;
}

void Scanner::top_level_value(std::string_view key, size_t start, size_t end) {
    static const std::set<std::string_view> kHeader = {
        "schemaVersion", "cupti_version",  "cuda_runtime_version", "cuda_driver_version", "hip_runtime_version",
        "record_shapes", "profile_memory", "with_stack",           "with_flops",          "with_modules"};
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
    ImportedTrace& out = top_.head;
    if (header) {
        if (v.is_primitive()) out.header[std::string(key)] = std::move(v);
    } else if (key == "baseTimeNanoseconds" && v.is_number()) {
        // Timestamps and durations are at most 2e18 ns (checked as read), so a base within 2e18 cannot overflow.
        const double base = v.get<double>();
        if (!(std::fabs(base) <= 2e18)) fail("\"baseTimeNanoseconds\" is out of range", in_.offset(start));
        top_.head.has_base_time = true;
        top_.base_ns = v.is_number_float()      ? int64_t(std::llround(base))
                       : v.is_number_unsigned() ? int64_t(v.get<uint64_t>())
                                                : v.get<int64_t>();
    } else if (key == "traceName" && v.is_string()) {
        out.trace_name = v.get<std::string>();
    } else if (key == "deviceProperties") {
        out.devices = devices_of(v);
    } else if (key == "distributedInfo" && v.is_object()) {
        auto int_of = [&v](const char* k) { return v.contains(k) && v[k].is_number_integer() ? v[k].get<int>() : -1; };
        out.rank = int_of("rank");
        out.world_size = int_of("world_size");
        if (v.contains("backend") && v["backend"].is_string()) out.backend = v["backend"].get<std::string>();
        if (v.contains("nccl_version") && v["nccl_version"].is_string()) out.header["nccl_version"] = v["nccl_version"];
        out.process_groups = process_groups_of(v);
    } else if (key == "attention_workbench") {
        out.extra = std::move(v);
    }
}

void Scanner::read_events_array() {
    top_.saw_events = true;
    ++in_.pos;  // '['
    int c = peek(in_);
    if (c == ']') {
        ++in_.pos;
        return;
    }
    for (;;) {
        if (c < 0) fail("the file ends inside \"traceEvents\" (truncated?)", in_.offset(in_.pos));
        const size_t end = value_end(in_, "an event");
        add_event(in_.pos, end, c == '{');
        in_.pos = end;
        if (closed_or_comma(']', "\"traceEvents\"", "between events")) return;
        c = peek(in_);
    }
}

// After a member of an object or list: true at its closing bracket, false after a ','; both consumed.
bool Scanner::closed_or_comma(char close, const char* inside, const char* where) {
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

void Scanner::add_event(size_t start, size_t end, bool object) {
    if (batch_.text.size() + (end - start) > kBatch) cut();
    batch_.items.push_back({in_.offset(start), object});
    batch_.end_offset = in_.offset(end);
    if (!object) return;
    batch_.text.push_back(batch_.text.empty() ? '[' : ',');
    batch_.text.append(in_.data() + start, end - start);
}

// Hands the batch to the consumer and starts the next one in a used batch's buffers.
void Scanner::cut() {
    if (batch_.items.empty()) return;
    if (!batch_.text.empty()) batch_.text.push_back(']');
    batch_.text.reserve(batch_.text.size() + simdjson::SIMDJSON_PADDING);
    batch_.consumed = in_.consumed();
    batch_.file_position = in_.file_position();
    parse(batch_);
    if (!out_.push(std::move(batch_))) throw Stopped{};
    batch_ = out_.reuse();
    batch_.text.clear();
    batch_.items.clear();
}

void Scanner::parse(Batch& batch) {
    batch.parsed = false;
    if (batch.text.empty()) return;
    if (!batch.parser) batch.parser = std::make_unique<simdjson::dom::parser>();
    simdjson::dom::element doc;
    batch.parsed =
        !batch.parser->parse(batch.text.data(), batch.text.size(), false).get(doc) && !doc.get_array().get(batch.list);
}

// The consumer (the calling thread): reads each parsed event's fields and converts them; reports
// progress and polls cancel between batches.
class Converter {
public:
    Converter(ImportedTrace& out, TraceMeta& meta, RunObserver* observer, int64_t file_size)
        : observer_(observer), file_size_(file_size), events_(out, meta) {}

    void run(Handoff<Batch>& in);
    EventConverter& events() { return events_; }

private:
    void convert(const Batch& batch);
    void convert_one_by_one(const Batch& batch);
    void reserve_ahead(const Batch& batch);
    void poll(const Batch& batch);

    RunObserver* observer_;
    const int64_t file_size_;
    trace_io::FileProgress progress_;
    EventConverter events_;
};

void Converter::run(Handoff<Batch>& in) {
    while (std::optional<Batch> batch = in.pop()) {
        convert(*batch);
        reserve_ahead(*batch);
        poll(*batch);
        in.give_back(std::move(*batch));
    }
}

// Progress once per percent of the file (a report per 512 KiB batch took a third of a core from the
// import on 2 cores, in the GUI's status bar's repaints).
void Converter::poll(const Batch& batch) { progress_.report(observer_, batch.file_position, file_size_); }

void Converter::convert(const Batch& batch) {
    if (!batch.text.empty() && !batch.parsed) {
        convert_one_by_one(batch);
        return;
    }
    auto it = batch.text.empty() ? simdjson::dom::array::iterator{} : batch.list.begin();
    for (const Batch::Item& item : batch.items) {
        if (!item.object) {
            events_.skip("not an object", item.offset);
            continue;
        }
        simdjson::dom::object obj;
        RawEvent r;
        if (!(*it).get_object().get(obj)) read_event(obj, r);
        ++it;
        events_.convert(r, item.offset);
    }
}

// After each batch, the events per byte so far times the file's inflated size (for .gz estimated from
// the inflated and compressed bytes read). When that is beyond what the vector holds, it reserves twice
// the estimate: pages a vector reserves but never fills are not resident, so the room costs nothing,
// while growing late (a file whose last part is denser) would hold the old and the new array at once.
void Converter::reserve_ahead(const Batch& batch) {
    if (file_size_ <= 0 || batch.end_offset <= 0 || batch.file_position <= 0) return;
    const double inflated_total = double(file_size_) * double(batch.consumed) / double(batch.file_position);
    std::vector<TraceEvent>& events = events_.events();
    const double estimate = double(events.size()) / double(batch.end_offset) * inflated_total;
    if (estimate > double(events.capacity()) && estimate < 1e9) events.reserve(size_t(estimate * 2));
}

// The batch is not valid JSON as a whole: parse its events one by one, to skip the ones with a number
// out of range (1e400, 2^64) and to name the first broken one with its offset.
void Converter::convert_one_by_one(const Batch& batch) {
    size_t pos = 1;
    std::string one;
    simdjson::dom::parser parser;
    for (const Batch::Item& item : batch.items) {
        if (!item.object) {
            events_.skip("not an object", item.offset);
            continue;
        }
        const int64_t start = item.offset;
        const size_t end = scan_value(batch.text.data(), pos, batch.text.size());
        if (end == kMore) fail("an event is not valid JSON", start);
        one.assign(batch.text, pos, end - pos);
        one.reserve(one.size() + simdjson::SIMDJSON_PADDING);
        pos = end + 1;  // past the ','
        simdjson::dom::element doc;
        simdjson::dom::object obj;
        const simdjson::error_code error = parser.parse(one.data(), one.size(), false).get(doc);
        if (error == simdjson::NUMBER_ERROR || error == simdjson::NUMBER_OUT_OF_RANGE) {
            events_.skip("a number is out of range (" + std::string(simdjson::error_message(error)) + ")", start);
            continue;
        }
        if (error == simdjson::DEPTH_ERROR) {
            events_.skip("nested deeper than " + std::to_string(parser.max_depth()) + " levels", start);
            continue;
        }
        if (error) fail("an event is not valid JSON: " + std::string(simdjson::error_message(error)), start);
        RawEvent r;
        if (!doc.get_object().get(obj)) read_event(obj, r);
        events_.convert(r, start);
    }
}

// The scanner on its own thread, the converter on this one; the scanner is stopped and joined on
// every way out (an error on either side, a cancel).
ImportedTrace read_trace(TraceInput& in, const std::string& path, RunObserver* observer) {
    ImportedTrace out;
    TraceMeta meta;
    meta.source = path;
    Handoff<Batch> handoff(kBatchesInFlight);
    Scanner scanner(in, handoff);
    Converter converter(out, meta, observer, in.file_size());
    std::thread producer([&scanner] { scanner.run(); });
    struct Join {
        Handoff<Batch>& handoff;
        std::thread& thread;
        void now() {
            if (!thread.joinable()) return;
            handoff.stop();
            thread.join();
        }
        ~Join() { now(); }
    } join{handoff, producer};
    converter.run(handoff);
    // The batches' buffers and parsers (a few MiB each) are freed before the events are sorted, the
    // import's peak.
    join.now();
    handoff.drop_spares();
    scanner.drop_batch();
    TopLevel& top = scanner.top();
    if (!top.saw_events) fail("no \"traceEvents\" list: not a chrome trace", top.head.bytes_read);
    out.trace_name = std::move(top.head.trace_name);
    out.extra = std::move(top.head.extra);
    out.devices = std::move(top.head.devices);
    out.header = std::move(top.head.header);
    out.rank = top.head.rank;
    out.world_size = top.head.world_size;
    out.backend = std::move(top.head.backend);
    out.process_groups = std::move(top.head.process_groups);
    out.has_base_time = top.head.has_base_time;
    out.bytes_read = top.head.bytes_read;
    note_summary(out);
    converter.events().finish(top.base_ns);
    return out;
}

}  // namespace

namespace {

// The JSON bytes a trace file holds: its size, or for gzip the inflated size of its trailer (ISIZE, the
// size mod 4 GiB; one smaller than the file has wrapped: then 15x the file, a usual ratio for traces).
// Unknown (-1) for what is not a regular file: a pipe is never opened twice, as a second open and close
// would let its writer on and lose what it writes while no reader holds it.
int64_t json_bytes_of(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return -1;
    const int64_t size = int64_t(in.tellg());
    unsigned char head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
    in.seekg(0);
    if (size < 18 || !in.read(reinterpret_cast<char*>(head), 2) || head[0] != 0x1f || head[1] != 0x8b) return size;
    in.seekg(size - 4);
    if (!in.read(reinterpret_cast<char*>(tail), 4)) return size;
    const int64_t isize = int64_t(tail[0]) | int64_t(tail[1]) << 8 | int64_t(tail[2]) << 16 | int64_t(tail[3]) << 24;
    return isize >= size ? isize : 15 * size;
}

// Refuses, before reading, a trace whose import would not fit: the importer peaks at about 0.6x the
// JSON (docs/performance.md) plus its own 64 MiB; past what this process may still take, the OOM killer
// would end the program instead of a message.
void refuse_if_it_cannot_fit(const std::string& path) {
    const int64_t json = json_bytes_of(path);
    if (json <= 0) return;
    const int64_t need = int64_t(0.6 * double(json)) + (int64_t(64) << 20);
    const HostMemory host = host_memory();
    if (host.available_bytes >= 0 && need > host.available_bytes)
        throw TraceImportError("'" + path + "' needs about " + format_mib(need) + " of memory to import (" +
                               format_mib(json) + " of JSON) but " + format_mib(host.available_bytes) + " is left (" +
                               host.limited_by + "); import it where more memory is free");
}

}  // namespace

ImportedTrace import_chrome_trace(const std::string& path, RunObserver* observer) {
    refuse_if_it_cannot_fit(path);
    TraceInput in(path);
    if (!in.ok()) throw TraceImportError("cannot open '" + path + "'");
    try {
        return read_trace(in, path, observer);
    } catch (const ReadError& e) {
        throw TraceImportError("'" + path + "' is not a readable trace: " + e.what);
    } catch (const std::bad_alloc&) {
        throw TraceImportError("'" + path + "' does not fit in memory");
    }
}

namespace {

// The readers of several files at once report through one observer, one at a time, each file's
// progress said with its place ("file 3 of 8: ..."); cancel is asked of the caller's.
class FileObserver : public RunObserver {
public:
    FileObserver(RunObserver* inner, std::mutex& lock, size_t file, size_t files)
        : inner_(inner), lock_(lock), file_(file), files_(files) {}
    void on_progress(int done, int total, const std::string& what) override {
        if (!inner_) return;
        std::lock_guard held(lock_);
        inner_->on_progress(done, total,
                            "file " + std::to_string(file_ + 1) + " of " + std::to_string(files_) + ": " + what);
    }
    bool cancel_requested() const override { return inner_ && inner_->cancel_requested(); }

private:
    RunObserver* inner_;
    std::mutex& lock_;
    size_t file_, files_;
};

}  // namespace

// Two readers at a time: each is itself two threads (the scan and the conversion), and a real trace's
// conversion leaves the scan's core partly idle.
std::vector<ImportedTrace> import_chrome_trace_files(const std::vector<std::string>& paths, RunObserver* observer) {
    if (paths.empty()) throw TraceImportError("no trace files to open");
    std::vector<ImportedTrace> parts(paths.size());
    std::mutex report_lock;
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_lock;
    auto reader = [&] {
        for (size_t i; !failed && (i = next++) < paths.size();) {
            try {
                FileObserver reporting(observer, report_lock, i, paths.size());
                parts[i] = import_chrome_trace(paths[i], &reporting);
            } catch (...) {
                std::lock_guard held(error_lock);
                if (!error) error = std::current_exception();
                failed = true;
            }
        }
    };
    std::thread second(reader);
    reader();
    second.join();
    if (error) std::rethrow_exception(error);
    return parts;
}

namespace {

// The parts of run r, moved out of parts, and their paths.
ImportedTrace take_run(std::vector<ImportedTrace>& parts, const std::vector<std::string>& paths,
                       const trace_io::RankRun& r) {
    if (r.files.size() == 1) return std::move(parts[r.files.front()]);
    std::vector<ImportedTrace> mine;
    std::vector<std::string> mine_paths;
    for (size_t i : r.files) {
        mine.push_back(std::move(parts[i]));
        mine_paths.push_back(paths[i]);
    }
    return trace_io::merge_ranks(std::move(mine), mine_paths);
}

}  // namespace

ImportedTrace merge_rank_traces(std::vector<ImportedTrace> parts, const std::vector<std::string>& paths) {
    if (parts.size() == 1) return std::move(parts.front());
    const std::vector<trace_io::RankRun> runs = trace_io::group_rank_files(parts, paths);
    if (runs.size() > 1) {
        std::vector<std::vector<std::string>> files;
        for (const auto& r : runs) {
            files.emplace_back();
            for (size_t i : r.files) files.back().push_back(paths[i]);
        }
        throw MixedRunsError(trace_io::mixed_runs_message(runs, paths), std::move(files));
    }
    return take_run(parts, paths, runs.front());
}

ImportedTrace import_chrome_traces(const std::vector<std::string>& paths, RunObserver* observer) {
    if (paths.size() == 1) return import_chrome_trace(paths.front(), observer);
    return merge_rank_traces(import_chrome_trace_files(paths, observer), paths);
}

std::vector<ImportedTrace> import_chrome_trace_runs(const std::vector<std::string>& paths, RunObserver* observer) {
    std::vector<ImportedTrace> parts = import_chrome_trace_files(paths, observer);
    std::vector<ImportedTrace> out;
    for (const trace_io::RankRun& r : trace_io::group_rank_files(parts, paths))
        out.push_back(take_run(parts, paths, r));
    return out;
}

}  // namespace awb
