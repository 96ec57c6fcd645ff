// An event's name, interned: every distinct name is stored once for the life of the process and an
// event holds a pointer to it (8 bytes instead of a std::string's 32 plus a heap copy of each long
// kernel or Python frame name). A trace has a few thousand distinct names among millions of events;
// reopening the same traces adds nothing. Equal names are the same pointer, so comparing two names
// is one comparison. Reads like a const std::string (size(), find(), ==, conversion to
// std::string_view and const std::string&). Thread-safe.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace awb {

class EventName {
public:
    EventName();                       // ""
    EventName(std::string_view name);  // NOLINT: implicit, names are assigned from strings everywhere
    EventName(const std::string& name) : EventName(std::string_view(name)) {}
    EventName(const char* name) : EventName(std::string_view(name)) {}

    const std::string& str() const { return *s_; }
    operator const std::string&() const { return *s_; }  // NOLINT
    operator std::string_view() const { return *s_; }    // NOLINT
    std::string_view view() const { return *s_; }

    const char* c_str() const { return s_->c_str(); }
    const char* data() const { return s_->data(); }
    size_t size() const { return s_->size(); }
    size_t length() const { return s_->size(); }
    bool empty() const { return s_->empty(); }
    char operator[](size_t i) const { return (*s_)[i]; }
    std::string::const_iterator begin() const { return s_->begin(); }
    std::string::const_iterator end() const { return s_->end(); }
    size_t find(std::string_view s, size_t pos = 0) const { return view().find(s, pos); }
    size_t find(char c, size_t pos = 0) const { return view().find(c, pos); }
    size_t rfind(std::string_view s, size_t pos = std::string::npos) const { return view().rfind(s, pos); }
    size_t rfind(char c, size_t pos = std::string::npos) const { return view().rfind(c, pos); }
    size_t find_first_of(std::string_view s, size_t pos = 0) const { return view().find_first_of(s, pos); }
    size_t find_last_of(std::string_view s, size_t pos = std::string::npos) const {
        return view().find_last_of(s, pos);
    }
    std::string substr(size_t pos = 0, size_t n = std::string::npos) const { return s_->substr(pos, n); }
    int compare(std::string_view s) const { return view().compare(s); }
    bool starts_with(std::string_view s) const { return view().starts_with(s); }
    bool ends_with(std::string_view s) const { return view().ends_with(s); }

    friend bool operator==(const EventName& a, const EventName& b) { return a.s_ == b.s_; }
    friend bool operator==(const EventName& a, std::string_view b) { return a.view() == b; }
    friend bool operator==(const EventName& a, const std::string& b) { return a.view() == b; }
    friend bool operator==(const EventName& a, const char* b) { return a.view() == b; }
    friend std::strong_ordering operator<=>(const EventName& a, const EventName& b) { return a.view() <=> b.view(); }
    friend std::strong_ordering operator<=>(const EventName& a, std::string_view b) { return a.view() <=> b; }
    friend std::string operator+(const EventName& a, std::string_view b) { return std::string(a.view()).append(b); }
    friend std::string operator+(std::string_view a, const EventName& b) { return std::string(a).append(b.view()); }
    friend std::string operator+(const std::string& a, const EventName& b) { return a + b.str(); }
    friend std::string operator+(const char* a, const EventName& b) { return std::string(a) + b.str(); }

    // Distinct names interned so far (for tests and diagnostics).
    static size_t interned_count();

private:
    const std::string* s_;
};

std::ostream& operator<<(std::ostream& os, const EventName& n);

}  // namespace awb

template <>
struct std::hash<awb::EventName> {
    size_t operator()(const awb::EventName& n) const { return std::hash<const void*>{}(n.data()); }
};
