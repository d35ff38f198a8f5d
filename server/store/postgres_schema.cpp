// The PostgreSQL store's schema: checked and migrated when a store opens
// (the migrations are server/store/migrations/postgres/*.sql, compiled in),
// and the statement catalogue prepared on each connection.
#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <iterator>
#include <string>

#include "gofish/postgres_migrations.hpp"
#include "server/store/postgres_store.hpp"
#include "server/store/postgres_result.hpp"
#include "server/store/postgres_statements.hpp"

namespace gofish::server {

namespace {

static_assert(std::size(migrations::kPostgres) == kPostgresSchemaVersion,
              "one migration a schema version: server/store/migrations/postgres/NNNN_words.sql");

// The advisory lock servers take while they check and migrate the schema.
constexpr std::int64_t kSchemaLock = 0x676f66697368;  // "gofish"

}  // namespace

void PostgresStore::check_and_migrate() {
  const auto one_value = [this](const char* sql) {
    Result result = Result::checked(conn_, PQexecParams(conn_, sql, 0, nullptr, nullptr, nullptr, nullptr, 1), sql);
    return result.rows() > 0 && !result.null(0, 0) ? result.bytes(0, 0) : std::string();
  };
  const std::string encoding = one_value("SELECT current_setting('server_encoding')");
  if (encoding != "UTF8") {
    throw StoreError("the PostgreSQL " + describe() + " has encoding " + encoding +
                     ", but gofish-server stores UTF-8 text; refusing to start. Create the database with "
                     "ENCODING 'UTF8' (CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0).");
  }
  exec("BEGIN");
  try {
    exec(("SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")").c_str());
    int version = 0;
    if (one_value("SELECT to_regclass('meta') IS NOT NULL") == std::string(1, '\1')) {
      const std::string stored = one_value("SELECT value FROM meta WHERE key = 'schema_version'");
      if (!stored.empty()) {
        try {
          version = std::stoi(stored);
        } catch (const std::exception&) {
          throw StoreError("the PostgreSQL " + describe() + " has a schema version that is not a number (meta." +
                           "schema_version); refusing to start.");
        }
      }
    }
    if (version > kPostgresSchemaVersion) {
      throw StoreError("the PostgreSQL " + describe() + " has schema version " + std::to_string(version) +
                       ", newer than this server's " + std::to_string(kPostgresSchemaVersion) +
                       "; refusing to start. Run a newer gofish-server.");
    }
    for (int step = version; step < kPostgresSchemaVersion; ++step) {
      try {
        exec(migrations::kPostgres[step]);
      } catch (const StoreError& error) {
        throw StoreError("making gofish-server's tables (schema version " + std::to_string(step + 1) + ") in the " +
                         describe() + " failed: " + error.what() +
                         "; refusing to start. Give gofish-server a database of its own.");
      }
    }
    if (version < kPostgresSchemaVersion) {
      exec(("INSERT INTO meta(key, value) VALUES('schema_version', convert_to('" +
            std::to_string(kPostgresSchemaVersion) +
            "', 'UTF8')) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")
               .c_str());
    }
    exec("COMMIT");
    if (version < kPostgresSchemaVersion) {
      spdlog::info("storage: PostgreSQL {} migrated to schema version {}", describe(), kPostgresSchemaVersion);
    }
  } catch (...) {
    rollback();
    throw;
  }
}

void PostgresStore::prepare_statements() {
  for (const postgres_statements::Sql* sql : postgres_statements::all()) {
    Result::checked(conn_, PQprepare(conn_, sql->name, sql->text, 0, nullptr), std::string("preparing ") + sql->name);
  }
}

}  // namespace gofish::server
