// awb_write_loop PATH BYTES: saves PATH over and over with write_text_file, each time BYTES bytes of one
// letter (A, B, A, ...), until killed. The atomic-file test kills it with SIGKILL at random instants and
// then finds PATH either as it was or as one whole save.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/atomic_file.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s PATH BYTES\n", argv[0]);
        return 2;
    }
    const std::string path = argv[1];
    const size_t bytes = std::strtoull(argv[2], nullptr, 10);
    std::string a(bytes, 'A'), b(bytes, 'B');
    for (unsigned long i = 0;; ++i) awb::write_text_file(path, i % 2 ? b : a);
}
