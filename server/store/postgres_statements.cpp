#include "server/store/postgres_statements.hpp"

#include <optional>
#include <string>
#include <string_view>

#include "server/store/postgres_store.hpp"

namespace gofish::server::postgres_statements {

namespace {

constexpr const Sql* kStatements[] = {
    &kInsertRoom,         &kUpdateSettings, &kUpsertSeat,
    &kDeleteSeat,         &kInsertGame,     &kInsertDecision,
    &kFinishGame,         &kUpdateVersion,  &kCloseDecisions,
    &kCloseGames,         &kDetachGames,    &kCloseSeats,
    &kCloseRoom,          &kOpenRooms,      &kRoomSeats,
    &kLatestGame,         &kGameDecisions,  &kTruncateDecisions,
    &kSetAside,           &kSetAsideRooms,  &kRestoreSetAside,
    &kFinishedGame,       &kPruneDecisions, &kPruneGames,
    &kTokenKey,           &kAddTokenKey,    &kReplaceTokenKey,
    &kHoldsRoomsOrGames,  &kCloseLease,     &kFenceNode,
    &kFenceLock,          &kFenceRecheck,   &kAddNodeFence,
    &kTakeLease,          &kRenewLeases,    &kReleaseLeases,
    &kReleaseAllLeases,   &kAskHandover,    &kInsertDecisions,
    &kNextDecision,       &kWaitingRooms,   &kOpenRoom,
    &kRoomOfToken,        &kInsertGames,    &kFinishGames,
    &kUpdateVersions,     &kTxid,           &kTxidStatus,
    &kLatestFinishedGame, &kSaveEvent,      &kSavePupil,
    &kSaveEventTable,     &kOpenEvents,     &kEventPupils,
    &kEventTables,        &kCountDailyGame, &kDailyTally,
    &kEventOfTable,
    &kClosedEvent,        &kOpenEvent,
    &kSaveNextDeal,       &kSaveDailyNote,  &kMarkDailyCounted,
};

}  // namespace

std::span<const Sql* const> all() { return kStatements; }

}  // namespace gofish::server::postgres_statements

namespace gofish::server {

std::optional<std::string> PostgresStore::statement_text(std::string_view name) {
  for (const postgres_statements::Sql* sql : postgres_statements::all()) {
    if (name == sql->name) return std::string(sql->text);
  }
  return std::nullopt;
}

}  // namespace gofish::server
