#include "io/json_read.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "model/printf_string.h"

namespace awb {

using nlohmann::json;

void check_schema(const json& j, const std::string& schema, int version, const std::string& noun) {
    if (!j.is_object() || j.value("schema", std::string()) != schema)
        throw std::runtime_error("not an Attention Workbench " + noun + " (schema is not '" + schema + "')");
    const int found = int_or<int>(j, "schema_version", 0);
    if (found != version)
        throw std::runtime_error(noun + " schema_version " + std::to_string(found) +
                                 " is not supported (this build reads " + std::to_string(version) + ")");
}

std::string json_error_in_words(const json::exception& e) {
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
        what = what.substr(what.find("] ") + 2);
    std::string pointer;
    if (!what.empty() && what[0] == '(' && what.find(") ") != std::string::npos) {
        pointer = what.substr(1, what.find(") ") - 1);
        what = what.substr(what.find(") ") + 2);
    }
    // "key 'repeats' not found": the field is the missing key.
    const std::string tail = " not found";
    if (what.rfind("key '", 0) == 0 && what.size() > 5 + tail.size() + 1 &&
        what.compare(what.size() - tail.size() - 1, tail.size() + 1, "'" + tail) == 0) {
        pointer += "/" + what.substr(5, what.size() - 5 - tail.size() - 1);
        what.clear();
    }
    // JSON pointer -> a.b[3].c ("~1" and "~0" stand for '/' and '~').
    std::string field;
    for (size_t at = 0; at < pointer.size();) {
        const size_t next = std::min(pointer.find('/', at + 1), pointer.size());
        std::string part = pointer.substr(at + 1, next - at - 1);
        for (size_t k; (k = part.find("~1")) != std::string::npos;) part.replace(k, 2, "/");
        for (size_t k; (k = part.find("~0")) != std::string::npos;) part.replace(k, 2, "~");
        const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
        field += index ? "[" + part + "]" : (field.empty() ? "" : ".") + part;
        at = next;
    }
    if (field.empty()) return what;
    return "field " + field + (what.empty() ? " is missing" : ": " + what);
}

std::string json_problem_in_words(const std::string& text, const json::parse_error& e) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "it is empty";
    const auto c = static_cast<unsigned char>(text[first]);
    if (text.compare(first, 4, "\x89PNG") == 0) return "it is a PNG image";
    if (c == 0x1f && first + 1 < text.size() && static_cast<unsigned char>(text[first + 1]) == 0x8b)
        return "it is gzip-compressed (results files are plain JSON; traces may be .json.gz: open those as traces)";
    if (c < 0x20 || c >= 0x7f) return printf_string("it is not text (it starts with byte 0x%02x)", unsigned(c));
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error while parsing
    // object - unexpected end of input; expected string literal": keep the place and the reason.
    std::string what = e.what();
    const size_t at = what.find(" at line ");
    const size_t reason = what.find(" - ");
    std::string where = at == std::string::npos ? "" : what.substr(at + 1, what.find(':', at) - at - 1);
    std::string why = reason == std::string::npos ? what : what.substr(reason + 3);
    if (e.byte >= text.size()) why = "the file ends too early (truncated?): " + why;
    return "it is not valid JSON" + (where.empty() ? "" : " " + where) + ": " + why;
}

json read_json_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        throw std::runtime_error("'" + path + "' cannot be read: " + json_problem_in_words(text, e));
    } catch (const json::exception& e) {  // "number overflow parsing '1e771'" (found by fuzz_results_check)
        throw std::runtime_error("'" + path + "' cannot be read: it is not valid JSON: " + json_error_in_words(e));
    }
}

}  // namespace awb
