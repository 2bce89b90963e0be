// The floor under ingest: a server that does only what any relay must do for
// each EVENT it accepts, on this machine, with none of Buzz's logic:
//
//   receive the WebSocket frame over loopback (epoll + recv, unmasking),
//   verify the signature in place (libsecp256k1, the relay's own call),
//   insert the record, its id entry and its index keys into RocksDB opened with
//   the relay's options (engine::RocksDatabase: the same families, memtables,
//   block cache and WAL fsync per batch), committed by group commit on a writer
//   thread as the relay does,
//   send the OK (from the writer thread: one send per connection per batch,
//   without the relay's hop back to the connection's loop).
//
// No JSON parser (the fields are found by their keys in the load's own frames),
// no id hash, no duplicate lookup, no audit chain, no full-text index, no rate
// limits, no fan-out. `buzz-load ingest` runs it in a child process after the
// relay, with the same client, the same frames and the same window, and reports
// its CPU per event beside the relay's, both as multiples of one bare verify.
#pragma once

#include <cstdint>
#include <string>

namespace buzz::load {

// Serves on 127.0.0.1:port until SIGTERM, one epoll loop per core plus the
// writer; the database goes in data_dir/db. Returns the process exit code.
int serve_ingest_floor(uint16_t port, const std::string& data_dir);

}  // namespace buzz::load
