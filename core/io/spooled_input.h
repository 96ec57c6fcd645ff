// Reading a pipe (`attnwb report <(zcat run.json.gz)`, a FIFO, /dev/stdin) like a file. Opening a results
// file reads its head to tell its kind, then reads it again from the start; a pipe gives its bytes once,
// so the second read found it empty. A path that is not a regular file or a folder is first copied to a
// temporary regular file (removed when this goes away); regular files and folders are read in place.
#pragma once

#include <string>

#include "model/run_observer.h"

namespace awb {

class SpooledInput {
public:
    // Copies a pipe's bytes in 1 MiB pieces, polling the observer's cancel between them (Cancelled).
    // A copy that fails (no room in the temporary folder) throws std::runtime_error naming `path`.
    SpooledInput(const std::string& path, const RunObserver* observer);
    ~SpooledInput();
    SpooledInput(const SpooledInput&) = delete;
    SpooledInput& operator=(const SpooledInput&) = delete;

    bool spooled() const { return !copy_.empty(); }
    const std::string& path() const { return spooled() ? copy_ : original_; }  // the one to read
    // A message about the copy, naming the path the user gave instead.
    std::string named(std::string message) const;

private:
    std::string original_;
    std::string copy_;
};

}  // namespace awb
