#include "trace_import.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <istream>
#include <memory>
#include <streambuf>
#include <unordered_map>
#include <vector>

namespace awb {

using nlohmann::json;

namespace {

// A streambuf over zlib's gzFile: reads .gz inflated and plain files as they are.
class GzStreamBuf final : public std::streambuf {
public:
    explicit GzStreamBuf(const std::string& path) : file_(gzopen(path.c_str(), "rb")), buffer_(1 << 20) {
        if (file_) gzbuffer(file_, 1 << 18);
    }
    ~GzStreamBuf() override {
        if (file_) gzclose(file_);
    }
    bool ok() const { return file_ != nullptr; }
    int64_t consumed() const { return consumed_; }
    std::string zlib_error() {
        int code = 0;
        const char* msg = file_ ? gzerror(file_, &code) : "cannot open";
        return code == Z_OK || code == Z_STREAM_END ? std::string() : std::string(msg);
    }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const int n = gzread(file_, buffer_.data(), unsigned(buffer_.size()));
        if (n <= 0) return traits_type::eof();
        consumed_ += n;
        setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
        return traits_type::to_int_type(*gptr());
    }

private:
    gzFile file_;
    std::vector<char> buffer_;
    int64_t consumed_ = 0;
};

EventKind kind_of(const std::string& cat) {
    if (cat == "cpu_op" || cat == "Operator" || cat == "operator") return EventKind::CpuOp;
    if (cat == "user_annotation" || cat == "gpu_user_annotation") return EventKind::UserAnnotation;
    if (cat == "kernel" || cat == "Kernel") return EventKind::Kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::Memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return EventKind::Memset;
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return EventKind::Runtime;
    return EventKind::Other;
}

bool on_device(const std::string& cat) {
    return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" || cat == "gpu_memset" ||
           cat == "Memset" || cat == "gpu_user_annotation";
}

// pid/tid are numbers or strings ("stream 7", "12345"): the digits, or a stable hash.
uint64_t id_of(const json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer()) return uint64_t(v.get<int64_t>());
    if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        uint64_t digits = 0;
        bool any = false;
        for (char c : s)
            if (c >= '0' && c <= '9') {
                digits = digits * 10 + uint64_t(c - '0');
                any = true;
            }
        return any ? digits : std::hash<std::string>{}(s);
    }
    return 0;
}

int64_t int_arg(const json& args, const char* key, int64_t fallback) {
    const auto it = args.find(key);
    return it != args.end() && it->is_number() ? it->get<int64_t>() : fallback;
}

// Builds each event object as a small DOM while the rest of the file streams by.
class Handler final : public nlohmann::json_sax<json> {
public:
    Handler(GzStreamBuf& in, RunObserver* observer) : in_(in), observer_(observer) {}

    bool null() override { return value(json(nullptr)); }
    bool boolean(bool v) override { return value(json(v)); }
    bool number_integer(number_integer_t v) override {
        if (depth_ == 1 && key_ == "baseTimeNanoseconds") base_ns_ = v;
        return value(json(v));
    }
    bool number_unsigned(number_unsigned_t v) override {
        if (depth_ == 1 && key_ == "baseTimeNanoseconds") base_ns_ = int64_t(v);
        return value(json(v));
    }
    bool number_float(number_float_t v, const string_t&) override {
        if (depth_ == 1 && key_ == "baseTimeNanoseconds") base_ns_ = int64_t(std::llround(v));
        return value(json(v));
    }
    bool string(string_t& v) override {
        if (depth_ == 1 && key_ == "traceName") trace_name_ = v;
        return value(json(std::move(v)));
    }
    bool binary(binary_t&) override { return value(json(nullptr)); }

    bool start_object(std::size_t) override {
        ++depth_;
        if (depth_ == 1) {
            root_is_array_ = false;
            return true;
        }
        if (building()) return push(json::object());
        if (in_events() && depth_ == event_depth()) return push(json::object());
        if (depth_ == 2 && key_ == "attention_workbench") return push(json::object());
        return true;
    }
    bool end_object() override {
        if (!stack_.empty()) {
            stack_.pop_back();  // a nested value was attached to its parent when it started
            if (stack_.empty()) {
                if (depth_ == event_depth() && in_events()) {
                    convert(*root_);
                    if (++events_seen_ % 4096 == 0) poll();
                } else {
                    extra_ = std::move(*root_);
                }
                root_.reset();
            }
        }
        --depth_;
        return true;
    }
    bool start_array(std::size_t) override {
        ++depth_;
        if (depth_ == 1) {
            root_is_array_ = true;  // the legacy plain array of events
            events_array_depth_ = 1;
            return true;
        }
        if (building()) return push(json::array());
        if (depth_ == 2 && key_ == "traceEvents") events_array_depth_ = 2;
        return true;
    }
    bool end_array() override {
        if (!stack_.empty()) {
            stack_.pop_back();
        } else if (depth_ == events_array_depth_) {
            events_array_depth_ = -1;
        }
        --depth_;
        return true;
    }
    bool key(string_t& k) override {
        if (building()) {
            pending_key_ = k;
        } else if (depth_ == 1) {
            key_ = k;
        }
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
        error_ = "byte offset " + std::to_string(position) + ": " + ex.what();
        return false;
    }

    std::vector<TraceEvent> events;
    std::vector<MemoryEvent> memory;
    int64_t base_ns_ = 0;
    std::string trace_name_;
    json extra_;
    std::string error_;

private:
    bool in_events() const { return events_array_depth_ > 0; }
    int event_depth() const { return events_array_depth_ + 1; }
    bool building() const { return !stack_.empty(); }
    bool push(json v) {
        if (stack_.empty()) {
            root_ = std::make_unique<json>(std::move(v));
            stack_.push_back(root_.get());
        } else {
            stack_.push_back(&attach_and_get(std::move(v)));
        }
        return true;
    }
    json& attach_and_get(json v) {
        json& parent = *stack_.back();
        if (parent.is_array()) {
            parent.push_back(std::move(v));
            return parent.back();
        }
        return parent[pending_key_] = std::move(v);
    }
    bool value(json v) {
        if (building()) attach_and_get(std::move(v));
        return true;
    }
    void poll() {
        if (!observer_) return;
        observer_->on_progress(int(in_.consumed() >> 20), 0, "read " + std::to_string(in_.consumed() >> 20) + " MiB");
        if (observer_->cancel_requested()) throw Cancelled();
    }
    // Nanoseconds from a microsecond value with a fractional part.
    static int64_t ns_of(const json& us) { return us.is_number() ? int64_t(std::llround(us.get<double>() * 1000.0)) : 0; }

    void convert(const json& e) {
        const auto ph = e.find("ph");
        if (ph == e.end() || !ph->is_string()) return;
        const std::string& p = ph->get_ref<const std::string&>();
        const json empty = json::object();
        const auto args_it = e.find("args");
        const json& args = args_it != e.end() && args_it->is_object() ? *args_it : empty;
        const std::string name = e.value("name", std::string());
        if (p == "i" && name == "[memory]") {
            MemoryEvent m;
            m.ts_ns = base_ns_ + ns_of(e.value("ts", json(0)));
            m.bytes = int_arg(args, "Bytes", 0);
            m.device = int_arg(args, "Device Type", 0) == 1 ? DeviceKind::CUDA : DeviceKind::CPU;
            m.device_index = int(int_arg(args, "Device Id", -1));
            m.thread = id_of(e.value("tid", json(0)));
            m.total_allocated = int_arg(args, "Total Allocated", -1);
            m.total_reserved = int_arg(args, "Total Reserved", -1);
            memory.push_back(m);
            return;
        }
        if (p != "X") return;
        const std::string cat = e.value("cat", std::string());
        TraceEvent t;
        t.name = name;
        t.kind = kind_of(cat);
        t.start_ns = base_ns_ + ns_of(e.value("ts", json(0)));
        t.end_ns = t.start_ns + std::max<int64_t>(0, ns_of(e.value("dur", json(0))));
        if (on_device(cat)) {
            t.device = DeviceKind::CUDA;
            t.device_index = int(int_arg(args, "device", int64_t(id_of(e.value("pid", json(0))))));
            t.thread = uint64_t(int_arg(args, "stream", int64_t(id_of(e.value("tid", json(0))))));
            t.correlation_id = int_arg(args, "correlation", 0);
            t.linked_correlation_id = int_arg(args, "External id", int_arg(args, "external id", 0));
        } else {
            t.thread = id_of(e.value("tid", json(0)));
            t.correlation_id = int_arg(args, "External id", int_arg(args, "external id", 0));
            if (t.kind == EventKind::Runtime) t.linked_correlation_id = int_arg(args, "correlation", 0);
        }
        if (t.kind == EventKind::UserAnnotation) t.scope = 5;  // at::RecordScope::USER_SCOPE
        t.sequence_nr = int_arg(args, "Sequence number", -1);
        t.fwd_thread = uint64_t(int_arg(args, "Fwd thread id", 0));
        for (const char* key : {"Input Dims", "Input dims"}) {
            const auto dims = args.find(key);
            if (dims == args.end() || !dims->is_array()) continue;
            for (const auto& shape : *dims) {
                std::vector<int64_t> s;
                if (shape.is_array())
                    for (const auto& d : shape)
                        if (d.is_number()) s.push_back(d.get<int64_t>());
                t.shapes.push_back(std::move(s));
            }
        }
        const auto types = args.find("Input type");
        if (types != args.end() && types->is_array())
            for (const auto& d : *types) t.dtypes.push_back(d.is_string() ? d.get<std::string>() : std::string());
        events.push_back(std::move(t));
    }

    GzStreamBuf& in_;
    RunObserver* observer_;
    int depth_ = 0;
    bool root_is_array_ = false;
    int events_array_depth_ = -1;
    std::string key_;          // current key of the root object
    std::string pending_key_;  // key inside the object being built
    std::unique_ptr<json> root_;
    std::vector<json*> stack_;
    int64_t events_seen_ = 0;
};

}  // namespace

ImportedTrace import_chrome_trace(const std::string& path, RunObserver* observer) {
    GzStreamBuf buf(path);
    if (!buf.ok()) throw TraceImportError("cannot open '" + path + "'");
    std::istream in(&buf);
    Handler handler(buf, observer);
    bool ok = false;
    try {
        ok = json::sax_parse(in, &handler);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        throw TraceImportError("'" + path + "' is not a readable trace: " + e.what());
    }
    const std::string zerr = buf.zlib_error();
    if (!zerr.empty()) throw TraceImportError("'" + path + "' is not a readable gzip file: " + zerr);
    if (!ok) throw TraceImportError("'" + path + "' is not valid JSON at " + handler.error_);
    if (handler.events.empty() && handler.memory.empty())
        throw TraceImportError("'" + path + "' holds no trace events (no \"traceEvents\" with complete events)");
    ImportedTrace out;
    TraceMeta meta;
    meta.origin_ns = handler.base_ns_;
    meta.source = path;
    out.trace = Trace::build(std::move(handler.events), std::move(handler.memory), std::move(meta));
    out.trace_name = handler.trace_name_;
    out.extra = std::move(handler.extra_);
    out.bytes_read = buf.consumed();
    return out;
}

bool looks_like_chrome_trace(const std::string& path) {
    GzStreamBuf buf(path);
    if (!buf.ok()) return false;
    std::istream in(&buf);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(size_t(in.gcount()));
    const size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return false;
    return head[first] == '[' || head.find("\"traceEvents\"") != std::string::npos;
}

}  // namespace awb
