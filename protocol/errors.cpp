#include "protocol/errors.hpp"

#include <array>

namespace gofish::protocol {
namespace {

struct CodeInfo {
  std::string_view name;
  std::string_view message;
};

// One switch per code, without a default, so a new code cannot be added
// without a spelling and a sentence (-Wswitch is an error).
CodeInfo info(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadJson: return {"protocol/bad_json", "That message is not valid JSON."};
    case ErrorCode::kBadMessage: return {"protocol/bad_message", "That message is missing a field or has one of the wrong kind."};
    case ErrorCode::kUnknownType: return {"protocol/unknown_type", "The server does not know that message type."};
    case ErrorCode::kTooLarge: return {"protocol/too_large", "That message is too large."};
    case ErrorCode::kRateLimited: return {"protocol/rate_limited", "Too many messages; slow down a little."};
    case ErrorCode::kVersionMismatch:
      return {"protocol/version_mismatch", "This server speaks a different protocol version; please update the client."};
    case ErrorCode::kHelloRequired: return {"protocol/hello_required", "Say hello first: the first message must be a hello."};
    case ErrorCode::kRoomNotFound: return {"room/not_found", "No room has that code."};
    case ErrorCode::kRoomBadCode:
      return {"room/bad_code", "A room code is five letters and digits, without 0, O, 1, I or L."};
    case ErrorCode::kRoomFull: return {"room/full", "Every seat in that room is taken."};
    case ErrorCode::kRoomNameTaken:
      return {"room/name_taken", "Someone in that room already has that name, or one that looks the same."};
    case ErrorCode::kRoomBadName:
      return {"room/bad_name",
              "A name needs 1 to 24 characters, some of them visible, and no control, invisible or blank characters."};
    case ErrorCode::kRoomNotHost: return {"room/not_host", "Only the host can do that."};
    case ErrorCode::kRoomAlreadyStarted: return {"room/already_started", "The game has already started."};
    case ErrorCode::kRoomNotStarted: return {"room/not_started", "The game has not started yet."};
    case ErrorCode::kRoomNotOver: return {"room/not_over", "The game is not over yet."};
    case ErrorCode::kRoomNotEnoughPlayers:
      return {"room/not_enough_players", "There are not enough players at the table to start."};
    case ErrorCode::kRoomSpectatorsOff: return {"room/spectators_off", "This room does not take spectators."};
    case ErrorCode::kRoomTooManyRooms: return {"room/too_many_rooms", "The server has too many rooms open; try again later."};
    case ErrorCode::kRoomBadRules: return {"room/bad_rules", "Those rules cannot be played."};
    case ErrorCode::kRoomBadSeat: return {"room/bad_seat", "That seat cannot be used for this."};
    case ErrorCode::kRoomBadToken: return {"room/bad_token", "That seat token is not valid (any more)."};
    case ErrorCode::kRoomKicked: return {"room/kicked", "The host removed you from this room."};
    case ErrorCode::kRoomNotInRoom: return {"room/not_in_room", "Join or create a room first."};
    case ErrorCode::kRoomAlreadyInRoom: return {"room/already_in_room", "Leave your current room first."};
    case ErrorCode::kRoomSpectator: return {"room/spectator", "Spectators watch; only seated players can do that."};
    case ErrorCode::kRoomTranscriptUnavailable:
      return {"room/transcript_unavailable", "The transcript is available once the game is over."};
    case ErrorCode::kRoomTranscriptHeld:
      return {"room/transcript_held",
              "This game was dealt a shared deal that is still being played: its transcript is available once that "
              "deal is over."};
    case ErrorCode::kRoomBusy:
      return {"room/busy", "The room is moving between servers; try again in a moment."};
    case ErrorCode::kRoomPaused:
      return {"room/paused", "The game is paused while the server tries again to save it; try once play goes on."};
    case ErrorCode::kRoomClassTable:
      return {"room/class_table",
              "That room is a table of a class, served with its class: connect by the class's code and ask again."};
    case ErrorCode::kRoomTooManyAttempts:
      return {"room/too_many_attempts",
              "Too many joins with a wrong room code or seat token came from your address; wait a little and try "
              "again."};
    case ErrorCode::kEventNotFound: return {"event/not_found", "No class event has that code."};
    case ErrorCode::kEventBadCode:
      return {"event/bad_code", "An event code is six letters and digits, without 0, O, 1, I or L."};
    case ErrorCode::kEventFull: return {"event/full", "This class is full: every place in it is taken."};
    case ErrorCode::kEventNameTaken:
      return {"event/name_taken", "Someone in this class already has that name; ask your teacher if it is yours."};
    case ErrorCode::kEventNotOnRoster:
      return {"event/not_on_roster", "That name is not on this class's list; choose your name from the list."};
    case ErrorCode::kEventBadToken: return {"event/bad_token", "That event token is not valid for this class."};
    case ErrorCode::kEventNotTeacher: return {"event/not_teacher", "Only the teacher of this class can do that."};
    case ErrorCode::kEventNotInEvent: return {"event/not_in_event", "Create, join or resume a class event first."};
    case ErrorCode::kEventAlreadyInEvent:
      return {"event/already_in_event", "This connection is already in a class event."};
    case ErrorCode::kEventClosed: return {"event/closed", "This class event is over; nothing more can change in it."};
    case ErrorCode::kEventRoundInPlay:
      return {"event/round_in_play", "A round is being played; end it first."};
    case ErrorCode::kEventNoRound: return {"event/no_round", "No round is being played."};
    case ErrorCode::kEventNoPupils: return {"event/no_pupils", "No pupil has joined yet, so there is nobody to seat."};
    case ErrorCode::kEventNoMoreRounds:
      return {"event/no_more_rounds", "Every round of this event has been played."};
    case ErrorCode::kEventBadPupil: return {"event/bad_pupil", "There is no pupil with that number in this class."};
    case ErrorCode::kEventBadTable: return {"event/bad_table", "There is no such table, or it has no free seat."};
    case ErrorCode::kEventRateLimited:
      return {"event/rate_limited", "One message to every table at a time: wait two seconds before the next."};
    case ErrorCode::kEventNotSeated:
      return {"event/not_seated", "That pupil has no seat at a table of the round being played."};
    case ErrorCode::kChatOff: return {"chat/off", "Chat is off in this room."};
    case ErrorCode::kChatTooLong: return {"chat/too_long", "That chat message is too long (200 characters at most)."};
    case ErrorCode::kChatRateLimited: return {"chat/rate_limited", "You are chatting too fast; wait a moment."};
    case ErrorCode::kChatNotAPhrase: return {"chat/not_a_phrase", "This room allows only the listed chat phrases."};
    case ErrorCode::kDealBadContribution:
      return {"deal/bad_contribution", "A contribution is 16 to 32 random bytes, written as 32 to 64 hex digits."};
    case ErrorCode::kDealAlreadyContributed:
      return {"deal/already_contributed", "Your seat has already contributed to this deal."};
    case ErrorCode::kDealNotSeated:
      return {"deal/not_seated", "Only a player seated at the table contributes to the deal, between games."};
    case ErrorCode::kServerShuttingDown: return {"server/shutting_down", "The server is shutting down."};
    case ErrorCode::kServerFull: return {"server/full", "The server is full; try again later."};
    case ErrorCode::kServerInternal: return {"server/internal", "Something went wrong on the server."};
    case ErrorCode::kServerStoreUnavailable:
      return {"server/store_unavailable", "The server cannot save games just now; try again in a moment."};
    case ErrorCode::kApiGameNotFound: return {"api/game_not_found", "No finished game with this id is kept here."};
    case ErrorCode::kApiStorage: return {"api/storage", "The game store could not be read."};
    case ErrorCode::kApiEventNotFound: return {"api/event_not_found", "No class event with this code is open here."};
    case ErrorCode::kApiNotAuthorized:
      return {"api/not_authorized", "This needs the event's teacher token: Authorization: Bearer <token>."};
    case ErrorCode::kApiTranscriptHeld:
      return {"api/transcript_held",
              "This game was dealt a shared deal that is still being played: its transcript is available once that "
              "deal is over."};
    case ErrorCode::kActionGameOver: return {"action/game_over", "The game is over."};
    case ErrorCode::kActionNotYourTurn: return {"action/not_your_turn", "It is not your turn."};
    case ErrorCode::kActionOutOfGame: return {"action/out_of_game", "You are out of the game."};
    case ErrorCode::kActionUnknownSeat: return {"action/unknown_seat", "There is no such seat at this table."};
    case ErrorCode::kActionAskedSelf: return {"action/asked_self", "You cannot ask yourself."};
    case ErrorCode::kActionTargetOut: return {"action/target_out", "That player is out of the game."};
    case ErrorCode::kActionRankNotHeld: return {"action/rank_not_held", "You can only ask for a rank you hold."};
    case ErrorCode::kActionCardAskInRankGame:
      return {"action/card_ask_in_rank_game", "In this game you ask for a rank, not a card."};
    case ErrorCode::kActionRankAskInCardGame:
      return {"action/rank_ask_in_card_game", "In this game you ask for one specific card."};
    case ErrorCode::kActionCardHeld: return {"action/card_held", "You cannot ask for a card you hold."};
    case ErrorCode::kActionInvalidRank: return {"action/invalid_rank", "That is not a card rank."};
    case ErrorCode::kActionAwaitingAnswer: return {"action/awaiting_answer", "The asked player must answer first."};
    case ErrorCode::kActionNotAsked: return {"action/not_asked", "Nobody is waiting for your answer."};
    case ErrorCode::kActionNothingToGive: return {"action/nothing_to_give", "You have no card of that rank to give."};
    case ErrorCode::kActionNoSuchSet: return {"action/no_such_set", "You do not hold a complete set of that rank."};
    case ErrorCode::kActionTableRulesOnly:
      return {"action/table_rules_only", "Answers and declarations are made only under table rules."};
  }
  return {"server/internal", "Something went wrong on the server."};
}

constexpr std::array kAllCodes = {
    ErrorCode::kBadJson,
    ErrorCode::kBadMessage,
    ErrorCode::kUnknownType,
    ErrorCode::kTooLarge,
    ErrorCode::kRateLimited,
    ErrorCode::kVersionMismatch,
    ErrorCode::kHelloRequired,
    ErrorCode::kRoomNotFound,
    ErrorCode::kRoomBadCode,
    ErrorCode::kRoomFull,
    ErrorCode::kRoomNameTaken,
    ErrorCode::kRoomBadName,
    ErrorCode::kRoomNotHost,
    ErrorCode::kRoomAlreadyStarted,
    ErrorCode::kRoomNotStarted,
    ErrorCode::kRoomNotOver,
    ErrorCode::kRoomNotEnoughPlayers,
    ErrorCode::kRoomSpectatorsOff,
    ErrorCode::kRoomTooManyRooms,
    ErrorCode::kRoomBadRules,
    ErrorCode::kRoomBadSeat,
    ErrorCode::kRoomBadToken,
    ErrorCode::kRoomKicked,
    ErrorCode::kRoomNotInRoom,
    ErrorCode::kRoomAlreadyInRoom,
    ErrorCode::kRoomSpectator,
    ErrorCode::kRoomTranscriptUnavailable,
    ErrorCode::kRoomTranscriptHeld,
    ErrorCode::kRoomTooManyAttempts,
    ErrorCode::kRoomBusy,
    ErrorCode::kRoomPaused,
    ErrorCode::kRoomClassTable,
    ErrorCode::kEventNotFound,
    ErrorCode::kEventBadCode,
    ErrorCode::kEventFull,
    ErrorCode::kEventNameTaken,
    ErrorCode::kEventNotOnRoster,
    ErrorCode::kEventBadToken,
    ErrorCode::kEventNotTeacher,
    ErrorCode::kEventNotInEvent,
    ErrorCode::kEventAlreadyInEvent,
    ErrorCode::kEventClosed,
    ErrorCode::kEventRoundInPlay,
    ErrorCode::kEventNoRound,
    ErrorCode::kEventNoPupils,
    ErrorCode::kEventNoMoreRounds,
    ErrorCode::kEventBadPupil,
    ErrorCode::kEventBadTable,
    ErrorCode::kEventRateLimited,
    ErrorCode::kEventNotSeated,
    ErrorCode::kChatOff,
    ErrorCode::kChatTooLong,
    ErrorCode::kChatRateLimited,
    ErrorCode::kChatNotAPhrase,
    ErrorCode::kDealBadContribution,
    ErrorCode::kDealAlreadyContributed,
    ErrorCode::kDealNotSeated,
    ErrorCode::kServerShuttingDown,
    ErrorCode::kServerFull,
    ErrorCode::kServerInternal,
    ErrorCode::kServerStoreUnavailable,
    ErrorCode::kApiGameNotFound,
    ErrorCode::kApiStorage,
    ErrorCode::kApiEventNotFound,
    ErrorCode::kApiNotAuthorized,
    ErrorCode::kApiTranscriptHeld,
    ErrorCode::kActionGameOver,
    ErrorCode::kActionNotYourTurn,
    ErrorCode::kActionOutOfGame,
    ErrorCode::kActionUnknownSeat,
    ErrorCode::kActionAskedSelf,
    ErrorCode::kActionTargetOut,
    ErrorCode::kActionRankNotHeld,
    ErrorCode::kActionCardAskInRankGame,
    ErrorCode::kActionRankAskInCardGame,
    ErrorCode::kActionCardHeld,
    ErrorCode::kActionInvalidRank,
    ErrorCode::kActionAwaitingAnswer,
    ErrorCode::kActionNotAsked,
    ErrorCode::kActionNothingToGive,
    ErrorCode::kActionNoSuchSet,
    ErrorCode::kActionTableRulesOnly,
};
static_assert(kAllCodes.size() == static_cast<std::size_t>(ErrorCode::kActionTableRulesOnly) + 1,
              "kAllCodes must list every ErrorCode");

constexpr std::array kAllCloseReasons = {
    CloseReason::kNormal,     CloseReason::kShuttingDown,      CloseReason::kProtocolError, CloseReason::kUnsupportedData,
    CloseReason::kBadUtf8,    CloseReason::kProtocolViolation, CloseReason::kRateLimited,   CloseReason::kSlowReader,
    CloseReason::kTooLarge,   CloseReason::kInternal,          CloseReason::kServerFull,    CloseReason::kReplaced,
    CloseReason::kMoved,
};
static_assert(kAllCloseReasons.size() == static_cast<std::size_t>(CloseReason::kMoved) + 1,
              "kAllCloseReasons must list every CloseReason");

struct CloseInfo {
  std::string_view name;
  std::uint16_t code;
  std::string_view message;
};

CloseInfo info(CloseReason reason) {
  switch (reason) {
    case CloseReason::kNormal: return {"normal", 1000, "Goodbye."};
    case CloseReason::kShuttingDown:
      return {"shutting_down", 1001, "The server is restarting. Reconnect in a moment and resume your seat."};
    case CloseReason::kProtocolError:
      return {"protocol_error", 1002, "The client broke the WebSocket protocol."};
    case CloseReason::kUnsupportedData:
      return {"unsupported_data", 1003, "The protocol uses text frames only."};
    case CloseReason::kBadUtf8: return {"bad_utf8", 1007, "A text frame was not valid UTF-8."};
    case CloseReason::kProtocolViolation:
      return {"protocol_violation", 1008, "The client kept sending messages the server cannot use."};
    case CloseReason::kRateLimited: return {"rate_limited", 1008, "The client sent far too many messages."};
    case CloseReason::kSlowReader:
      return {"slow_reader", 1008, "The connection could not keep up with the game's messages. Reconnect to resume."};
    case CloseReason::kTooLarge: return {"too_large", 1009, "A message was larger than the server accepts."};
    case CloseReason::kInternal: return {"internal_error", 1011, "Something went wrong on the server."};
    case CloseReason::kServerFull: return {"server_full", 1013, "The server is full. Try again later."};
    case CloseReason::kReplaced: return {"replaced", 4000, "Your seat was resumed on another connection."};
    case CloseReason::kMoved:
      return {"moved", 4001, "Your room has moved to another server. Reconnect and resume your seat."};
  }
  return {"internal_error", 1011, "Something went wrong on the server."};
}

}  // namespace

std::span<const ErrorCode> all_error_codes() { return kAllCodes; }

std::string_view error_code_name(ErrorCode code) { return info(code).name; }

std::optional<ErrorCode> parse_error_code(std::string_view name) {
  for (ErrorCode code : kAllCodes) {
    if (info(code).name == name) return code;
  }
  return std::nullopt;
}

std::string_view default_message(ErrorCode code) { return info(code).message; }

ErrorCode error_code_for(engine::RefusalCode code) {
  using engine::RefusalCode;
  switch (code) {
    case RefusalCode::kGameOver: return ErrorCode::kActionGameOver;
    case RefusalCode::kNotYourTurn: return ErrorCode::kActionNotYourTurn;
    case RefusalCode::kOutOfGame: return ErrorCode::kActionOutOfGame;
    case RefusalCode::kUnknownSeat: return ErrorCode::kActionUnknownSeat;
    case RefusalCode::kAskedSelf: return ErrorCode::kActionAskedSelf;
    case RefusalCode::kTargetOut: return ErrorCode::kActionTargetOut;
    case RefusalCode::kRankNotHeld: return ErrorCode::kActionRankNotHeld;
    case RefusalCode::kCardAskInRankGame: return ErrorCode::kActionCardAskInRankGame;
    case RefusalCode::kRankAskInCardGame: return ErrorCode::kActionRankAskInCardGame;
    case RefusalCode::kCardHeld: return ErrorCode::kActionCardHeld;
    case RefusalCode::kInvalidRank: return ErrorCode::kActionInvalidRank;
    case RefusalCode::kAwaitingAnswer: return ErrorCode::kActionAwaitingAnswer;
    case RefusalCode::kNotAsked: return ErrorCode::kActionNotAsked;
    case RefusalCode::kNothingToGive: return ErrorCode::kActionNothingToGive;
    case RefusalCode::kNoSuchSet: return ErrorCode::kActionNoSuchSet;
    case RefusalCode::kTableRulesOnly: return ErrorCode::kActionTableRulesOnly;
  }
  return ErrorCode::kServerInternal;
}

Error default_error(ErrorCode code, std::optional<RequestId> id) {
  return Error{code, std::string(default_message(code)), std::move(id), std::nullopt};
}

Error make_error(ErrorCode code, std::string message, std::optional<RequestId> id) {
  return Error{code, std::move(message), std::move(id), std::nullopt};
}

Error refusal_error(const engine::Refusal& refusal, std::optional<RequestId> id) {
  const ErrorCode code = error_code_for(refusal.code);
  std::string message = refusal.message.empty() ? std::string(default_message(code)) : refusal.message;
  return Error{code, std::move(message), std::move(id), std::nullopt};
}

Error rules_error(const engine::ConfigError& error, std::optional<RequestId> id) {
  std::string message = error.message.empty() ? std::string(default_message(ErrorCode::kRoomBadRules)) : error.message;
  std::optional<std::string> field;
  if (!error.field.empty()) field = error.field;
  return Error{ErrorCode::kRoomBadRules, std::move(message), std::move(id), std::move(field)};
}

std::span<const CloseReason> all_close_reasons() { return kAllCloseReasons; }
std::string_view close_reason_name(CloseReason reason) { return info(reason).name; }
std::optional<CloseReason> parse_close_reason(std::string_view name) {
  for (CloseReason reason : kAllCloseReasons) {
    if (info(reason).name == name) return reason;
  }
  return std::nullopt;
}
std::uint16_t close_code(CloseReason reason) { return info(reason).code; }
std::string_view close_message(CloseReason reason) { return info(reason).message; }

}  // namespace gofish::protocol
