# Renders the AppStream metadata from attention-workbench.metainfo.xml.in. Used by app/CMakeLists.txt
# (include) and by the install test (cmake -P, to validate the form with links too). Variables in:
#   AWB_METAINFO_IN, AWB_METAINFO_OUT   the template and the file to write
#   AWB_VERSION, AWB_RELEASE_DATE       the release (CMakeLists.txt's project version and its date)
#   AWB_APPSTREAM_ID, AWB_PROJECT_LICENSE
#   AWB_PUBLIC_URL                      where the repository is published (https://...), or empty: with it
#                                       the homepage and the README's screenshots (the repository's
#                                       resources/screenshots/, at AWB_PUBLIC_URL/raw/main/...)
set(AWB_APPSTREAM_LINKS "")
if(AWB_PUBLIC_URL)
  set(_shots "${AWB_PUBLIC_URL}/raw/main/resources/screenshots")
  string(CONCAT AWB_APPSTREAM_LINKS
    "  <url type=\"homepage\">${AWB_PUBLIC_URL}</url>\n"
    "  <url type=\"bugtracker\">${AWB_PUBLIC_URL}/issues</url>\n"
    "  <screenshots>\n"
    "    <screenshot type=\"default\">\n"
    "      <caption>The article's workload profiled: one recorded step, aten::softmax selected</caption>\n"
    "      <image>${_shots}/main-window.png</image>\n"
    "    </screenshot>\n"
    "    <screenshot>\n"
    "      <caption>A two-rank Kineto GPU trace: lanes per thread and stream, memory per device</caption>\n"
    "      <image>${_shots}/gpu-trace-window.png</image>\n"
    "    </screenshot>\n"
    "    <screenshot>\n"
    "      <caption>Attention calls found in an inference engine's trace</caption>\n"
    "      <image>${_shots}/attention-engines.png</image>\n"
    "    </screenshot>\n"
    "  </screenshots>\n")
endif()
configure_file("${AWB_METAINFO_IN}" "${AWB_METAINFO_OUT}" @ONLY)
