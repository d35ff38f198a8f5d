// How the PostgreSQL store turns records into statements (steps_for: the
// one place a record meets SQL) and a batch's statements into fewer
// (merge_steps).
#pragma once

#include <string>
#include <vector>

#include "server/store/postgres_store.hpp"
#include "server/store/store.hpp"

namespace gofish::server::postgres_batching {

// The statements one record runs, in order.
std::vector<PostgresStore::Step> steps_for(const Record& record);

// An array literal for a text[] parameter: every element quoted, with its
// backslashes and double quotes escaped.
std::string text_array(const std::vector<std::string>& elements);

// Runs the statements of kMerged as one statement each: a batch of actions
// from many rooms costs PostgreSQL a statement per kind, not one per
// record. Every other statement keeps its place, and those of kMerged
// between two others run together there, games dealt first, then
// decisions, games finished and versions: within a room that is the order
// they were written in, and rooms do not depend on each other. A room
// written twice in a batch keeps its last version.
void merge_steps(std::vector<PostgresStore::Step>& steps);

}  // namespace gofish::server::postgres_batching
