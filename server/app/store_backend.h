// The storage behind `buzz serve`, chosen by --store's URL scheme (issue 17 §2):
// unset, the embedded RocksDB store, segment-file audit log and CLucene index in
// the data directory; postgres://…, the PostgreSQL backends of migrate/ on the
// original's schema, shared by every node on that database. Either way the rest
// of the server sees only the engine's interfaces.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/audit_chain.h"
#include "engine/delivery_log.h"
#include "engine/event_store.h"
#include "engine/pubkey_allowlist.h"
#include "engine/relay_members.h"
#include "engine/rocks_database.h"
#include "index/search_index.h"
#include "server/app/config.h"
#include "server/http/audit_reads.h"

namespace buzz::migrate {
class PgEventStore;
}

namespace buzz::server {

struct StoreBackend {
  std::unique_ptr<engine::RocksDatabase> db;  // the embedded store's, else null
  std::unique_ptr<migrate::PgEventStore> pg;  // the PostgreSQL store, else null
  std::unique_ptr<engine::EventStore> rocks_store;
  std::unique_ptr<engine::RelayMemberTable> members;
  std::unique_ptr<engine::PubkeyAllowlistTable> allowlist;
  std::string where;  // for the start-up line: the data directory, or the URL without its password

  engine::EventStore& store() const;
  // What /_readiness names: "postgres" or "rocksdb".
  const char* storage_name() const { return pg ? "postgres" : "rocksdb"; }
  // On PostgreSQL, the first start's adoption of an original's team tables
  // (migrate/pg_event_store.h); nothing to do on the embedded store.
  engine::Status adopt_original_team_state() const;
  // The original's channels and members as state rows, read anew at each call
  // (BUZZ_RECONCILE_CHANNELS); empty on the embedded store.
  engine::Result<std::vector<engine::StateWrite>> original_channels() const;
  ~StoreBackend();
};

// Opens the store, or says why not (an unreachable database, a wrong password,
// an unknown schema version).
engine::Result<std::unique_ptr<StoreBackend>> open_store_backend(const Config& cfg);

// The audit chain on the same storage. A hint how to inspect it rides along with an error.
engine::Result<std::unique_ptr<engine::AuditChain>> open_audit_chain(const Config& cfg, const StoreBackend& backend,
                                                                     const engine::AuditOptions& options);

// How the REST API reads that chain for its owner and admins (server/http/audit_reads.h),
// read-only and off the writer: the data directory's segments, or the table
// through a connection of its own for each read.
AuditSource audit_source(const Config& cfg, const StoreBackend& backend);

// The receipts' delivery log (docs/storage.md, "Deliveries"): <data-dir>/deliveries,
// this node's own; on PostgreSQL the original's delivery_log table, every node's.
engine::Result<std::unique_ptr<engine::DeliveryLog>> open_delivery_log(const Config& cfg, const StoreBackend& backend);

// Full-text search on the same storage.
engine::Result<std::unique_ptr<index::SearchIndex>> open_search_index(const Config& cfg, const StoreBackend& backend);

}  // namespace buzz::server
