# Packages, made by cpack in a build folder from the install rules:
#   Debian's LibTorch 1.13 build (build/):  cpack -G DEB  -> attention-workbench_<version>_amd64.deb, its
#       Depends computed by dpkg-shlibdeps from the libraries the programs load (libtorch1.13, Qt 6,
#       QCustomPlot, simdjson, ...), installed under /usr
#   the wheel's LibTorch 2.x build (build-torch2/):  cpack -G TGZ  -> an archive of the install prefix
#       whose launchers find the wheel's LibTorch where it is installed (app/CMakeLists.txt); LibTorch
#       itself is not in it
# tests/install/test_deb.sh installs the .deb into a throwaway Debian 12 root; tests/install/test_install.sh
# unpacks the archive elsewhere.
set(CPACK_PACKAGE_NAME attention-workbench)
set(CPACK_PACKAGE_VENDOR "Attention Workbench")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "profile attention in LibTorch and read PyTorch/Kineto traces")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "Attention Workbench tells why an attention layer is slow or memory-hungry: the matmuls, softmax, the\n"
  "materialised scores, layout copies, dispatch overhead and warm-up, with numbers that agree with\n"
  "PyTorch's own profiler. It runs attention variants in LibTorch under the profiler, benchmarks and\n"
  "sweeps them, and reads PyTorch/Kineto traces (CUDA, ROCm, vLLM, SGLang, several ranks): attnwb is the\n"
  "command-line tool, attention-workbench the desktop workbench.")
set(AWB_PACKAGE_MAINTAINER "Attention Workbench maintainers <attention-workbench@localhost>" CACHE STRING
    "The packages' maintainer (Debian's Maintainer field)")
set(CPACK_PACKAGE_CONTACT "${AWB_PACKAGE_MAINTAINER}")
set(CPACK_STRIP_FILES ON)  # the build's debug info stays in the build folder

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(AWB_PUBLIC_URL)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${AWB_PUBLIC_URL}")
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

if(AWB_TORCH_PYTHON)
  set(CPACK_GENERATOR TGZ)
  set(CPACK_PACKAGING_INSTALL_PREFIX "")
  set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
  set(CPACK_PACKAGE_FILE_NAME "attention-workbench-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR}-libtorch${AWB_TORCH_MAJOR_MINOR}")
else()
  set(CPACK_GENERATOR DEB)
endif()
include(CPack)
