// PostgresBinaryArray: a parameter array in PostgreSQL's binary form, for
// the PostgreSQL store's merged statements (postgres_batching.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace gofish::server {

// A parameter array in PostgreSQL's binary form (what array_recv reads):
// one dimension, then each element as its length and bytes, big-endian.
// The server reads it with no parsing or unescaping, where a text array
// literal is read a character at a time (array_in), and decisions are
// JSON, full of quotes to escape.
class PostgresBinaryArray {
 public:
  static constexpr std::uint32_t kText = 25;  // the element types' OIDs (pg_type)
  static constexpr std::uint32_t kBigint = 20;

  PostgresBinaryArray(std::uint32_t element, std::size_t count, bool nulls) {
    put(1);  // dimensions
    put(nulls ? 1 : 0);
    put(element);
    put(static_cast<std::uint32_t>(count));
    put(1);  // the first index
  }
  void add_bytes(const std::string& bytes) {
    put(static_cast<std::uint32_t>(bytes.size()));
    out_ += bytes;
  }
  void add_bigint(std::int64_t value) {
    put(8);
    put(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value) >> 32));
    put(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value)));
  }
  void add_null() { put(0xffffffffu); }  // length -1
  std::string take() { return std::move(out_); }

 private:
  void put(std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  std::string out_;
};

}  // namespace gofish::server
