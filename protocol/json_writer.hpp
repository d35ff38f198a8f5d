// Two writers of one JSON object with the same interface, for the protocol's
// own encoders (not part of the public interface).
//
// A message type's fields are written once, by a function template over the
// writer (`write_event` in game_json.cpp, `write` in server_messages_encode.cpp);
// StringWriter appends the object's text straight to a string, which is the
// server's hot path (no json value, no allocation per field), and
// ValueWriter builds an nlohmann::ordered_json for callers that need a value
// (a room snapshot's result, tests). Both write the fields in the order
// given, and StringWriter writes exactly what ValueWriter's value dumps to,
// byte for byte (tests/protocol/server_messages_test.cpp compares them over
// every event of random games of every preset).
//
// token() is for fixed spellings that need no escaping (an enum name, a rank,
// a card); text() escapes, and is for anything a person or a client chose.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "engine/card.hpp"

namespace gofish::protocol::detail {

// Appends an integer as JSON writes it.
inline void append_integer(std::string& out, std::int64_t value) {
  char digits[24];
  const auto end = std::to_chars(std::begin(digits), std::end(digits), value).ptr;
  out.append(digits, end);
}

class StringWriter {
 public:
  // Opens the object; the destructor closes it.
  explicit StringWriter(std::string& out) : out_(out) { out_ += '{'; }
  ~StringWriter() { out_ += '}'; }
  StringWriter(const StringWriter&) = delete;
  StringWriter& operator=(const StringWriter&) = delete;

  StringWriter& number(std::string_view key, std::int64_t value) {
    char digits[24];
    const auto end = std::to_chars(std::begin(digits), std::end(digits), value).ptr;
    put(separator(), '"', key, std::string_view("\":"), std::string_view(digits, end - digits));
    return *this;
  }
  StringWriter& boolean(std::string_view key, bool value) {
    put(separator(), '"', key, std::string_view("\":"), std::string_view(value ? "true" : "false"));
    return *this;
  }
  StringWriter& token(std::string_view key, std::string_view value) {
    put(separator(), '"', key, std::string_view("\":\""), value, '"');
    return *this;
  }
  StringWriter& text(std::string_view key, std::string_view value) {
    // Printable ASCII without quotes or backslashes is written as it is;
    // anything else is escaped by nlohmann's own dump, so the bytes agree.
    const bool plain =
        std::all_of(value.begin(), value.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
    if (plain) return token(key, value);
    field(key);
    out_ += nlohmann::ordered_json(std::string(value)).dump();
    return *this;
  }
  StringWriter& card(std::string_view key, engine::Card card) { return token(key, engine::to_string(card)); }
  StringWriter& cards(std::string_view key, engine::CardSet cards) {
    field(key);
    card_list(cards);
    return *this;
  }
  StringWriter& card_lists(std::string_view key, std::span<const engine::CardSet> lists) {
    field(key);
    out_ += '[';
    for (std::size_t i = 0; i < lists.size(); ++i) {
      if (i != 0) out_ += ',';
      card_list(lists[i]);
    }
    out_ += ']';
    return *this;
  }
  StringWriter& integers(std::string_view key, std::span<const int> values) {
    field(key);
    out_ += '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i != 0) out_ += ',';
      append_integer(out_, values[i]);
    }
    out_ += ']';
    return *this;
  }
  // A seat mask as the list of its seats, lowest first.
  StringWriter& seats(std::string_view key, std::uint8_t mask) {
    field(key);
    out_ += '[';
    bool first = true;
    for (engine::Seat s = 0; s < engine::kMaxSeats; ++s) {
      if (((mask >> s) & 1U) == 0) continue;
      if (!first) out_ += ',';
      first = false;
      append_integer(out_, s);
    }
    out_ += ']';
    return *this;
  }
  // A nested object, filled by fill(StringWriter&).
  template <class Fill>
  StringWriter& object(std::string_view key, Fill&& fill) {
    field(key);
    StringWriter nested(out_);
    fill(nested);
    return *this;
  }
  // A value built elsewhere, as its dump.
  StringWriter& value(std::string_view key, const nlohmann::ordered_json& value) {
    field(key);
    out_ += value.dump();
    return *this;
  }

 private:
  // "," before every field but the first.
  std::string_view separator() {
    const std::string_view out = empty_ ? std::string_view() : std::string_view(",");
    empty_ = false;
    return out;
  }
  void field(std::string_view key) { put(separator(), '"', key, std::string_view("\":")); }
  void card_list(engine::CardSet cards) {
    out_ += '[';
    std::string_view separator;
    for (engine::Card c : cards) {
      // A card is two or three characters: no allocation.
      const std::string text = engine::to_string(c);
      put(separator, '"', std::string_view(text), '"');
      separator = ",";
    }
    out_ += ']';
  }

  // Appends the pieces with one call: every std::string append checks the
  // capacity and the length, which for pieces of one to six characters costs
  // more than the copying. Pieces are chars and string_views; a run too long
  // for the buffer is appended piece by piece.
  template <class... Pieces>
  void put(const Pieces&... pieces) {
    const std::size_t total = (length(pieces) + ...);
    char buffer[128];
    if (total > sizeof buffer) {
      (out_.append(as_view(pieces)), ...);
      return;
    }
    char* at = buffer;
    ((at = copy(at, pieces)), ...);
    out_.append(buffer, total);
  }
  static std::size_t length(char) { return 1; }
  static std::size_t length(std::string_view piece) { return piece.size(); }
  static std::string_view as_view(const char& c) { return std::string_view(&c, 1); }
  static std::string_view as_view(std::string_view piece) { return piece; }
  static char* copy(char* at, char c) {
    *at = c;
    return at + 1;
  }
  static char* copy(char* at, std::string_view piece) {
    // An empty view may have no data at all, and memcpy from null is
    // undefined even for 0 bytes (UBSan stops on it).
    if (!piece.empty()) std::memcpy(at, piece.data(), piece.size());
    return at + piece.size();
  }

  std::string& out_;
  bool empty_ = true;
};

class ValueWriter {
 public:
  // Makes `out` an empty object and fills it.
  explicit ValueWriter(nlohmann::ordered_json& out) : out_(out) { out_ = nlohmann::ordered_json::object(); }

  ValueWriter& number(std::string_view key, std::int64_t value) { return set(key, value); }
  ValueWriter& boolean(std::string_view key, bool value) { return set(key, value); }
  ValueWriter& token(std::string_view key, std::string_view value) { return set(key, value); }
  ValueWriter& text(std::string_view key, std::string_view value) { return set(key, value); }
  ValueWriter& card(std::string_view key, engine::Card card) { return set(key, engine::to_string(card)); }
  ValueWriter& cards(std::string_view key, engine::CardSet cards) { return set(key, card_list(cards)); }
  ValueWriter& card_lists(std::string_view key, std::span<const engine::CardSet> lists) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (engine::CardSet cards : lists) out.push_back(card_list(cards));
    return set(key, std::move(out));
  }
  ValueWriter& integers(std::string_view key, std::span<const int> values) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (int v : values) out.push_back(v);
    return set(key, std::move(out));
  }
  ValueWriter& seats(std::string_view key, std::uint8_t mask) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (engine::Seat s = 0; s < engine::kMaxSeats; ++s) {
      if ((mask >> s) & 1U) out.push_back(s);
    }
    return set(key, std::move(out));
  }
  template <class Fill>
  ValueWriter& object(std::string_view key, Fill&& fill) {
    nlohmann::ordered_json nested;
    ValueWriter writer(nested);
    fill(writer);
    return set(key, std::move(nested));
  }
  ValueWriter& value(std::string_view key, const nlohmann::ordered_json& value) { return set(key, value); }

 private:
  template <class T>
  ValueWriter& set(std::string_view key, T&& value) {
    out_[std::string(key)] = std::forward<T>(value);
    return *this;
  }
  static nlohmann::ordered_json card_list(engine::CardSet cards) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (engine::Card c : cards) out.push_back(engine::to_string(c));
    return out;
  }

  nlohmann::ordered_json& out_;
};

}  // namespace gofish::protocol::detail
