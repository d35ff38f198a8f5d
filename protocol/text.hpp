// The protocol's small text formats: room codes, display names, chat text,
// seat tokens and the fixed chat phrases.
//
// Room codes are read aloud across a table, so their alphabet leaves out the
// characters people confuse (0/O, 1/I/L). Names and chat are shown to other
// people, so they are trimmed and refused when they hold control characters
// or the invisible formatting characters that can reorder or hide text
// (bidirectional overrides, zero-width spaces). Names, which tell people
// apart, go further, with ICU's Unicode data: stored in NFC, no
// default-ignorable or blank characters, and no two in a room that look
// alike (protocol/README.md, Conventions: Names).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "protocol/errors.hpp"
#include "protocol/limits.hpp"

namespace gofish::protocol {

// Room codes: kRoomCodeLength characters of kRoomCodeAlphabet, 31^5 (about
// 28.6 million) codes.
inline constexpr std::string_view kRoomCodeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
inline constexpr std::size_t kRoomCodeLength = 5;

// True for a code already in canonical form ("K7QXM").
bool is_room_code(std::string_view code);
// Trims surrounding whitespace and upper-cases; nullopt when the result is
// not a room code. " k7qxm " -> "K7QXM".
std::optional<std::string> normalize_room_code(std::string_view text);
// The number of distinct codes, and a bijection from [0, count) onto them, so
// the server can draw a random index and map it to a code.
std::uint64_t room_code_count();
std::string room_code_from_index(std::uint64_t index);
// Class event codes: kEventCodeLength characters of the same alphabet, so
// an event code is never a room code (and is never listed in the lobby).
inline constexpr std::size_t kEventCodeLength = 6;
bool is_event_code(std::string_view code);
// As normalize_room_code, for event codes.
std::optional<std::string> normalize_event_code(std::string_view text);
std::uint64_t event_code_count();
std::string event_code_from_index(std::uint64_t index);
// "/r/K7QXM": the path a client opens to join the room.
std::string invite_path(std::string_view code);

// A display name, in NFC: surrounding white space trimmed, inner runs of
// spaces made one space, 1..max_name_chars code points of the NFC form. Valid
// UTF-8 with no control characters or line breaks, no default-ignorable code
// point except inside a whole RGI emoji, no other format, private-use or
// unassigned code point, no blank symbol (U+2800, U+1D159), the same mark at
// most once on a letter, and at least one letter, digit, punctuation mark or
// symbol. The error is room/bad_name, with a sentence saying which rule.
std::variant<std::string, Error> normalize_name(std::string_view text, const ParseLimits& limits = {});
// True when two names look alike, so one room must not hold both: equal UTS
// #39 confusable skeletons of their NFKC case folds, the skeleton taken after
// folding or before it ("Ann"/"aNN", "Bob"/"B\u043eb" with a Cyrillic o,
// "Jos\u00e9"/"JOSE\u0301", "Ian"/"lan"). Safe to call from any thread.
bool same_name(std::string_view a, std::string_view b);

// Free chat text: trimmed, 1..max_chat_chars code points, no control or
// invisible formatting characters. Errors: chat/too_long, protocol/bad_message.
std::variant<std::string, Error> normalize_chat_text(std::string_view text, const ParseLimits& limits = {});

// Counts code points; nullopt for invalid UTF-8.
std::optional<std::size_t> utf8_length(std::string_view text);

// Seat tokens: kTokenLength characters of the URL-safe base64 alphabet,
// 192 random bits. The server makes them from random bytes.
inline constexpr std::size_t kTokenLength = 32;
inline constexpr std::size_t kTokenBytes = 24;
bool is_token(std::string_view text);
std::string token_from_bytes(std::span<const std::uint8_t, kTokenBytes> bytes);

// The fixed chat phrases of rooms whose chat mode is "phrases" (also usable
// in "free" rooms). Ids are stable; clients may translate the text.
struct Phrase {
  std::string_view id;
  std::string_view text;
};
std::span<const Phrase> chat_phrases();
const Phrase* find_phrase(std::string_view id);

}  // namespace gofish::protocol
