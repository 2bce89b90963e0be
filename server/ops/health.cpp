// The health probes; see health.h.
#include "server/ops/health.h"

#include <string>

#include "engine/json_text.h"

namespace buzz::server {

Health::Health(std::string_view storage)
    : ready_(json_object({{"status", json_string("ready")}, {"storage", json_string(storage)}})) {}

std::optional<net::HttpResponse> Health::check(std::string_view path, bool health_port) const {
  if (path == "/health" || path == "/_liveness") return net::HttpResponse::text(200, "ok");
  if (path == "/_readiness") {
    // It pings nothing (a lost PostgreSQL connection is reopened at its next use); it names its store.
    if (shutting_down_.load(std::memory_order_relaxed)) return net::HttpResponse::json(503, R"({"status":"shutting_down"})");
    return net::HttpResponse::json(200, ready_);
  }
  if (health_port && path == "/_status") {
    auto uptime = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_);
    return net::HttpResponse::json(200, JsonFields()
                                            .string("service", "buzz-relay")
                                            .string("version", BUZZ_VERSION)
                                            .number("uptime_seconds", uptime.count())
                                            .str());
  }
  return std::nullopt;
}

}  // namespace buzz::server
