// AddressLimits without sockets: pools with per-address caps and a share for
// newcomers, rooms per address, failed joins, and forgetting idle addresses.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/rooms/address_limits.hpp"

namespace gofish::server {
namespace {

using namespace std::chrono_literals;
using Admission = AddressLimits::Admission;
using Pool = AddressLimits::Pool;
using RoomAdmission = AddressLimits::RoomAdmission;

TEST_CASE("address keys: the IP address, IPv4 mapped into IPv6 as IPv4, IPv6 by its /64") {
  CHECK(AddressLimits::key_of("192.0.2.7") == "192.0.2.7");
  CHECK(AddressLimits::key_of("::ffff:192.0.2.7") == "192.0.2.7");
  CHECK(AddressLimits::key_of("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64");
  CHECK(AddressLimits::key_of("2001:db8:1:2::1") == AddressLimits::key_of("2001:db8:1:2:ffff::9"));
  CHECK(AddressLimits::key_of("2001:db8:1:3::1") != AddressLimits::key_of("2001:db8:1:2::1"));
  CHECK(AddressLimits::key_of("not an address") == "not an address");
}

TEST_CASE("address pools: a cap per address, a cap on all, and the last places for newcomers") {
  Limits limits;
  limits.max_connections = 10;
  limits.max_connections_per_address = 4;
  limits.newcomer_share_percent = 20;  // the last 2 of 10
  AddressLimits addresses(limits);
  std::vector<AddressLimits::Slot> slots;
  const auto take = [&](const std::string& key) {
    AddressLimits::Slot slot;
    const auto admission = addresses.take(Pool::kConnections, key, slot);
    CHECK((admission == Admission::kAdmitted) == static_cast<bool>(slot));
    if (slot) slots.push_back(std::move(slot));
    return admission;
  };
  for (int i = 0; i < 4; ++i) CHECK(take("a") == Admission::kAdmitted);
  CHECK(take("a") == Admission::kAddressFull);
  for (int i = 0; i < 4; ++i) CHECK(take("b") == Admission::kAdmitted);
  CHECK(addresses.taken(Pool::kConnections) == 8);
  // Only the newcomers' share is left: "c" holds nothing, so it may; then
  // "c" holds one and may not take another.
  CHECK(take("c") == Admission::kAdmitted);
  CHECK(take("c") == Admission::kFull);
  CHECK(take("d") == Admission::kAdmitted);
  CHECK(take("e") == Admission::kFull);  // all 10 taken
  CHECK(addresses.held(Pool::kConnections, "a") == 4);
  // The other pool is separate.
  AddressLimits::Slot socket;
  CHECK(addresses.take(Pool::kSockets, "a", socket) == Admission::kAdmitted);
  CHECK(addresses.held(Pool::kSockets, "a") == 1);

  slots.erase(slots.begin());  // one of "a"'s, given back
  CHECK(addresses.held(Pool::kConnections, "a") == 3);
  CHECK(take("e") == Admission::kAdmitted);
  slots.clear();
  socket.release();
  CHECK(addresses.taken(Pool::kConnections) == 0);
  CHECK(addresses.addresses() == 0);
}

TEST_CASE("address pools: a slot moved keeps its place and gives it back once") {
  Limits limits;
  limits.max_connections_per_address = 1;
  AddressLimits addresses(limits, 5);
  AddressLimits::Slot first;
  REQUIRE(addresses.take(Pool::kSockets, "a", first) == Admission::kAdmitted);
  AddressLimits::Slot moved = std::move(first);
  CHECK_FALSE(first);
  CHECK(moved);
  CHECK(addresses.taken(Pool::kSockets) == 1);
  AddressLimits::Slot other;
  REQUIRE(addresses.take(Pool::kSockets, "b", other) == Admission::kAdmitted);
  moved = std::move(other);  // gives back "a"'s place
  CHECK(addresses.held(Pool::kSockets, "a") == 0);
  CHECK(addresses.held(Pool::kSockets, "b") == 1);
  moved.release();
  moved.release();
  CHECK(addresses.taken(Pool::kSockets) == 0);
}

TEST_CASE("rooms per address: a burst, then the rate, and a cap on those still open") {
  Limits limits;
  limits.room_create_burst = 3;
  limits.room_create_rate_per_second = 1.0;
  limits.max_rooms_per_address = 4;
  AddressLimits addresses(limits);
  const auto t0 = AddressLimits::Clock::now();
  for (int i = 0; i < 3; ++i) CHECK(addresses.admit_room("a", t0) == RoomAdmission::kAdmitted);
  CHECK(addresses.admit_room("a", t0) == RoomAdmission::kRate);
  CHECK(addresses.admit_room("b", t0) == RoomAdmission::kAdmitted);
  CHECK(addresses.admit_room("a", t0 + 1s) == RoomAdmission::kAdmitted);
  CHECK(addresses.rooms("a") == 4);
  CHECK(addresses.admit_room("a", t0 + 10s) == RoomAdmission::kAddressFull);
  addresses.room_closed("a");
  CHECK(addresses.admit_room("a", t0 + 10s) == RoomAdmission::kAdmitted);
  for (int i = 0; i < 4; ++i) addresses.room_closed("a");
  addresses.room_closed("a");  // one too many: ignored
  CHECK(addresses.rooms("a") == 0);
}

TEST_CASE("failed joins: a burst, then the address is refused until a token is back") {
  Limits limits;
  limits.failed_join_burst = 3;
  limits.failed_join_rate_per_second = 0.1;
  AddressLimits addresses(limits);
  const auto t0 = AddressLimits::Clock::now();
  CHECK_FALSE(addresses.joins_refused("a", t0));
  for (int i = 0; i < 3; ++i) {
    CHECK_FALSE(addresses.joins_refused("a", t0));
    addresses.join_failed("a", t0);
  }
  CHECK(addresses.joins_refused("a", t0));
  CHECK(addresses.joins_refused("a", t0 + 9s));
  CHECK_FALSE(addresses.joins_refused("b", t0));
  CHECK_FALSE(addresses.joins_refused("a", t0 + 10s));
  addresses.join_failed("a", t0 + 10s);
  CHECK(addresses.joins_refused("a", t0 + 10s));
}

TEST_CASE("address entries are dropped once they hold nothing and their buckets are full") {
  Limits limits;
  limits.failed_join_burst = 2;
  limits.failed_join_rate_per_second = 1000.0;  // refills within a millisecond
  AddressLimits addresses(limits);
  addresses.join_failed("a", AddressLimits::Clock::now() - 1s);
  CHECK(addresses.addresses() == 1);
  // The sweep runs every so often as places are given back.
  for (int i = 0; i < 2000; ++i) {
    AddressLimits::Slot slot;
    REQUIRE(addresses.take(Pool::kSockets, "b" + std::to_string(i % 7), slot) == Admission::kAdmitted);
  }
  CHECK(addresses.addresses() == 0);
}

}  // namespace
}  // namespace gofish::server
