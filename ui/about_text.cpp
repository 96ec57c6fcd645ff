#include "about_text.h"

#include <QtGlobal>

#include "engine/build_info.h"
#include "model/version.h"

namespace awb::ui {

std::string about_text() {
    std::string text = "attention-workbench " AWB_VERSION " (Attention Workbench)\n";
    text += libtorch_lines();
    text += "\nQt: built with " QT_VERSION_STR ", running ";
    text += qVersion();
    return text;
}

}  // namespace awb::ui
