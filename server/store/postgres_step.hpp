// One prepared statement of the PostgreSQL store with its parameters
// (PostgresStore::Step), and step(), which makes one from a statement of the
// catalogue (postgres_statements.hpp) and its arguments in order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/store/postgres_store.hpp"
#include "server/store/postgres_statements.hpp"

namespace gofish::server {

struct PostgresStore::Step {
  const char* name = nullptr;       // the prepared statement
  std::vector<std::string> values;  // each parameter's bytes
  std::vector<int> formats;         // 1: binary (text and bytea as bytes), 0: text (integers in decimal)
  std::vector<char> nulls;          // 1: the parameter is NULL
  // libpq's parameter arrays, pointing into `values`.
  std::vector<const char*> pointers() const {
    std::vector<const char*> out;
    for (std::size_t i = 0; i < values.size(); ++i) out.push_back(nulls[i] ? nullptr : values[i].c_str());
    return out;
  }
  std::vector<int> lengths() const {
    std::vector<int> out;
    for (const auto& value : values) out.push_back(static_cast<int>(value.size()));
    return out;
  }
};

namespace postgres_step {

inline void add(PostgresStore::Step& step, const std::string& bytes) {
  step.values.push_back(bytes);
  step.formats.push_back(1);
  step.nulls.push_back(0);
}
inline void add(PostgresStore::Step& step, std::int64_t value) {
  step.values.push_back(std::to_string(value));
  step.formats.push_back(0);
  step.nulls.push_back(0);
}
inline void add(PostgresStore::Step& step, const std::optional<std::int64_t>& value) {
  add(step, value.value_or(0));
  step.nulls.back() = value ? 0 : 1;
}
inline void add(PostgresStore::Step& step, int value) { add(step, static_cast<std::int64_t>(value)); }

template <class... Args>
PostgresStore::Step step(const postgres_statements::Sql& sql, const Args&... args) {
  PostgresStore::Step out;
  out.name = sql.name;
  (add(out, args), ...);
  return out;
}

}  // namespace postgres_step

}  // namespace gofish::server
