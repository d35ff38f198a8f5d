// One owner per room, by lease: two real gofish-server processes (nodes A
// and B) on one PostgreSQL database (a schema of the throwaway cluster,
// postgres_cluster.hpp), on 127.0.0.1 only.
// - A room made on A and asked for on B is handed over: A commits, releases
//   the lease and closes its players with `moved` (4001); they resume on B.
// - A killed (SIGKILL): once its lease has run out, B restores the room
//   mid-game from the journal and nothing seen before the kill is lost.
//   When B and C both wait for A's room, the one that does not get the
//   lease asks the one that did.
// - A paused (SIGSTOP) past its TTL while B takes the room, then resumed
//   (SIGCONT): nothing A writes lands, and its players get `moved`.
// - A stopped (SIGTERM) releases its leases: B takes the room at once.
// - An idle node's lease keeper wakes only to renew, and takes a handover
//   request up as it comes.
// - /readyz answers 503 while lease renewal cannot reach the database.
// - A listed room made on A shows in B's lobby until it fills.
// - A lobby request waiting for a slow store read holds up no other request.
// - B waiting for the rooms of a paused A keeps answering other requests,
//   then answers those joins room/busy, which are no failed joins; it keeps
//   32 messages behind a waiting join and drops more (protocol/rate_limited).
// Every case's name mentions PostgreSQL (ctest label cluster).
#include <doctest/doctest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/transcript.hpp"
#include "postgres_cluster.hpp"
#include "rooms_support.hpp"
#include "server_process.hpp"
#include "temp_dir.hpp"
#include "test_client.hpp"

namespace gofish::server::testing {
namespace {

using namespace std::chrono_literals;

// The application_name a node's connections carry, so a test can tell them apart.
std::string application(const PostgresDatabase& db, const std::string& node) { return "gofish_" + node + "_" + db.schema(); }

// A node of the cluster: its own data dir (unused by PostgreSQL), log and id.
struct Node {
  Node(const TempDir& dir, const PostgresDatabase& db, const std::string& name, int ttl_ms,
       const std::vector<std::string>& more = {})
      : process(dir.path / ("data-" + name), dir.path / (name + ".log"), flags(db, name, ttl_ms, more)) {}
  static std::vector<std::string> flags(const PostgresDatabase& db, const std::string& name, int ttl_ms,
                                        std::vector<std::string> more) {
    more.insert(more.begin(), {"--storage=postgres", "--postgres-url=" + db.url(application(db, name)),
                               "--node-id=" + name + "-" + db.schema(), "--lease-ttl-ms=" + std::to_string(ttl_ms)});
    return more;
  }
  ServerProcess process;
  std::uint16_t port() const { return process.port(); }
};

bool is_moved(const protocol::ServerMessage& message) {
  const auto* closing = std::get_if<protocol::Closing>(&message);
  return closing != nullptr && closing->reason == protocol::CloseReason::kMoved;
}

// The player was told `moved` and its connection closed with 4001.
void check_moved(Peer& peer) {
  CHECK(peer.await(is_moved, 10s));
  for (int i = 0; i < 100 && !peer.socket().ended(); ++i) std::this_thread::sleep_for(20ms);
  CHECK(peer.socket().ended());
  CHECK(peer.socket().close_code() == 4001);
  CHECK(peer.socket().close_reason() == "moved");
}

// A new connection to `port` that resumes `token` after `last_v`.
std::unique_ptr<Peer> resume_on(std::uint16_t port, const std::string& token, std::int64_t last_v) {
  auto peer = std::make_unique<Peer>(port);
  const auto joined = peer->expect<protocol::Joined>(protocol::Resume{token, last_v});
  CHECK(joined.resumed);
  return peer;
}

// The first version the resumed connection is brought up to: the next
// event's, or a snapshot's (which must not be older than what was seen).
void check_nothing_seen_is_lost(Peer& peer, std::int64_t last_v) {
  const auto first = peer.await(
      [](const protocol::ServerMessage& m) {
        return std::holds_alternative<protocol::EventMessage>(m) || std::holds_alternative<protocol::RoomSnapshot>(m);
      },
      5s);
  REQUIRE(first);
  if (const auto* event = std::get_if<protocol::EventMessage>(&*first)) {
    CHECK(event->v == last_v + 1);
  } else {
    CHECK(std::get<protocol::RoomSnapshot>(*first).v >= last_v);
  }
}

// Ann (seat 0) and an easy bot, in a game on `port`, Ann to act after at
// least `decisions` of hers.
std::unique_ptr<AutoPlayer> game_under_way(std::uint16_t port, std::string& code, int decisions) {
  Seated host = create_room(port, create_request("Ann", "classic", 2, {{1, protocol::BotLevel::kEasy}}));
  code = host.code;
  host.peer->expect<protocol::Ok>(protocol::Start{});
  auto ann = autoplay(std::move(host), 11);
  REQUIRE(drive({ann.get()}, [&] { return ann->decisions() >= decisions || ann->games_over() > 0; }, 20s));
  REQUIRE(ann->games_over() == 0);
  ann->active = false;
  drive({ann.get()}, [] { return false; }, 300ms);  // the bot plays on to Ann's turn
  ann->peer().pump();
  return ann;
}

// Plays Ann on a new connection to `port` to the end of the game.
void play_to_the_end(AutoPlayer& ann, std::uint16_t port) {
  ann.problems.clear();  // `closing` from the old node
  ann.replace_peer(std::make_unique<Peer>(port));
  ann.active = true;
  REQUIRE(drive({&ann}, [&] { return ann.games_over() >= 1; }, 30s));
  CHECK(ann.problems.empty());
  const auto message = ann.peer().expect<protocol::TranscriptMessage>(protocol::GetTranscript{});
  CHECK(engine::replay_check(message.transcript) == std::nullopt);
}

std::string sql(const PostgresDatabase& db, const std::string& statement) { return db.sql(statement); }

TEST_CASE("lease with PostgreSQL: a room made on node A and joined through node B is handed over, and A's player "
          "moves to B and plays on") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  // A long TTL: B gets the room by handover, not by waiting for expiry.
  Node a(dir, db, "a", 30'000), b(dir, db, "b", 30'000);
  Seated ann = create_room(a.port(), create_request("Ann", "classic", 3, {{1, protocol::BotLevel::kEasy}}));
  CHECK(sql(db, "SELECT node FROM room_lease WHERE code = '" + ann.code + "'") == "a-" + db.schema());

  const auto asked = std::chrono::steady_clock::now();
  INFO("node A's log:\n" << a.process.log_text() << "node B's log:\n" << b.process.log_text());
  Seated bob = join_room(b.port(), ann.code, "Bob");
  CHECK(std::chrono::steady_clock::now() - asked < 10s);
  CHECK(bob.seat == 2);
  CHECK(sql(db, "SELECT node || ' ' || epoch FROM room_lease WHERE code = '" + ann.code + "'") ==
        "b-" + db.schema() + " 2");
  check_moved(*ann.peer);
  CHECK(a.process.log_text().find("room " + ann.code + ": another server asked for it; handed over") != std::string::npos);

  // Ann resumes on B with her token and the last version she saw, as a
  // client does after `moved`, and the table plays a game there.
  auto ann_on_b = resume_on(b.port(), ann.token, ann.peer->last_v());
  check_nothing_seen_is_lost(*ann_on_b, ann.peer->last_v());
  ann_on_b->expect<protocol::Ok>(protocol::Start{});
  auto ann_player = autoplay(Seated{std::move(ann_on_b), ann.code, 0, ann.token}, 3);
  auto bob_player = autoplay(std::move(bob), 4);
  REQUIRE(drive({ann_player.get(), bob_player.get()},
                [&] { return ann_player->games_over() >= 1 && bob_player->games_over() >= 1; }, 30s));
  CHECK(ann_player->problems.empty());
  CHECK(bob_player->problems.empty());
  CHECK(a.process.stop(SIGTERM) == 0);
  CHECK(b.process.stop(SIGTERM) == 0);
}

// The lobby of the node at `port`, asked on a fresh connection.
std::vector<protocol::LobbyRoom> lobby_of(std::uint16_t port) {
  Peer peer(port);
  return peer.expect<protocol::LobbyList>(protocol::Lobby{}).rooms;
}

std::optional<protocol::LobbyRoom> listed_in(std::uint16_t port, const std::string& code) {
  for (auto& room : lobby_of(port)) {
    if (room.code == code) return room;
  }
  return std::nullopt;
}

// Polls `done` every 100 ms for up to `timeout`.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

TEST_CASE("lease with PostgreSQL: a listed room made on node A shows in node B's lobby, and leaves both once it fills "
          "and starts") {
  TempDir dir("gofish-lobby");
  PostgresDatabase db;
  Node a(dir, db, "a", 30'000), b(dir, db, "b", 30'000);
  INFO("node A's log:\n" << a.process.log_text() << "node B's log:\n" << b.process.log_text());
  auto request = create_request("Ann", "classic", 3);
  request.settings.listed = true;
  Seated ann = create_room(a.port(), request);
  Seated uma = create_room(a.port(), create_request("Uma", "classic", 2));  // not listed
  const auto on_a = listed_in(a.port(), ann.code);
  REQUIRE(on_a);
  // B lists it as A does, within a second of its records being committed
  // (B reads the store at most once a second).
  REQUIRE(eventually([&] { return listed_in(b.port(), ann.code).has_value(); }, 5s));
  CHECK(listed_in(b.port(), ann.code) == on_a);
  CHECK(on_a->host == "Ann");
  CHECK(on_a->taken == 1);
  CHECK_FALSE(listed_in(b.port(), uma.code));
  CHECK_FALSE(listed_in(a.port(), uma.code));
  // Listing it did not move it: A still holds its lease.
  CHECK(sql(db, "SELECT node FROM room_lease WHERE code = '" + ann.code + "'") == "a-" + db.schema());

  // Bob joins on A, Ann adds a bot (the table is full) and starts: the room
  // leaves both lobbies.
  Seated bob = join_room(a.port(), ann.code, "Bob");
  ann.peer->expect<protocol::Ok>(protocol::AddBot{std::nullopt, protocol::BotLevel::kEasy});
  ann.peer->expect<protocol::Ok>(protocol::Start{});
  CHECK_FALSE(listed_in(a.port(), ann.code));
  CHECK(eventually([&] { return !listed_in(b.port(), ann.code).has_value(); }, 5s));
  CHECK(a.process.stop(SIGTERM) == 0);
  CHECK(b.process.stop(SIGTERM) == 0);
}

// While the store is slow to say which rooms other nodes hold (a session
// holds a lock on the rooms table), a lobby request waits for it off the
// I/O thread: the node's only I/O thread answers a ping at once, and the
// lobby answers, with the other node's room, once the lock is gone.
TEST_CASE("lease with PostgreSQL: a lobby request waiting for a slow store read holds up no other request") {
  TempDir dir("gofish-lobby");
  PostgresDatabase db;
  Node a(dir, db, "a", 30'000), b(dir, db, "b", 30'000, {"--threads=1"});
  INFO("node B's log:\n" << b.process.log_text());
  auto request = create_request("Ann", "classic", 3);
  request.settings.listed = true;
  Seated ann = create_room(a.port(), request);
  // B's lobby is read once now, so the read below is one it makes again.
  lobby_of(b.port());
  std::this_thread::sleep_for(1100ms);  // B reads the store at most once a second

  // Both connections are made before the lock (a handshake has no timeout).
  Peer asker(b.port());
  Peer other(b.port());
  // Closed (its lock released) before the nodes stop, even when a check throws.
  std::unique_ptr<PGconn, decltype(&PQfinish)> locker(
      PQconnectdb(db.url("gofish_locker_" + db.schema()).c_str()), &PQfinish);
  REQUIRE(PQstatus(locker.get()) == CONNECTION_OK);
  const auto run = [&locker](const char* statement) {
    PGresult* result = PQexec(locker.get(), statement);
    const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
    PQclear(result);
    return ok;
  };
  REQUIRE(run("BEGIN"));
  REQUIRE(run("LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE"));
  const auto lobby_id = asker.send(protocol::Lobby{});
  std::this_thread::sleep_for(300ms);
  const auto asked = std::chrono::steady_clock::now();
  const auto pong = other.reply(other.send(protocol::Ping{}), 2s);
  CHECK(std::holds_alternative<protocol::Pong>(pong));
  CHECK(std::chrono::steady_clock::now() - asked < 500ms);
  std::this_thread::sleep_for(300ms);
  REQUIRE(run("COMMIT"));
  locker.reset();

  const auto reply = asker.reply(lobby_id, 10s);
  const auto* list = std::get_if<protocol::LobbyList>(&reply);
  REQUIRE(list != nullptr);
  bool listed = false;
  for (const auto& room : list->rooms) listed = listed || room.code == ann.code;
  CHECK(listed);
  CHECK(a.process.stop(SIGTERM) == 0);
  CHECK(b.process.stop(SIGTERM) == 0);
}

// A game under way on a node A, killed (SIGKILL) once Ann has made a few
// decisions: the room's code, Ann, and the last room version she saw.
struct KilledMidGame {
  std::string code;
  std::unique_ptr<AutoPlayer> ann;
  std::int64_t last_v = 0;
};
KilledMidGame killed_mid_game(const TempDir& dir, const PostgresDatabase& db, int ttl_ms) {
  KilledMidGame killed;
  Node a(dir, db, "a", ttl_ms);
  killed.ann = game_under_way(a.port(), killed.code, 3);
  killed.last_v = killed.ann->peer().last_v();
  REQUIRE(WIFSIGNALED(a.process.stop(SIGKILL)));
  return killed;
}

TEST_CASE("lease with PostgreSQL: node A killed mid-game, a resume on node B restores the room once A's lease has "
          "run out, with nothing seen lost") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  constexpr int kTtl = 2'000;
  Node b(dir, db, "b", kTtl);
  auto [code, ann, last_v] = killed_mid_game(dir, db, kTtl);
  const auto asked = std::chrono::steady_clock::now();
  auto peer = resume_on(b.port(), ann->token(), last_v);
  const auto waited = std::chrono::steady_clock::now() - asked;
  CHECK(waited < std::chrono::milliseconds(kTtl) + 3s);
  check_nothing_seen_is_lost(*peer, last_v);
  CHECK(sql(db, "SELECT node FROM room_lease WHERE code = '" + code + "'") == "b-" + db.schema());
  peer.reset();
  play_to_the_end(*ann, b.port());
  CHECK(b.process.stop(SIGTERM) == 0);
}

TEST_CASE("lease with PostgreSQL: node A killed, and B and C both waiting for its room: the one that does not get "
          "the lease asks the one that did, and both are answered with the room") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  constexpr int kTtl = 2'000;
  Node b(dir, db, "b", kTtl);
  Node c(dir, db, "c", kTtl);
  auto [code, ann, last_v] = killed_mid_game(dir, db, kTtl);
  // Both lookups begin while A's lease still runs, so both ask A, which is
  // dead. When the lease runs out (at most kTtl from now) one of B and C
  // takes it; the other must then ask that one, not wait for a lease that
  // is live again and answer room/busy when its wait is over (the lease TTL
  // and a second after its first ask).
  Peer on_b(b.port());
  Peer on_c(c.port());
  const auto sent = std::chrono::steady_clock::now();
  const protocol::ClientBody resume = protocol::Resume{ann->token(), last_v};
  const protocol::ClientBody watch = protocol::Join{code, "Zed", protocol::JoinAs::kSpectator};
  auto resume_id = on_b.send(resume);
  auto watch_id = on_c.send(watch);
  // The answer, or `moved`: the node that took the lease hands the room
  // over when asked, so a request of its own may find the room leaving
  // (room/busy, asked again as a client would) or be closed with `moved`.
  const auto answer = [&](Peer& peer, const protocol::ClientBody& body, std::int64_t id) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      const protocol::RequestId wanted = id;
      const auto message = peer.await(
          [&](const protocol::ServerMessage& m) { return id_of(m) == wanted || is_moved(m); },
          std::chrono::milliseconds(kTtl) + 5s);
      REQUIRE(message);
      const auto* error = std::get_if<protocol::Error>(&*message);
      if (error == nullptr || error->code != protocol::ErrorCode::kRoomBusy) {
        CHECK_MESSAGE((std::holds_alternative<protocol::Joined>(*message) || is_moved(*message)),
                      Peer::describe(*message));
        return std::holds_alternative<protocol::Joined>(*message);
      }
      CHECK_MESSAGE(std::chrono::steady_clock::now() - sent < std::chrono::milliseconds(kTtl) + 1s,
                    "room/busy after waiting out a live lease");
      std::this_thread::sleep_for(50ms);
      id = peer.send(body);
    }
    FAIL("room/busy 20 times");
    return false;
  };
  const bool b_joined = answer(on_b, resume, resume_id);
  const bool c_joined = answer(on_c, watch, watch_id);
  CHECK((b_joined || c_joined));
  const auto holder = sql(db, "SELECT node FROM room_lease WHERE code = '" + code + "'");
  CHECK((holder == "b-" + db.schema() || holder == "c-" + db.schema()));
  CHECK(b.process.stop(SIGTERM) == 0);
  CHECK(c.process.stop(SIGTERM) == 0);
}

TEST_CASE("lease with PostgreSQL: node A paused past its lease while B takes the room, then resumed, is fenced out "
          "and its players move") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  constexpr int kTtl = 1'500;
  Node a(dir, db, "a", kTtl), b(dir, db, "b", kTtl);
  std::string code;
  auto ann = game_under_way(a.port(), code, 3);
  const std::int64_t last_v = ann->peer().last_v();

  REQUIRE(::kill(a.process.pid(), SIGSTOP) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(kTtl) + 500ms);
  // B takes the expired lease (one epoch up) and restores the room.
  auto on_b = resume_on(b.port(), ann->token(), last_v);
  check_nothing_seen_is_lost(*on_b, last_v);
  CHECK(sql(db, "SELECT node || ' ' || epoch FROM room_lease WHERE code = '" + code + "'") ==
        "b-" + db.schema() + " 2");
  const auto journal = [&] {
    return sql(db, "SELECT r.v || ' ' || (SELECT count(*) FROM decisions d JOIN games g USING (game_id) "
                   "WHERE g.room = r.code) || ' ' || r.settings FROM rooms r WHERE r.code = '" +
                       code + "'");
  };
  const std::string taken_over = journal();

  // A wakes unable to renew (the database refuses its renewals, so it
  // learns nothing from them) with a decision of its player queued. Its
  // leases could have run out while it was stopped, so it pauses the room
  // (issue 30) and refuses the decision (room/paused); or, if the decision
  // comes first, the fence keeps it out of the journal. Either way nothing
  // it did lands, and nothing reaches its player.
  sql(db, "CREATE FUNCTION refuse_renewal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
          "IF current_setting('application_name') = '" + application(db, "a") +
          "' THEN RAISE EXCEPTION 'renewal refused by the test'; END IF; RETURN NULL; END $$; "
          "CREATE TRIGGER refuse_renewal BEFORE UPDATE ON room_lease FOR EACH STATEMENT "
          "EXECUTE FUNCTION refuse_renewal()");
  ann->active = true;
  ann->tolerate_refusals = true;
  const int before = ann->decisions();
  ann->step();
  CHECK(ann->decisions() == before + 1);
  REQUIRE(::kill(a.process.pid(), SIGCONT) == 0);
  std::this_thread::sleep_for(1500ms);  // renewals refused
  CHECK(journal() == taken_over);  // nothing A wrote landed
  CHECK(a.process.log_text().find("leases: renewing failed") != std::string::npos);
  // Once a renewal works again it says the room is gone: its player moves.
  sql(db, "DROP TRIGGER refuse_renewal ON room_lease");
  check_moved(ann->peer());
  CHECK(journal() == taken_over);
  const std::string log = a.process.log_text();
  CHECK((log.find("room " + code + " was fenced out") != std::string::npos ||
         log.find("room " + code + ": this server no longer holds its lease") != std::string::npos));
  ann->tolerate_refusals = false;

  // The game goes on at B from where B took it.
  on_b.reset();
  play_to_the_end(*ann, b.port());
  CHECK(a.process.stop(SIGTERM) == 0);
  CHECK(b.process.stop(SIGTERM) == 0);
}

TEST_CASE("lease with PostgreSQL: node B waiting for the rooms of a paused node A keeps answering, then answers "
          "room/busy, which is no failed join") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  // A holds its rooms long; B gives up on a room after its own TTL and a
  // second. B has two I/O threads: more joins wait than it has threads. Its
  // message burst lets one joiner send more than B keeps while it waits.
  Node a(dir, db, "a", 30'000), b(dir, db, "b", 1'000, {"--threads=2", "--message-burst=100"});
  // More rooms than the failed joins an address may make at once (10).
  constexpr int kRooms = 12;
  std::vector<Seated> hosts;
  for (int i = 0; i < kRooms; ++i) {
    hosts.push_back(create_room(a.port(), create_request("Ann", "classic", 3, {{1, protocol::BotLevel::kEasy}})));
  }
  REQUIRE(::kill(a.process.pid(), SIGSTOP) == 0);
  INFO("node B's log:\n" << b.process.log_text());

  std::vector<std::unique_ptr<Peer>> joiners;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < kRooms; ++i) joiners.push_back(std::make_unique<Peer>(b.port()));
  Peer other(b.port());
  for (int i = 0; i < kRooms; ++i) {
    ids.push_back(joiners[i]->send(protocol::Join{hosts[i].code, "Bob", protocol::JoinAs::kPlayer}));
  }
  // The first joiner goes on sending: B keeps 32 messages behind its join, in
  // order, and drops the rest, each with protocol/rate_limited.
  std::vector<std::int64_t> pings;
  for (int i = 0; i < 40; ++i) pings.push_back(joiners[0]->send(protocol::Ping{}));
  // While every join waits, B answers other requests at once.
  std::this_thread::sleep_for(200ms);
  const auto asked = std::chrono::steady_clock::now();
  other.expect<protocol::Pong>(protocol::Ping{});
  CHECK(std::chrono::steady_clock::now() - asked < 500ms);

  for (std::size_t i = 0; i < joiners.size(); ++i) {
    const auto reply = joiners[i]->reply(ids[i], 10s);
    const auto* error = std::get_if<protocol::Error>(&reply);
    REQUIRE(error != nullptr);
    CHECK(protocol::error_code_name(error->code) == "room/busy");
  }
  for (std::size_t i = 0; i < 32; ++i) {
    CHECK(std::holds_alternative<protocol::Pong>(joiners[0]->reply(pings[i])));
  }
  joiners[0]->pump();
  int dropped = 0;
  int pongs = 0;
  for (const auto& frame : joiners[0]->frames()) {
    if (const auto* error = std::get_if<protocol::Error>(&frame.message)) {
      dropped += protocol::error_code_name(error->code) == "protocol/rate_limited" ? 1 : 0;
    }
    pongs += std::holds_alternative<protocol::Pong>(frame.message) ? 1 : 0;
  }
  CHECK(dropped == 8);
  CHECK(pongs == 32);
  // Twelve busy rooms later, a wrong code is a failed join, not refused.
  CHECK(other.error_of(protocol::Join{"ZZZZZ", "Bob", protocol::JoinAs::kPlayer}) == "room/not_found");
  // Each try asks A again: three requests for the first room wait for A.
  for (int i = 0; i < 2; ++i) {
    CHECK(other.error_of(protocol::Join{hosts[0].code, "Cy", protocol::JoinAs::kPlayer}) == "room/busy");
  }

  // Running again, A hands each room over once, however often it was asked.
  REQUIRE(::kill(a.process.pid(), SIGCONT) == 0);
  const std::string handed = "room " + hosts[0].code + ": another server asked for it; handed over";
  const auto count = [&](const std::string& text) {
    const std::string log = a.process.log_text();
    std::size_t n = 0;
    for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
    return n;
  };
  CHECK(eventually([&] { return count(handed) > 0; }, 10s));
  std::this_thread::sleep_for(300ms);  // the later requests, had they been handled as new
  CHECK(count(handed) == 1);
  CHECK(a.process.stop(SIGTERM) == 0);
  CHECK(b.process.stop(SIGTERM) == 0);
}

TEST_CASE("lease with PostgreSQL: node A stopped with SIGTERM releases its leases, and B takes the room at once") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  constexpr int kTtl = 60'000;  // far longer than the test waits
  Node b(dir, db, "b", kTtl);
  std::string code;
  std::unique_ptr<AutoPlayer> ann;
  std::int64_t last_v = 0;
  {
    Node a(dir, db, "a", kTtl);
    ann = game_under_way(a.port(), code, 2);
    last_v = ann->peer().last_v();
    CHECK(a.process.stop(SIGTERM) == 0);
    CHECK(a.process.log_text().find("every lease of node a-" + db.schema() + " released") != std::string::npos);
  }
  CHECK(sql(db, "SELECT count(*) FROM room_lease WHERE expires_at > now()") == "0");
  const auto asked = std::chrono::steady_clock::now();
  auto peer = resume_on(b.port(), ann->token(), last_v);
  CHECK(std::chrono::steady_clock::now() - asked < 3s);
  check_nothing_seen_is_lost(*peer, last_v);
  peer.reset();
  play_to_the_end(*ann, b.port());
  CHECK(b.process.stop(SIGTERM) == 0);
}

// The voluntary context switches of the node's lease-keeper thread so far:
// how often it has gone to sleep and been woken.
long keeper_wakeups(const ServerProcess& process) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(process.pid()) + "/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name != "lease-keeper") continue;
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) return std::stol(line.substr(line.find(':') + 1));
    }
  }
  FAIL("no lease-keeper thread in process " << process.pid());
  return 0;
}

TEST_CASE("lease with PostgreSQL: an idle node's lease keeper sleeps until a renewal or a handover request, and "
          "takes a request up at once") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  // A renewal every second (a third of the TTL, at most a second).
  Node a(dir, db, "a", 3'000);
  Seated ann = create_room(a.port(), create_request("Ann", "classic", 3, {{1, protocol::BotLevel::kEasy}}));
  std::this_thread::sleep_for(500ms);
  // Two idle seconds: two renewals, each a round trip or two, and nothing
  // else (looking for requests every 20 ms made over a hundred wakes).
  const long before = keeper_wakeups(a.process);
  std::this_thread::sleep_for(2s);
  const long woken = keeper_wakeups(a.process) - before;
  CHECK(woken <= 12);

  // A request reaches a sleeping keeper: asked over SQL, as another node
  // asks, A lets the room go well before its next renewal could have
  // looked.
  const std::string channel = "gofish_handover_a-" + db.schema();
  std::this_thread::sleep_for(100ms);  // just after a renewal, at the earliest
  const auto asked = std::chrono::steady_clock::now();
  sql(db, "SELECT pg_notify('" + channel + "', '" + ann.code + "')");
  CHECK(ann.peer->await(is_moved, 10s));
  CHECK(std::chrono::steady_clock::now() - asked < 500ms);
  CHECK(a.process.stop(SIGTERM) == 0);
}

TEST_CASE("lease with PostgreSQL: /readyz answers 503 while lease renewal cannot reach the database, 200 otherwise") {
  TempDir dir("gofish-lease");
  PostgresDatabase db;
  constexpr int kTtl = 1'000;
  Node a(dir, db, "a", kTtl);
  CHECK(http_request(a.port(), "/readyz").status == 200);
  CHECK(http_request(a.port(), "/healthz").status == 200);
  // The database stops answering the renewal: a transaction holds the lease
  // table locked, as a database that hangs would.
  PGconn* blocker = PQconnectdb(db.url().c_str());
  REQUIRE(PQstatus(blocker) == CONNECTION_OK);
  PQclear(PQexec(blocker, "BEGIN"));
  PGresult* locked = PQexec(blocker, "LOCK TABLE room_lease IN ACCESS EXCLUSIVE MODE");
  REQUIRE(PQresultStatus(locked) == PGRES_COMMAND_OK);
  PQclear(locked);
  bool unready = false;
  for (int i = 0; i < 50 && !unready; ++i) {
    std::this_thread::sleep_for(100ms);
    const auto reply = http_request(a.port(), "/readyz");
    unready = reply.status == 503 && reply.body.find("lease renewal") != std::string::npos;
  }
  CHECK(unready);
  CHECK(http_request(a.port(), "/healthz").status == 200);  // alive all the same
  PQclear(PQexec(blocker, "COMMIT"));
  PQfinish(blocker);
  bool ready = false;
  for (int i = 0; i < 50 && !ready; ++i) {
    std::this_thread::sleep_for(100ms);
    ready = http_request(a.port(), "/readyz").status == 200;
  }
  CHECK(ready);
  CHECK(a.process.stop(SIGTERM) == 0);
}

}  // namespace
}  // namespace gofish::server::testing
