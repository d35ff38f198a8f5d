// How a class event's pupils are spread over tables: as few tables as the
// table size allows, their pupil counts differing by one at most, pupils in
// the order given. Pure, so it is tested on its own.
#pragma once

#include <vector>

namespace gofish::server {

class EventSeating {
 public:
  // The pupils (their numbers) at each table; empty for no pupils.
  static std::vector<std::vector<int>> balanced(const std::vector<int>& pupils, int table_size);
  // Adds `pupil` to the table with the fewest pupils that has a free seat,
  // or to a new table; returns the table's index.
  static int place(std::vector<std::vector<int>>& tables, int pupil, int table_size);
};

}  // namespace gofish::server
