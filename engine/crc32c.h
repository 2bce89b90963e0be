// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of the
// audit log's frames and segment headers (docs/audit.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace buzz::engine {

// Pass a previous result as `crc` to continue over more bytes. Uses the CPU's
// crc32 instruction (SSE4.2) when it has one, a table otherwise; both agree.
uint32_t crc32c(const void* data, size_t len, uint32_t crc = 0);

// The table version alone, for tests that compare the two.
uint32_t crc32c_portable(const void* data, size_t len, uint32_t crc = 0);

}  // namespace buzz::engine
