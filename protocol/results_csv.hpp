// The results of a class event as CSV (protocol/README.md, "Class results
// as CSV"): one row per seat per table per round, RFC 4180 quoting, CRLF
// line ends, and names that a spreadsheet would read as a formula (starting
// with = + - or @) prefixed with an apostrophe.
#pragma once

#include <string>
#include <string_view>

#include "protocol/messages.hpp"

namespace gofish::protocol {

std::string results_csv(const EventResults& results);

// One field as RFC 4180 wants it, formula-guarded when `text` is free text.
std::string csv_field(std::string_view text, bool free_text);

}  // namespace gofish::protocol
