#include "io/trace_import.h"

#include <simdjson.h>

#include <cmath>
#include <set>
#include <string_view>

#include "io/json_scan.h"
#include "io/trace_convert.h"
#include "io/trace_fields.h"
#include "io/trace_input.h"
#include "io/trace_ranks.h"

// The importer's driver: the input (trace_input), the structural scan (json_scan) that finds the
// top-level keys and cuts "traceEvents" into event objects, batches of them parsed by simdjson and
// read field by field (trace_fields), conversion into the Trace (trace_convert), and for a folder or
// several files the rank merge (trace_ranks) of what discovery (trace_files) found.
namespace awb {

using nlohmann::json;

namespace {

using namespace trace_io;
using simdjson::dom::element;

constexpr size_t kBatch = size_t(4) << 20;  // bytes of event objects parsed by simdjson at once

class Reader {
public:
    Reader(TraceInput& in, RunObserver* observer, const std::string& path) : in_(in), observer_(observer), events_(out_, meta_) {
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
    void poll();

    TraceInput& in_;
    RunObserver* observer_;
    simdjson::dom::parser parser_;
    std::string batch_;
    std::vector<int64_t> starts_;  // byte offset of each event of the batch
    ImportedTrace out_;
    TraceMeta meta_;
    EventConverter events_;  // after out_ and meta_, which it fills
    int64_t base_ns_ = 0;
    bool saw_events_ = false;
    bool reserved_ = false;
};

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
    out_.bytes_read = in_.consumed();
    events_.finish(base_ns_);
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
            events_.skip("not an object", in_.offset(in_.pos));
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
            events_.convert(r, starts_[k++]);
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
    std::vector<TraceEvent>& events = events_.events();
    const double per_byte = double(events.size()) / double(in_.consumed());
    const double estimate = per_byte * inflated_total * 1.05;
    if (estimate > double(events.size()) && estimate < 2e9) events.reserve(size_t(estimate));
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

}  // namespace

ImportedTrace import_chrome_trace(const std::string& path, RunObserver* observer) {
    TraceInput in(path);
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
    return merge_ranks(std::move(parts), paths);
}

}  // namespace awb
