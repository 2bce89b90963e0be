// The end-to-end suites over PostgreSQL (issue 17 §2): when env
// BUZZ_TEST_STORE_PG_STATE names the state file of the ctest fixture `postgres`
// (tests/migrate/pg_cluster.sh), every relay a test starts serves
// `--store postgres://…` on a database of its own data directory, created on
// the first start and kept across restarts on the same directory. The URL is
// also set as BUZZ_STORE in the test process, so offline commands the test
// runs (`buzz audit verify`) read the same database.
#pragma once

#include <string>

namespace buzz::test {

// Sets *url to the store URL for this data directory (creating its database
// once), or "" when the suites run on the embedded store; false with *error.
bool pg_test_store_for(const std::string& data_dir, std::string* url, std::string* error);

// Drops the database of a data directory that is being removed.
void drop_pg_test_store(const std::string& data_dir);

}  // namespace buzz::test
