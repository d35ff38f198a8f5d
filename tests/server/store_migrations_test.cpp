// The migrations compiled in from server/store/migrations/<store>/*.sql are
// the ones released: databases made by earlier servers ran exactly these
// texts under these version numbers, so a released one may not change (not
// even its whitespace: SQLite keeps a CREATE statement's text as written).
// Each is pinned by its length and FNV-1a hash; a new migration adds a line.
#include <doctest/doctest.h>

#include <cstdint>
#include <iterator>
#include <string_view>

#include "gofish/postgres_migrations.hpp"
#include "gofish/sqlite_migrations.hpp"
#include "server/store/fnv1a.hpp"
#include "server/store/postgres_store.hpp"
#include "server/store/sqlite_store.hpp"

namespace {

struct Pinned {
  std::size_t length;
  std::uint64_t hash;
};

using gofish::server::fnv1a;

template <std::size_t N, std::size_t M>
void check_pinned(const char* const (&migrations)[N], const Pinned (&pinned)[M]) {
  static_assert(N >= M, "a released migration is missing");
  for (std::size_t i = 0; i < M; ++i) {
    CAPTURE(i + 1);  // the file's number
    const std::string_view text = migrations[i];
    CHECK(text.size() == pinned[i].length);
    CHECK(fnv1a(text) == pinned[i].hash);
  }
}

}  // namespace

TEST_CASE("store migrations: the PostgreSQL ones released are compiled in unchanged, one a schema version") {
  constexpr Pinned kReleased[] = {
      {815, 0x007f6a585685eeffu}, {564, 0xb5c1bc2ebff3d7c7u}, {44, 0xe9aa034ad54b3175u},  {681, 0xfcf7a2d9801faa1eu},
      {974, 0xd96634aac9b8afa0u}, {299, 0xcacea683de767ef6u}, {626, 0x8a468948bc9ced1cu}, {1069, 0x8770c522c5ef4559u},
  };
  check_pinned(gofish::server::migrations::kPostgres, kReleased);
  CHECK(std::size(gofish::server::migrations::kPostgres) == gofish::server::kPostgresSchemaVersion);
}

TEST_CASE("store migrations: the SQLite ones released are compiled in unchanged, one a schema version") {
  constexpr Pinned kReleased[] = {
      {746, 0xf83856bebc4e14e7u}, {60, 0xf253799e9e1a7b04u}, {97, 0x476536d48c53a569u},
      {596, 0x29e8e14fc5af496au}, {53, 0xb25d4b8764f93c9fu},
  };
  check_pinned(gofish::server::migrations::kSqlite, kReleased);
  CHECK(std::size(gofish::server::migrations::kSqlite) == gofish::server::kSchemaVersion);
}
