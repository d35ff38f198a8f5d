// Errors on the wire: a closed list of namespaced codes, each with a stable
// spelling ("room/not_found") and a default sentence, plus the WebSocket close
// reasons the server uses.
//
// Codes are data a client branches on, so a spelling never changes once
// released; sentences are for people and may be made more specific by
// whoever raises the error (the engine's refusal sentence, a rules field).
// Every engine::RefusalCode has its own "action/..." code; the mapping is a
// switch over the engine's enum, so a new refusal breaks the build here until
// it has a wire spelling.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "engine/decision.hpp"
#include "engine/rules.hpp"

namespace gofish::protocol {

enum class ErrorCode {
  // protocol/: the frame itself
  kBadJson,
  kBadMessage,
  kUnknownType,
  kTooLarge,
  kRateLimited,
  kVersionMismatch,
  kHelloRequired,
  // room/: rooms and seats
  kRoomNotFound,
  kRoomBadCode,
  kRoomFull,
  kRoomNameTaken,
  kRoomBadName,
  kRoomNotHost,
  kRoomAlreadyStarted,
  kRoomNotStarted,
  kRoomNotOver,
  kRoomNotEnoughPlayers,
  kRoomSpectatorsOff,
  kRoomTooManyRooms,
  kRoomBadRules,
  kRoomBadSeat,
  kRoomBadToken,
  kRoomKicked,
  kRoomNotInRoom,
  kRoomAlreadyInRoom,
  kRoomSpectator,
  kRoomTranscriptUnavailable,
  kRoomTranscriptHeld,
  kRoomTooManyAttempts,
  kRoomBusy,
  kRoomPaused,
  kRoomClassTable,

  kEventNotFound,
  kEventBadCode,
  kEventFull,
  kEventNameTaken,
  kEventNotOnRoster,
  kEventBadToken,
  kEventNotTeacher,
  kEventNotInEvent,
  kEventAlreadyInEvent,
  kEventClosed,
  kEventRoundInPlay,
  kEventNoRound,
  kEventNoPupils,
  kEventNoMoreRounds,
  kEventBadPupil,
  kEventBadTable,
  kEventRateLimited,
  kEventNotSeated,
  // chat/
  kChatOff,
  kChatTooLong,
  kChatRateLimited,
  kChatNotAPhrase,
  // deal/: a seat's contribution to the next deal (docs/FAIRNESS.md)
  kDealBadContribution,
  kDealAlreadyContributed,
  kDealNotSeated,
  // server/
  kServerShuttingDown,
  kServerFull,
  kServerInternal,
  kServerStoreUnavailable,
  // api/: the HTTP API (GET /api/...), whose error bodies are error messages too
  kApiGameNotFound,
  kApiStorage,
  kApiEventNotFound,
  kApiNotAuthorized,
  kApiTranscriptHeld,
  // action/: one per engine::RefusalCode
  kActionGameOver,
  kActionNotYourTurn,
  kActionOutOfGame,
  kActionUnknownSeat,
  kActionAskedSelf,
  kActionTargetOut,
  kActionRankNotHeld,
  kActionCardAskInRankGame,
  kActionRankAskInCardGame,
  kActionCardHeld,
  kActionInvalidRank,
  kActionAwaitingAnswer,
  kActionNotAsked,
  kActionNothingToGive,
  kActionNoSuchSet,
  kActionTableRulesOnly,
};

// Every code, in declaration order (for tests and documentation).
std::span<const ErrorCode> all_error_codes();
// "room/not_found"
std::string_view error_code_name(ErrorCode code);
std::optional<ErrorCode> parse_error_code(std::string_view name);
// "No room has that code."
std::string_view default_message(ErrorCode code);
ErrorCode error_code_for(engine::RefusalCode code);

// A request id: a string or an integer, echoed in the reply or error.
using RequestId = std::variant<std::int64_t, std::string>;

struct Error {
  ErrorCode code = ErrorCode::kBadMessage;
  std::string message;              // a sentence for a person
  std::optional<RequestId> id;      // the id of the request it answers
  std::optional<std::string> field;  // the field at fault, when one is
  // room/class_table: the code of the class whose table the room is, which
  // the client connects by (/ws?room=EVENT) to ask again.
  std::optional<std::string> event{};  // {}: aggregates that name the fields before it leave it out
  friend bool operator==(const Error&, const Error&) = default;
};

// With the code's default sentence.
Error default_error(ErrorCode code, std::optional<RequestId> id = std::nullopt);
// With a more specific sentence ("No room has the code K7QXM.").
Error make_error(ErrorCode code, std::string message, std::optional<RequestId> id = std::nullopt);
// action/<refusal>, carrying the engine's sentence.
Error refusal_error(const engine::Refusal& refusal, std::optional<RequestId> id = std::nullopt);
// room/bad_rules, carrying the engine's sentence and the field at fault.
Error rules_error(const engine::ConfigError& error, std::optional<RequestId> id = std::nullopt);

// Why the server closes a connection. The server sends a `closing` message
// with the reason first when it can, then closes with the WebSocket code.
enum class CloseReason {
  kNormal,             // 1000: the client said goodbye, or the server has nothing more to say
  kShuttingDown,       // 1001: the server is stopping or restarting
  kProtocolError,      // 1002: the client broke the WebSocket protocol (a bad frame or close code)
  kUnsupportedData,    // 1003: a binary frame (the protocol is text only)
  kBadUtf8,            // 1007: a text frame that is not UTF-8
  kProtocolViolation,  // 1008: repeated bad messages
  kRateLimited,        // 1008: far over the message rate
  kSlowReader,         // 1008: the client did not read its messages fast enough
  kTooLarge,           // 1009: a frame over max_frame_bytes
  kInternal,           // 1011: a server fault
  kServerFull,         // 1013: no room for another connection, try again later
  kReplaced,           // 4000: the same seat resumed on another connection
  // 4001: the room is now served by another server of the same cluster;
  // reconnect and resume. An application reason (RFC 6455 leaves 4000-4999
  // to applications): 1001 and 1012 say the whole server is going, but this
  // server stays and only one room left it, and a client branches on it.
  kMoved,
};
std::span<const CloseReason> all_close_reasons();
// "shutting_down": the reason's stable spelling, also the WebSocket close reason text.
std::string_view close_reason_name(CloseReason reason);
std::optional<CloseReason> parse_close_reason(std::string_view name);
std::uint16_t close_code(CloseReason reason);
std::string_view close_message(CloseReason reason);

}  // namespace gofish::protocol
