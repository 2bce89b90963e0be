// Prometheus text format 0.0.4; see metrics.h.
#include "server/ops/metrics.h"

#include "server/ops/allocator_stats.h"

namespace buzz::server {
namespace {

void metric(std::string& out, const char* name, const char* type, const char* help, double value) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
  out += name;
  out += ' ';
  out += std::to_string(int64_t(value));
  out += '\n';
}

}  // namespace

std::string render_metrics(const MetricsSources& m) {
  std::string out;
  auto get = [](const auto& a) { return double(a.load(std::memory_order_relaxed)); };
  if (m.relay) {
    out += "# HELP buzz_events_received_total EVENTs submitted by authenticated callers, by kind\n"
           "# TYPE buzz_events_received_total counter\n";
    const auto kinds = engine::all_kinds();
    for (size_t i = 0; i <= kinds.size(); ++i) {
      const uint64_t n = m.relay->received_by_kind[i].load(std::memory_order_relaxed);
      if (n == 0) continue;  // a series appears once its kind has been seen
      out += "buzz_events_received_total{kind=\"" + (i < kinds.size() ? std::to_string(kinds[i].kind) : "other") +
             "\"} " + std::to_string(n) + "\n";
    }
    metric(out, "buzz_events_accepted_total", "counter", "EVENTs answered OK true (duplicates included)", get(m.relay->events_accepted));
    metric(out, "buzz_events_rejected_total", "counter", "EVENTs answered OK false", get(m.relay->events_rejected));
    metric(out, "buzz_events_delivered_total", "counter", "live deliveries to subscriptions", get(m.relay->events_delivered));
    metric(out, "buzz_reqs_total", "counter", "REQ messages received", get(m.relay->reqs));
    metric(out, "buzz_auth_successes_total", "counter", "NIP-42 AUTH accepted", get(m.relay->auth_successes));
    metric(out, "buzz_auth_failures_total", "counter", "NIP-42 AUTH refused", get(m.relay->auth_failures));
    metric(out, "buzz_auth_timeouts_total", "counter", "sessions closed without AUTH within auth-timeout (closed relay)",
           get(m.relay->auth_timeouts));
    metric(out, "buzz_auth_pubkey_connection_cap_total", "counter",
           "AUTHs refused past max-connections-per-pubkey", get(m.relay->pubkey_session_caps));
    metric(out, "buzz_subscriptions_active", "gauge", "registered live subscriptions", get(m.relay->subscriptions_active));
    metric(out, "buzz_ingest_paused_total", "counter", "connections not read from while the store writer caught up (back-pressure)",
           get(m.relay->ingest_pauses));
    metric(out, "buzz_multinode_remote_events_total", "counter", "other nodes' events fanned out here (--pubsub)",
           get(m.relay->remote_events));
    metric(out, "buzz_multinode_unknown_channel_total", "counter",
           "other nodes' events of a channel this node does not know, not delivered", get(m.relay->remote_unknown_channel));
    metric(out, "buzz_multinode_fanout_lag_total", "counter",
           "other nodes' events dropped because the fan-out fell 4096 behind (docs/reference/compat-backends.md 3.2)",
           get(m.relay->remote_lagged));
    out += "# HELP buzz_media_uploads_total successful PUT /media/upload responses by stored MIME type\n"
           "# TYPE buzz_media_uploads_total counter\n";
    for (size_t i = 0; i < kMediaUploadLabels.size(); ++i) {
      out += "buzz_media_uploads_total{mime=\"" + std::string(kMediaUploadLabels[i]) + "\"} " +
             std::to_string(m.relay->media_uploads[i].load(std::memory_order_relaxed)) + "\n";
    }
    metric(out, "buzz_media_upload_budget_refusals_total", "counter",
           "uploads refused past upload-bytes-in-flight or upload-bytes-per-pubkey", get(m.relay->upload_budget_refusals));
    out += "# HELP buzz_rate_limited_total requests refused by a rate limit (docs/reference/protocol.md §14)\n"
           "# TYPE buzz_rate_limited_total counter\n";
    for (size_t i = 0; i < kRateLimitCount; ++i) {
      out += "buzz_rate_limited_total{limit=\"" + std::string(rate_limit_name(RateLimit(i))) + "\"} " +
             std::to_string(m.relay->rate_limited[i].load(std::memory_order_relaxed)) + "\n";
    }
  }
  if (m.connections) metric(out, "buzz_ws_connections_active", "gauge", "open connections", get(*m.connections));
  if (!m.loops.empty()) {
    auto sum = [&](std::atomic<uint64_t> net::LoopStats::*field) {
      double total = 0;
      for (const net::Loop* l : m.loops) total += get(l->stats().*field);
      return total;
    };
    metric(out, "buzz_ws_connections_total", "counter", "connections accepted", sum(&net::LoopStats::accepted));
    metric(out, "buzz_connections_refused_total", "counter", "connections refused at the connection cap (HTTP 503)",
           sum(&net::LoopStats::refused));
    metric(out, "buzz_connections_refused_per_address_total", "counter",
           "connections refused past max-unauthenticated-per-address (HTTP 429)", sum(&net::LoopStats::refused_address));
    metric(out, "buzz_connections_probe_past_cap_total", "counter",
           "connections let in past the connection cap for a health probe", sum(&net::LoopStats::probes_past_cap));
    metric(out, "buzz_ws_backpressure_disconnects_total", "counter", "connections closed as slow consumers (1008)",
           sum(&net::LoopStats::slow_disconnects));
    metric(out, "buzz_ws_send_memory_disconnects_total", "counter",
           "slowest readers closed past send-memory-bytes (1008)", sum(&net::LoopStats::memory_disconnects));
    metric(out, "buzz_uploads_too_slow_total", "counter", "streamed bodies refused under min-upload-rate (HTTP 408)",
           sum(&net::LoopStats::slow_bodies));
    metric(out, "buzz_ws_answer_pauses_total", "counter",
           "connections not read from until the answers queued for them drained (back-pressure)",
           sum(&net::LoopStats::answer_pauses));
    metric(out, "buzz_ws_messages_received_total", "counter", "WebSocket messages received", sum(&net::LoopStats::messages_in));
    metric(out, "buzz_ws_frames_sent_total", "counter", "frames queued for sending", sum(&net::LoopStats::frames_out));
  }
  if (m.send_memory) {
    metric(out, "buzz_ws_send_queued_bytes", "gauge", "bytes queued for clients (bounded by send-memory-bytes)",
           double(m.send_memory->total()));
  }
  if (m.writer) {
    metric(out, "buzz_events_stored_total", "counter", "new events written to the store", double(m.writer->stored()));
    metric(out, "buzz_store_writer_queue", "gauge", "events waiting for the store writer", double(m.writer->queued()));
    metric(out, "buzz_store_batches_total", "counter", "write batches committed (one WAL append each)", double(m.writer->batches()));
    metric(out, "buzz_store_batched_jobs_total", "counter", "jobs those batches held (divided by batches: events per WAL append)",
           double(m.writer->batched_jobs()));
  }
  if (m.store) {
    const engine::StoreMemory mem = m.store->memory();
    metric(out, "buzz_store_block_cache_bytes", "gauge", "the store's block cache in use (bounded, docs/storage.md)",
           double(mem.block_cache));
    metric(out, "buzz_store_memtable_bytes", "gauge", "the store's memtables, all families (bounded, docs/storage.md)",
           double(mem.memtables));
    metric(out, "buzz_store_table_readers_bytes", "gauge", "the store's open table files outside the block cache",
           double(mem.table_readers));
    // Beside the store's pools: what malloc holds in all (a store means the relay process).
    const AllocatorStats a = allocator_stats();
    out += std::string("# HELP buzz_allocator_info the process's malloc\n# TYPE buzz_allocator_info gauge\nbuzz_allocator_info{allocator=\"") +
           a.allocator + "\"} 1\n";
    metric(out, "buzz_allocator_allocated_bytes", "gauge", "bytes malloc has handed out and not had back, the pools above included",
           double(a.allocated));
    metric(out, "buzz_allocator_held_bytes", "gauge", "memory malloc keeps resident: in use, freed but kept, its own metadata",
           double(a.held));
  }
  if (m.search) {
    const SearchFeederMetrics& s = m.search->metrics();
    metric(out, "buzz_search_indexed_total", "counter", "documents added to the full-text index", get(s.indexed));
    metric(out, "buzz_search_overflowed_total", "counter", "events that found the index queue full (indexed later from the store)", get(s.overflowed));
    metric(out, "buzz_search_backlog", "gauge", "events waiting to be re-read from the store for the index", get(s.backlog));
    metric(out, "buzz_search_lag_ms", "gauge", "age of the oldest change not yet searchable", m.search->lag_seconds() * 1000);
    metric(out, "buzz_search_index_errors_total", "counter", "index updates that failed", get(s.errors));
  }
  if (m.audit) {
    metric(out, "buzz_audit_entries_written_total", "counter", "entries appended to the hash chain", get(m.audit->entries_written));
    metric(out, "buzz_audit_queue_depth", "gauge", "audit entries queued for the writer", get(m.audit->queue_depth));
    metric(out, "buzz_audit_tail_truncated_total", "counter", "torn tails cut off at start-up", get(m.audit->tail_truncated));
    metric(out, "buzz_audit_log_errors_total", "counter", "audit records refused as invalid", get(m.audit->records_rejected));
  }
  if (m.more) out += m.more();
  return out;
}

net::HttpResponse metrics_page(const MetricsSources& m) {
  net::HttpResponse r = net::HttpResponse::text(200, render_metrics(m));
  r.content_type = "text/plain; version=0.0.4";
  return r;
}

}  // namespace buzz::server
