// Saving files so that a crash, a kill -9 or a full disk never leaves a half-written one: the bytes go
// to a temporary file beside the target (same folder, so that the rename is atomic), are flushed to
// disk (fsync), then renamed over the target. At any instant the target is either the previous file,
// whole, or the new one, whole. Every results file, report, trace and workspace we write goes through
// here.
#pragma once

#include <string>
#include <string_view>

namespace awb {

// Writes bytes to path atomically. On failure (disk full, no permission, missing folder) the temporary
// is removed, the previous file is left as it was, and std::runtime_error says, in one line, the path
// and the reason ("cannot write 'x.json': No space left on device (the disk is full); the previous
// file is unchanged"). A path that exists and is not a regular file (/dev/stdout, /dev/full, a FIFO)
// is written in place; a symbolic link is followed so that its target, not the link, is replaced.
// Temporaries named .NAME.PID-N.tmp left by a process that was killed while saving are removed by the
// next successful save of the same path.
void write_file_atomically(const std::string& path, std::string_view bytes);

// write_file_atomically of text, gzip-compressed first when the path ends in .gz.
void write_text_file(const std::string& path, const std::string& text);

// Writes all of bytes to an open file descriptor (again after a signal); 0 or the errno of the failure.
int write_all(int fd, std::string_view bytes);

// strerror(err), with " (the disk is full)" for ENOSPC and EDQUOT.
std::string reason_of(int err);

// gzip (RFC 1952) of bytes, level 6: what write_text_file writes for a .gz path.
std::string gzip_bytes(std::string_view bytes);

}  // namespace awb
