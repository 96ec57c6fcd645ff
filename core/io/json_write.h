// How every file of ours is written: JSON indented by one, its "schema" and "schema_version" first so
// that a file's first line says what it is (the desktop's MIME magic and `head -2` read it there), the
// other keys as nlohmann orders them, and a final newline.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace awb {

std::string our_file_text(const nlohmann::json& j);

}  // namespace awb
