#include "io/json_write.h"

namespace awb {

std::string our_file_text(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("schema")) return j.dump(1) + "\n";
    nlohmann::json rest = j;
    std::string head = "{\n \"schema\": " + rest["schema"].dump();
    rest.erase("schema");
    if (rest.contains("schema_version")) {
        head += ",\n \"schema_version\": " + rest["schema_version"].dump();
        rest.erase("schema_version");
    }
    if (rest.empty()) return head + "\n}\n";
    const std::string body = rest.dump(1);  // "{\n \"a\": ...\n}"
    return head + ",\n" + body.substr(2) + "\n";
}

}  // namespace awb
