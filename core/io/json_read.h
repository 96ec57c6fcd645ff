// Reading our results files without trusting them: the file parsed with its problem in words, the schema
// checked, and numbers read so that an integer field holding a fraction, a float too large for its type
// or a number of the wrong sign for a count throws nlohmann's own exceptions, whose text
// (JSON_DIAGNOSTICS) names the field, like a missing field or a wrong type does: "(/timing/repeats)
// 1e+300 is not an integer of this field's range". read_or_throw turns them into the one message a
// reader gives. Every reader of our files (run_json, measurement_json, workspace) uses these.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "model/run_observer.h"

namespace awb {

// The largest count or byte size a results file may hold (2^50: 1 PiB): sums of thousands of them stay
// far from int64 overflow.
inline constexpr int64_t kMaxFileMagnitude = int64_t(1) << 50;

template <typename Int>
Int checked_int(const nlohmann::json& v) {
    using limits = std::numeric_limits<Int>;
    if (v.is_number_unsigned()) {
        const auto u = v.get<uint64_t>();
        if (u <= uint64_t(limits::max())) return Int(u);
    } else if (v.is_number_integer()) {
        const auto s = v.get<int64_t>();
        if (s >= int64_t(limits::min()) && (s < 0 || uint64_t(s) <= uint64_t(limits::max()))) return Int(s);
    } else if (v.is_number_float()) {
        const double d = v.get<double>();
        // Our files write integers as integers; an integral float in range is read as one.
        if (d == std::trunc(d) && d >= double(limits::min()) && d < double(limits::max())) return Int(d);
    } else {
        throw nlohmann::json::type_error::create(302, std::string("type must be number, but is ") + v.type_name(), &v);
    }
    throw nlohmann::json::out_of_range::create(406, v.dump() + " is not an integer of this field's range", &v);
}

// A count, size or time of a results file: checked_int, and at most kMaxFileMagnitude either way.
inline int64_t checked_magnitude(const nlohmann::json& v) {
    const auto n = checked_int<int64_t>(v);
    if (n > kMaxFileMagnitude || n < -kMaxFileMagnitude)
        throw nlohmann::json::out_of_range::create(406, v.dump() + " is out of range (at most 2^50)", &v);
    return n;
}

template <typename Int>
Int checked_field(const nlohmann::json& v) {
    if constexpr (sizeof(Int) == 8) return Int(checked_magnitude(v));
    return checked_int<Int>(v);
}

// j[key], null when j has no such key; j must be an object (else nlohmann's type_error naming j).
inline const nlohmann::json* find_field(const nlohmann::json& j, const char* key) {
    if (!j.is_object())
        throw nlohmann::json::type_error::create(306, std::string("cannot read '") + key + "' of a " + j.type_name(),
                                                 &j);
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

// j.at(key) as an integer (missing: nlohmann's out_of_range naming the key); 64-bit ones at most 2^50.
template <typename Int>
Int int_at(const nlohmann::json& j, const char* key) {
    return checked_field<Int>(j.at(key));
}

// j[key] as an integer, fallback when j has no such key; 64-bit ones at most 2^50.
template <typename Int>
Int int_or(const nlohmann::json& j, const char* key, Int fallback) {
    const nlohmann::json* v = find_field(j, key);
    return v ? checked_field<Int>(*v) : fallback;
}

template <typename Int>
std::vector<Int> int_list_at(const nlohmann::json& j, const char* key) {
    const nlohmann::json& a = j.at(key);
    if (!a.is_array())
        throw nlohmann::json::type_error::create(302, std::string("type must be array, but is ") + a.type_name(), &a);
    std::vector<Int> out;
    out.reserve(a.size());
    for (const auto& v : a) out.push_back(checked_field<Int>(v));
    return out;
}

// A time in microseconds (a JSON number) as nanoseconds, at most limit_us either way.
inline int64_t checked_ns_of_us(const nlohmann::json& v, double limit_us) {
    if (!v.is_number())
        throw nlohmann::json::type_error::create(302, std::string("type must be number, but is ") + v.type_name(), &v);
    const double us = v.get<double>();
    if (!(std::fabs(us) <= limit_us))
        throw nlohmann::json::out_of_range::create(406, v.dump() + " us is out of range", &v);
    return int64_t(std::llround(us * 1000.0));
}

// j[key] (fallback 0) in us as ns. A duration is at most 1e12 us (11.6 days), so that sums of thousands
// cannot overflow; a timestamp (PyTorch's are since the epoch, ~1.8e15 us) at most 4e15 us (year 2096).
inline int64_t duration_ns(const nlohmann::json& j, const char* key) {
    const nlohmann::json* v = find_field(j, key);
    return v ? checked_ns_of_us(*v, 1e12) : 0;
}
inline int64_t timestamp_ns(const nlohmann::json& j, const char* key) {
    const nlohmann::json* v = find_field(j, key);
    return v ? checked_ns_of_us(*v, 4e15) : 0;
}

// j[key] when it is an array, an empty array when j has no such key (by reference, so that errors in
// its elements still name their place); anything else throws naming the field.
inline const nlohmann::json& array_or_empty(const nlohmann::json& j, const char* key) {
    static const nlohmann::json empty = nlohmann::json::array();
    const nlohmann::json* v = find_field(j, key);
    if (!v) return empty;
    if (!v->is_array())
        throw nlohmann::json::type_error::create(302, std::string("type must be array, but is ") + v->type_name(), v);
    return *v;
}

// Reading our results files. check_schema throws std::runtime_error unless j is an object with this
// schema and version; read_or_throw runs a reader and turns the spec parser's and nlohmann's exceptions
// into one std::runtime_error. noun names the file in the messages ("profile report", "sweep file").
void check_schema(const nlohmann::json& j, const std::string& schema, int version, const std::string& noun);
// nlohmann's exception in words, with the field it is about (JSON_DIAGNOSTICS):
// "[json.exception.type_error.302] (/points/3/bench/timing) type must be number, but is string" ->
// "field points[3].bench.timing: type must be number, but is string"; a missing key ->
// "field points[3].bench.timing.repeats is missing".
std::string json_error_in_words(const nlohmann::json::exception& e);

template <typename Read>
auto read_or_throw(const std::string& noun, Read&& read) {
    try {
        return read();
    } catch (const InvalidInput& e) {
        throw std::runtime_error(noun + " has a bad spec or options: " + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(noun + " is malformed: " + json_error_in_words(e));
    }
}

// Parses the JSON file at path; throws std::runtime_error naming the path and the problem.
nlohmann::json read_json_file(const std::string& path);
// Why text is not JSON, in words: "it is empty", "it is a PNG image", "it is not valid JSON at line 3,
// column 5: unexpected end of input ...", for messages that name the file.
std::string json_problem_in_words(const std::string& text, const nlohmann::json::parse_error& e);

}  // namespace awb
