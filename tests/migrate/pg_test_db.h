// A fresh database per test on the throwaway cluster that the ctest fixture
// `postgres` started (tests/migrate/pg_cluster.sh): its socket directory is in
// the file named by env BUZZ_TEST_PG_STATE (default: the build's, compiled in). Dropped when the test ends.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "migrate/pg_connection.h"

namespace buzz::test {

class PgTestDb {
 public:
  explicit PgTestDb(const std::string& name) : name_(name) {
    const char* state = std::getenv("BUZZ_TEST_PG_STATE");
    std::ifstream file(state ? state : BUZZ_TEST_PG_STATE);
    std::getline(file, socket_dir_);
    EXPECT_FALSE(socket_dir_.empty()) << "no PostgreSQL cluster: the ctest fixture `postgres` starts one";
    auto admin = migrate::PgConnection::connect(url_of("postgres"));
    EXPECT_TRUE(admin) << admin.error();
    if (!admin) return;
    (void)(*admin)->exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    EXPECT_TRUE((*admin)->exec("CREATE DATABASE " + name_));
  }
  ~PgTestDb() {
    if (auto admin = migrate::PgConnection::connect(url_of("postgres"))) {
      (void)(*admin)->exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    }
  }

  std::string url(const std::string& password = "buzz_dev") const { return url_of(name_, password); }
  const std::string& socket_dir() const { return socket_dir_; }

  std::unique_ptr<migrate::PgConnection> connect() const {
    auto c = migrate::PgConnection::connect(url());
    EXPECT_TRUE(c) << c.error();
    return c ? std::move(*c) : nullptr;
  }
  // The first column of the first row, as text.
  std::string scalar(const std::string& sql) const {
    auto c = connect();
    if (!c) return {};
    auto rows = c->query(sql);
    EXPECT_TRUE(rows) << sql << ": " << rows.error();
    return rows && !rows->empty() ? (*rows)[0].values[0] : "";
  }

 private:
  std::string url_of(const std::string& db, const std::string& password = "buzz_dev") const {
    return "postgresql://buzz:" + password + "@/" + db + "?host=" + socket_dir_;
  }
  std::string name_;
  std::string socket_dir_;
};

}  // namespace buzz::test
