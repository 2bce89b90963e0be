// A file read as a stream: its bytes chunk by chunk, and its SHA-256 without
// ever holding the whole file (an audit segment is 64 MiB); and the file errors
// and directory syncs the audit log, the media store and a backup share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engine/result.h"

namespace buzz::engine {

// "<what> <path>: <strerror(errno)>".
Error errno_error(const char* what, const std::string& path);

// fsync of a directory, so that a file created or renamed in it survives a crash.
Status fsync_dir(const std::string& dir);

// Calls `chunk` with the file's bytes in order, 64 KiB at a time.
Status read_file_chunks(const std::string& path, const std::function<void(std::string_view)>& chunk);

// The file's SHA-256 into `out`; returns the number of bytes hashed.
Result<uint64_t> sha256_file(const std::string& path, uint8_t out[32]);

// Copies the first `limit` bytes of `from` (all of it, if shorter) into a new
// file `to` (mode 0600, written back as it goes and synced at the end),
// hashing what it copies into `out`; `progress` sees each chunk's size.
// Returns the number of bytes copied.
Result<uint64_t> copy_file_sha256(const std::string& from, const std::string& to, uint64_t limit, uint8_t out[32],
                                  const std::function<void(uint64_t)>& progress = {});

}  // namespace buzz::engine
