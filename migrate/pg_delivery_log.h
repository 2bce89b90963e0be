// PgDeliveryLog: the receipts' delivery log (engine/delivery_log.h) in the
// original's `delivery_log` table (docs/reference/compat-backends.md §1), for
// `buzz serve --store postgres://…`: every node appends what its own sessions
// were sent, so one message's receipt counts the members it reached on any node
// (docs/storage.md, "Deliveries").
//
// A row per member and event a flush holds (repeats within it kept once):
// subscription_id = the member's pubkey (64 lowercase hex), event_id, method
// 'websocket', success TRUE, delivered_at NOW() (the flush's transaction). The
// original defines the table and never writes it; its other columns (HTTP
// status, error, attempt) describe webhook deliveries and stay at their defaults.
//
// Partitions: as the original's partition manager names them (§1.5),
// `delivery_log_YYYY_MM`, one a month from the current month to three ahead.
// Where its catch-all `delivery_log_p_future` covers those months (the
// original's own manager fails there), maintain_delivery_partitions()
// detaches the catch-all, creates the months from its start (or from the
// retention's cut-off), moves its rows into them and starts it again after
// the last one. Retention drops the monthly partitions wholly
// before the cut-off and deletes the older rows of the rest (the schema's
// fixed partitions, the month the cut-off falls in).
//
// Threads: record() and drop_before() from one thread (the recorder's flusher);
// delivered_to() and delivered_to_each() from any; each on its own connection (pg_thread_connections.h).
#pragma once

#include <cstdint>

#include "engine/delivery_log.h"
#include "migrate/pg_connection.h"
#include "migrate/pg_thread_connections.h"

namespace buzz::migrate {

// The months partitioned ahead of `now`, beside its own (the original's ensure_future_partitions(3)).
inline constexpr int kDeliveryMonthsAhead = 3;

// Creates the monthly partitions of delivery_log from the month of `from` to
// three months after the month of `now` that no partition covers yet, or
// that only the catch-all covers (see above); then, when `cut_off` is not 0,
// removes the rows delivered before it. One transaction, under an advisory
// lock, so two nodes never do it at once.
engine::Status maintain_delivery_partitions(PgConnection& pg, uint64_t from, uint64_t now, uint64_t cut_off);

class PgDeliveryLog final : public engine::DeliveryLog {
 public:
  explicit PgDeliveryLog(PgThreadConnections& conns) : conns_(conns) {}

  engine::Status record(std::span<const engine::Delivery> deliveries) override;
  engine::Result<std::vector<engine::Pubkey>> delivered_to(const engine::Id& event, uint64_t created_at) override;
  // One query for them all (event_id = ANY(…), on the index of delivered_to()).
  engine::Result<std::vector<std::vector<engine::Pubkey>>> delivered_to_each(
      std::span<const engine::DeliveredQuery> events) override;
  // The partitions ahead, then the rows delivered before `day` (in days since
  // the epoch) removed: on this table a row's time is its delivery's, not its
  // event's, which lies within a flush of it for a live message.
  engine::Status drop_before(uint32_t day) override;

 private:
  PgThreadConnections& conns_;
};

}  // namespace buzz::migrate
