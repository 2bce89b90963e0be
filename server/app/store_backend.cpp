// The storage behind `buzz serve`; see store_backend.h.
#include "server/app/store_backend.h"

#include <fstream>

#include "engine/audit_log.h"
#include "engine/hex.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "index/clucene_search_index.h"
#include "migrate/pg_audit_chain.h"
#include "migrate/pg_audit_rows.h"
#include "migrate/pg_delivery_log.h"
#include "migrate/pg_event_store.h"
#include "migrate/pg_relay_members.h"
#include "migrate/pg_search_index.h"
#include "server/common/log.h"

namespace buzz::server {
namespace {

using engine::Error;

// This node's name on a shared database (its own audit_pending rows): made
// once and kept in the data directory, so a restart finds its pending records.
engine::Result<std::string> node_id(const std::string& data_dir) {
  const std::string path = data_dir + "/node-id";
  std::string id;
  if (std::ifstream in(path); in && std::getline(in, id) && id.size() == 32) return id;
  uint8_t bytes[16];
  engine::random_bytes(bytes, sizeof bytes);
  id = engine::to_hex(bytes, sizeof bytes);
  std::ofstream out(path, std::ios::trunc);
  if (!(out << id << "\n") || !out.flush()) return Error{"cannot write " + path};
  return id;
}

}  // namespace

StoreBackend::~StoreBackend() = default;

engine::EventStore& StoreBackend::store() const { return pg ? static_cast<engine::EventStore&>(*pg) : *rocks_store; }

engine::Status StoreBackend::adopt_original_team_state() const { return pg ? pg->adopt_original_team_state() : engine::Status{}; }

engine::Result<std::vector<engine::StateWrite>> StoreBackend::original_channels() const {
  if (!pg) return std::vector<engine::StateWrite>{};
  return pg->original_channels();
}

engine::Result<std::unique_ptr<StoreBackend>> open_store_backend(const Config& cfg) {
  auto b = std::make_unique<StoreBackend>();
  if (!cfg.store.empty()) {
    auto node = node_id(cfg.data_dir);
    if (!node) return Error{node.error()};
    auto pg = migrate::PgEventStore::open(cfg.store, *node);
    if (!pg) return Error{"store " + migrate::redact_url(cfg.store) + ": " + pg.error()};
    b->pg = std::move(*pg);
    b->members = std::make_unique<migrate::PgRelayMembers>(b->pg->connections());
    b->allowlist = std::make_unique<migrate::PgPubkeyAllowlist>(b->pg->connections());
    b->where = migrate::redact_url(cfg.store);
    return b;
  }
  engine::DatabaseOptions db_options;
  db_options.sync_writes = cfg.sync_writes;
  db_options.block_cache_bytes = size_t(cfg.block_cache_mib) << 20;
  auto db = engine::RocksDatabase::open(cfg.data_dir + "/db", db_options);
  if (!db) return Error{db.error()};
  b->db = std::move(*db);
  b->rocks_store = std::make_unique<engine::RocksEventStore>(*b->db);
  b->members = std::make_unique<engine::RelayMembers>(*b->db);
  b->allowlist = std::make_unique<engine::PubkeyAllowlist>(*b->db);
  b->where = cfg.data_dir;
  return b;
}

engine::Result<std::unique_ptr<engine::AuditChain>> open_audit_chain(const Config& cfg, const StoreBackend& backend,
                                                                     const engine::AuditOptions& options) {
  if (backend.pg) {
    auto chain = migrate::PgAuditChain::open(cfg.store, options);
    if (!chain) return Error{chain.error() + " (inspect it with: buzz audit verify --store URL)"};
    return std::unique_ptr<engine::AuditChain>(std::move(*chain));
  }
  auto log = engine::AuditLog::open(cfg.data_dir + "/audit", options);
  if (!log) return Error{log.error() + " (inspect it with: buzz audit verify --data-dir " + cfg.data_dir + ")"};
  const engine::RecoveryReport& recovered = (*log)->recovery();
  if (recovered.truncated_bytes) {
    log_warn("audit log torn tail truncated", {{"bytes", std::to_string(recovered.truncated_bytes)},
                                               {"quarantine", recovered.quarantine_path}});
  }
  return std::unique_ptr<engine::AuditChain>(std::move(*log));
}

AuditSource audit_source(const Config& cfg, const StoreBackend& backend) {
  if (backend.pg) {
    return {[url = cfg.store](size_t n) -> engine::Result<std::vector<engine::AuditEntry>> {
              auto pg = migrate::PgConnection::connect(url, "buzz-audit-read");
              if (!pg) return Error{pg.error()};
              return migrate::pg_audit_tail(**pg, n);
            },
            [url = cfg.store] {
              auto pg = migrate::PgConnection::connect(url, "buzz-audit-read");
              if (pg) return migrate::verify_pg_audit(**pg, 1, UINT64_MAX);
              engine::VerifyReport unread;
              unread.ok = false;
              unread.failure.error = pg.error();
              return unread;
            }};
  }
  const std::string dir = cfg.data_dir + "/audit";
  return {[dir](size_t n) { return engine::read_audit_tail(dir, n); }, [dir] { return engine::verify_audit(dir); }};
}

engine::Result<std::unique_ptr<engine::DeliveryLog>> open_delivery_log(const Config& cfg, const StoreBackend& backend) {
  if (backend.pg) return std::unique_ptr<engine::DeliveryLog>(std::make_unique<migrate::PgDeliveryLog>(backend.pg->connections()));
  auto log = engine::RocksDeliveryLog::open(cfg.data_dir + "/deliveries");
  if (!log) return Error{log.error()};
  return std::unique_ptr<engine::DeliveryLog>(std::move(*log));
}

engine::Result<std::unique_ptr<index::SearchIndex>> open_search_index(const Config& cfg, const StoreBackend& backend) {
  if (backend.pg) return std::unique_ptr<index::SearchIndex>(std::make_unique<migrate::PgSearchIndex>(backend.pg->connections()));
  // The index lives in <data-dir>/search; `buzz reindex` rebuilds it.
  auto index = index::CLuceneSearchIndex::open(cfg.data_dir + "/search");
  if (!index) return Error{index.error() + " (rebuild it with: buzz reindex --data-dir " + cfg.data_dir + ")"};
  return std::unique_ptr<index::SearchIndex>(std::move(*index));
}

}  // namespace buzz::server
