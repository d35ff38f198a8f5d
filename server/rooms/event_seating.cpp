#include "server/rooms/event_seating.hpp"

#include <cstddef>
#include <optional>

namespace gofish::server {

std::vector<std::vector<int>> EventSeating::balanced(const std::vector<int>& pupils, int table_size) {
  std::vector<std::vector<int>> tables;
  if (pupils.empty() || table_size < 1) return tables;
  const std::size_t size = static_cast<std::size_t>(table_size);
  const std::size_t count = (pupils.size() + size - 1) / size;
  const std::size_t base = pupils.size() / count;
  const std::size_t larger = pupils.size() % count;  // this many tables get one more
  std::size_t next = 0;
  for (std::size_t t = 0; t < count; ++t) {
    const std::size_t here = base + (t < larger ? 1 : 0);
    tables.emplace_back(pupils.begin() + static_cast<std::ptrdiff_t>(next),
                        pupils.begin() + static_cast<std::ptrdiff_t>(next + here));
    next += here;
  }
  return tables;
}

int EventSeating::place(std::vector<std::vector<int>>& tables, int pupil, int table_size) {
  std::optional<std::size_t> best;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    if (static_cast<int>(tables[t].size()) >= table_size) continue;
    if (!best || tables[t].size() < tables[*best].size()) best = t;
  }
  if (!best) {
    tables.emplace_back();
    best = tables.size() - 1;
  }
  tables[*best].push_back(pupil);
  return static_cast<int>(*best);
}

}  // namespace gofish::server
