// The ops room's answers without a relay around them: the health probes of
// docs/reference/rest-api.md §3.16 (readiness names the store and turns 503 at shutdown,
// /_status only on the health port) and the /metrics text (a kind's series
// appears once the kind is seen; sources a relay lacks are left out; the rooms
// above append theirs).
#include <gtest/gtest.h>

#include <string>

#include "engine/kinds.h"
#include "server/ops/health.h"
#include "server/ops/metrics.h"

namespace buzz::server {
namespace {

TEST(Health, ProbesReadinessAndStatus) {
  Health health("postgres");
  for (const char* probe : {"/health", "/_liveness"}) {
    auto r = health.check(probe, false);
    ASSERT_TRUE(r) << probe;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "ok");
  }
  auto ready = health.check("/_readiness", false);
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->body, R"({"status":"ready","storage":"postgres"})");
  EXPECT_FALSE(health.check("/_status", false));  // the health port's alone
  auto status = health.check("/_status", true);
  ASSERT_TRUE(status);
  EXPECT_NE(status->body.find(R"("service":"buzz-relay")"), std::string::npos) << status->body;
  EXPECT_NE(status->body.find(R"("uptime_seconds":)"), std::string::npos) << status->body;
  EXPECT_FALSE(health.check("/api/health", true));

  health.begin_shutdown();
  ready = health.check("/_readiness", false);
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  EXPECT_EQ(ready->body, R"({"status":"shutting_down"})");
  EXPECT_EQ(health.check("/health", false)->status, 200);  // alive while it drains
}

TEST(Metrics, AKindsSeriesAppearsOnceSeenAndAbsentSourcesAreLeftOut) {
  RelayStats stats;
  MetricsSources sources;
  sources.relay = &stats;
  sources.more = [] { return std::string("buzz_more_total 3\n"); };
  std::string text = render_metrics(sources);
  EXPECT_EQ(text.find("buzz_events_received_total{"), std::string::npos);
  EXPECT_NE(text.find("\nbuzz_events_accepted_total 0\n"), std::string::npos) << text.substr(0, 400);
  EXPECT_EQ(text.find("buzz_events_stored_total"), std::string::npos);  // no writer
  EXPECT_EQ(text.find("buzz_audit_entries_written_total"), std::string::npos);  // no audit log
  EXPECT_TRUE(text.ends_with("buzz_more_total 3\n"));

  stats.count_received(engine::find_kind(9));
  stats.count_received(engine::find_kind(9));
  stats.count_received(nullptr);  // a kind outside the registry
  text = render_metrics(sources);
  EXPECT_NE(text.find("buzz_events_received_total{kind=\"9\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("buzz_events_received_total{kind=\"other\"} 1\n"), std::string::npos);
  EXPECT_EQ(metrics_page(sources).content_type, "text/plain; version=0.0.4");
}

}  // namespace
}  // namespace buzz::server
