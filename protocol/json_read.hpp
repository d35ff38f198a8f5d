// Guarded reads from a parsed JSON object, for the protocol's own parsers
// (not part of the public interface: rooms never see JSON).
//
// Every accessor checks presence, type and range before it reads, so no
// nlohmann accessor that can throw is reached with a value it would throw
// on. The first failure is kept, with the field at fault; later reads on a
// failed Reader return empty values, so a parser reads every field it needs
// and checks once at the end.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engine/rules.hpp"
#include "protocol/errors.hpp"

namespace gofish::protocol::detail {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

class Reader {
 public:
  // `object` must outlive the reader. A non-object fails at once.
  explicit Reader(const Json& object);

  // The member, or nullptr when it is absent or null.
  const Json* get(std::string_view key) const;
  bool has(std::string_view key) const { return get(key) != nullptr; }

  // Absent (or null) gives nullopt without failing; present with the wrong
  // type or out of range fails.
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max);
  std::optional<double> number(std::string_view key, double min, double max);
  std::optional<bool> boolean(std::string_view key);
  // A string of at most max_bytes bytes.
  std::optional<std::string> string(std::string_view key, std::size_t max_bytes);
  const Json* object(std::string_view key);
  const Json* array(std::string_view key, std::size_t max_items);

  // The same, failing when absent.
  std::int64_t required_integer(std::string_view key, std::int64_t min, std::int64_t max);
  bool required_boolean(std::string_view key);
  std::string required_string(std::string_view key, std::size_t max_bytes);
  const Json& required_object(std::string_view key);
  const Json& required_array(std::string_view key, std::size_t max_items);

  // Fails with the given code; only the first failure is kept.
  void fail(ErrorCode code, std::string_view field, std::string message);
  void fail(std::string_view field, std::string message) { fail(ErrorCode::kBadMessage, field, std::move(message)); }
  void fail(const Error& error);
  bool failed() const { return error_.has_value(); }
  const Error& error() const { return *error_; }

 private:
  bool missing(std::string_view key);
  const Json& object_;
  std::optional<Error> error_;
};

// The "rules" member (create_room's and create_event's): an object of a
// "preset" and any fields changed from it, read by rules_from_json; the
// classic preset when it is absent. A failure is kept in `r`.
engine::Rules read_rules(Reader& r);

// An integer member read from an array element, or nullopt.
std::optional<std::int64_t> as_integer(const Json& value, std::int64_t min, std::int64_t max);
std::optional<std::string> as_string(const Json& value, std::size_t max_bytes);

// A short printable-ASCII rendering of untrusted text for use inside an
// error sentence: at most `max` characters, anything else replaced by '?'.
std::string quote_untrusted(std::string_view text, std::size_t max = 32);

// A request id: an integer within +-kMaxSafeInteger, or 1..max_bytes bytes of
// printable ASCII.
bool valid_string_id(std::string_view text, std::size_t max_bytes);

// Largest nesting of arrays and objects in `text`, stopping early once it
// passes `limit`. Brackets inside strings do not count. Malformed text gets
// some answer; the JSON parser rejects it afterwards anyway.
int nesting_depth(std::string_view text, int limit);

}  // namespace gofish::protocol::detail
