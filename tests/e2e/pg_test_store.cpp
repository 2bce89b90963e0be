// Relays on PostgreSQL in the end-to-end suites; see pg_test_store.h.
#include "tests/e2e/pg_test_store.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "migrate/pg_connection.h"

namespace buzz::test {
namespace {

std::string socket_dir() {
  const char* state = std::getenv("BUZZ_TEST_STORE_PG_STATE");
  if (state == nullptr || *state == '\0') return {};
  std::ifstream in(state);
  std::string dir;
  std::getline(in, dir);
  return dir;
}

std::string url_of(const std::string& socket, const std::string& db) {
  return "postgresql://buzz:buzz_dev@/" + db + "?host=" + socket;
}

// One database per data directory: its name is a hash of the absolute path.
std::string db_name(const std::string& data_dir) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : std::filesystem::absolute(data_dir).string()) h = (h ^ uint8_t(c)) * 1099511628211ull;
  char name[32];
  std::snprintf(name, sizeof name, "e2e_%016llx", static_cast<unsigned long long>(h));
  return name;
}

}  // namespace

bool pg_test_store_for(const std::string& data_dir, std::string* url, std::string* error) {
  url->clear();
  const std::string socket = socket_dir();
  if (socket.empty()) return true;
  const std::string db = db_name(data_dir);
  const std::string marker = data_dir + "/.pg-test-db";
  if (!std::filesystem::exists(marker)) {
    auto admin = migrate::PgConnection::connect(url_of(socket, "postgres"), "buzz-e2e");
    if (!admin) return *error = "test PostgreSQL: " + admin.error(), false;
    (void)(*admin)->exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    if (auto s = (*admin)->exec("CREATE DATABASE " + db); !s) return *error = "test PostgreSQL: " + s.error(), false;
    std::ofstream(marker) << db << "\n";
  }
  *url = url_of(socket, db);
  ::setenv("BUZZ_STORE", url->c_str(), 1);
  return true;
}

void drop_pg_test_store(const std::string& data_dir) {
  const std::string socket = socket_dir();
  if (socket.empty() || !std::filesystem::exists(data_dir + "/.pg-test-db")) return;
  if (auto admin = migrate::PgConnection::connect(url_of(socket, "postgres"), "buzz-e2e")) {
    (void)(*admin)->exec("DROP DATABASE IF EXISTS " + db_name(data_dir) + " WITH (FORCE)");
  }
}

}  // namespace buzz::test
