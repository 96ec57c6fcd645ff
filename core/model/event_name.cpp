#include "model/event_name.h"

#include <mutex>
#include <ostream>
#include <unordered_set>

namespace awb {

namespace {

// The names, never freed: each std::string keeps its address (node-based set), so an EventName is a
// pointer to it. Heterogeneous lookup: finding a name does not build a std::string.
struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
struct Pool {
    std::mutex mutex;
    std::unordered_set<std::string, Hash, std::equal_to<>> names;
};

Pool& pool() {
    static Pool* p = new Pool;  // never destroyed: names may be read until the process ends
    return *p;
}

const std::string* empty_name() {
    static const std::string* e = [] {
        Pool& p = pool();
        std::lock_guard lock(p.mutex);
        return &*p.names.emplace().first;
    }();
    return e;
}

}  // namespace

EventName::EventName() : s_(empty_name()) {}

EventName::EventName(std::string_view name) {
    if (name.empty()) {
        s_ = empty_name();
        return;
    }
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    auto it = p.names.find(name);
    if (it == p.names.end()) it = p.names.emplace(name).first;
    s_ = &*it;
}

size_t EventName::interned_count() {
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    return p.names.size();
}

std::ostream& operator<<(std::ostream& os, const EventName& n) { return os << n.view(); }

}  // namespace awb
