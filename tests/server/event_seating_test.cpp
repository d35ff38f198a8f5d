// EventSeating: balanced tables of a class event.
#include "server/rooms/event_seating.hpp"

#include <doctest/doctest.h>

#include <numeric>

namespace gofish::server {
namespace {

std::vector<int> pupils(int count) {
  std::vector<int> out(static_cast<std::size_t>(count));
  std::iota(out.begin(), out.end(), 0);
  return out;
}

std::vector<std::size_t> sizes(const std::vector<std::vector<int>>& tables) {
  std::vector<std::size_t> out;
  for (const auto& table : tables) out.push_back(table.size());
  return out;
}

TEST_CASE("event seating: as few tables as the size allows, their counts within one") {
  CHECK(sizes(EventSeating::balanced(pupils(12), 4)) == std::vector<std::size_t>{4, 4, 4});
  CHECK(sizes(EventSeating::balanced(pupils(13), 4)) == std::vector<std::size_t>{4, 3, 3, 3});
  CHECK(sizes(EventSeating::balanced(pupils(5), 4)) == std::vector<std::size_t>{3, 2});
  CHECK(sizes(EventSeating::balanced(pupils(1), 6)) == std::vector<std::size_t>{1});
  CHECK(EventSeating::balanced({}, 4).empty());
  for (int count = 1; count <= 60; ++count) {
    for (int size = 2; size <= 6; ++size) {
      CAPTURE(count);
      CAPTURE(size);
      const auto tables = EventSeating::balanced(pupils(count), size);
      CHECK(static_cast<int>(tables.size()) == (count + size - 1) / size);
      std::vector<int> seen;
      std::size_t least = 99;
      std::size_t most = 0;
      for (const auto& table : tables) {
        least = std::min(least, table.size());
        most = std::max(most, table.size());
        CHECK(static_cast<int>(table.size()) <= size);
        seen.insert(seen.end(), table.begin(), table.end());
      }
      CHECK(most - least <= 1);
      CHECK(seen == pupils(count));  // everyone once, in the order given
    }
  }
}

TEST_CASE("event seating: a latecomer sits at the emptiest table with room, or a new one") {
  std::vector<std::vector<int>> tables = {{0, 1, 2, 3}, {4, 5}, {6, 7, 8}};
  CHECK(EventSeating::place(tables, 9, 4) == 1);
  CHECK(tables[1] == std::vector<int>{4, 5, 9});
  tables = {{0, 1}, {2, 3}};
  CHECK(EventSeating::place(tables, 4, 2) == 2);
  CHECK(tables.size() == 3);
}

}  // namespace
}  // namespace gofish::server
