#include "io/pickle_reader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/pickle_machine.h"
#include "io/trace_input.h"

namespace awb::pickle {

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::None: return "None";
        case Kind::Bool: return "bool";
        case Kind::Int: return "int";
        case Kind::Float: return "float";
        case Kind::Str: return "str";
        case Kind::Bytes: return "bytes";
        case Kind::List: return "list";
        case Kind::Tuple: return "tuple";
        case Kind::Dict: return "dict";
    }
    return "?";
}

std::string a_kind(Kind kind) { return std::string(kind == Kind::Int ? "an " : "a ") + kind_name(kind); }

const PickleValue* PickleValue::find(std::string_view key) const {
    if (kind != Kind::Dict) return nullptr;
    for (size_t i = items.size() & ~size_t(1); i >= 2; i -= 2)  // the last one, as Python's dict keeps
        if (items[i - 2]->kind == Kind::Str && items[i - 2]->text == key) return items[i - 1];
    return nullptr;
}

PickleError::PickleError(const std::string& what, int64_t offset)
    : std::runtime_error(what + " (byte offset " + std::to_string(offset) + ")"), offset_(offset) {}

namespace {

// The machine's compact store as PickleValues: one per container and per str (so sharing, and even a
// cycle, is kept), one per scalar. No recursion: a damaged file may nest without bound.
class DocumentMaker {
public:
    DocumentMaker(const ValueStore& store, PickleDocument& doc) : store_(store), doc_(doc) {}

    void make() {
        containers_.resize(store_.containers.size());
        strings_.resize(store_.strings.size());
        for (size_t i = 0; i < containers_.size(); ++i) containers_[i] = &doc_.arena.emplace_back();
        for (size_t i = 0; i < containers_.size(); ++i) {
            const Container& c = store_.containers[i];
            containers_[i]->kind = c.kind;
            containers_[i]->items.reserve(c.items.size());
            for (const Ref& r : c.items) containers_[i]->items.push_back(value(r));
        }
        doc_.root = value(store_.root);
        doc_.protocol = store_.protocol;
    }

private:
    const PickleValue* value(Ref r) {
        if (r.is_container()) return containers_[r.index];
        if ((r.kind == Kind::Str || r.kind == Kind::Bytes) && strings_[r.index]) return strings_[r.index];
        PickleValue& v = doc_.arena.emplace_back();
        v.kind = r.kind;
        v.boolean = r.kind == Kind::Bool && r.num;
        v.integer = r.kind == Kind::Int ? r.num : 0;
        v.real = r.kind == Kind::Float ? r.real() : 0;
        if (r.kind == Kind::Str || r.kind == Kind::Bytes) {
            v.text = store_.text(r);
            strings_[r.index] = &v;
        }
        return &v;
    }

    const ValueStore& store_;
    PickleDocument& doc_;
    std::vector<PickleValue*> containers_;
    std::vector<const PickleValue*> strings_;
};

PickleDocument document_of(const ValueStore& store) {
    PickleDocument doc;
    DocumentMaker(store, doc).make();
    return doc;
}

}  // namespace

PickleDocument read_pickle_bytes(std::string_view bytes, const PickleLimits& limits) {
    ByteSource source(bytes);
    ValueStore store;
    try {
        run_pickle(source, store, limits, nullptr);
    } catch (const MachineError& e) {
        throw PickleError(e.what, e.offset);
    }
    return document_of(store);
}

bool is_pickle_file(const std::string& path) {
    // A regular file only: opening a pipe to look would take bytes its reader needs (and a pipe
    // opened and closed lets its writer go on with nobody reading).
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return false;
    unsigned char head[2] = {0, 0};
    const int n = gzread(f, head, 2);
    gzclose(f);
    return n == 2 && is_pickle_head(head, 2);
}

void read_pickle_store(const std::string& path, ValueStore& store, const PickleLimits& limits, EventSink* sink,
                       RunObserver* observer) {
    trace_io::TraceInput in(path);
    if (!in.ok()) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno ? errno : ENOENT));
    ByteSource source(in, observer);
    try {
        run_pickle(source, store, limits, sink);
    } catch (const MachineError& e) {
        throw PickleError(path + ": " + e.what, e.offset);
    } catch (const trace_io::ReadError& e) {  // the gzip stream: its message has its offset already
        throw PickleError(path + ": " + e.what.substr(0, e.what.rfind(" (byte offset ")), in.offset(in.pos));
    }
}

PickleDocument read_pickle_file(const std::string& path, const PickleLimits& limits) {
    ValueStore store;
    read_pickle_store(path, store, limits, nullptr);
    return document_of(store);
}

}  // namespace awb::pickle
