// A class event (protocol/README.md, "Class events"): a teacher's session
// with one join code, its pupils (a roster's names, or the names they type),
// and rounds, each played at tables that are ordinary rooms the event makes
// (Room::open_table) and watches (Room::watch).
//
// Like a room, an event owns a strand: every change happens there, and every
// entry point posts to it. Like a room, it sends nothing before the records
// behind it are committed (its own DurableOutbox, under its code): an `ok`,
// `event_joined` or `event_state` goes out only after. A pupil's seat token
// comes from the table's room (Room::hand_seat), after the event's records
// of the round are committed.
//
// Tokens: the teacher's and each pupil's are kept as keyed hashes only
// (TokenHasher), as seat tokens are. A pupil coming back (join_event with
// the token) is handed a fresh seat token for their table, so the newest
// device takes the seat.
//
// The teacher's `event_state` is pushed at most every kConsolePace, holding
// whatever changed meanwhile.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "protocol/event_json.hpp"
#include "protocol/messages.hpp"
#include "server/rooms/client.hpp"
#include "server/rooms/durable_outbox.hpp"
#include "server/rooms/event_results.hpp"
#include "server/rooms/guarded_timer.hpp"
#include "server/rooms/room.hpp"
#include "server/rooms/room_directory.hpp"
#include "server/store/store.hpp"
#include "server/store/token.hpp"

namespace gofish::server {

class Event : public std::enable_shared_from_this<Event> {
 public:
  using Id = std::optional<protocol::RequestId>;

  // A new event; `create` makes it the teacher's.
  Event(const RoomServices& services, RoomDirectory& directory, std::string code, protocol::CreateEvent request);
  // An event read back from the store; nullptr (and `problem` set) when it
  // cannot be.
  static std::shared_ptr<Event> restore(const RoomServices& services, RoomDirectory& directory,
                                        const StoredEvent& stored, std::string* problem);
  // After restore: watches the tables of the round in play (or the last
  // one) again, and tells a revealed same-deal round's tables so.
  void begin_after_restore();

  const std::string& code() const { return code_; }

  void create(std::shared_ptr<Client> client, Id id);
  void join(std::shared_ptr<Client> client, protocol::JoinEvent request, Id id);
  void resume_teacher(std::shared_ptr<Client> client, protocol::ResumeEvent request, Id id);
  // read_roster: the client need not be in the event.
  void read_roster(std::shared_ptr<Client> client, Id id);
  // seat_pupils, move_pupil, free_name, start_round, end_round,
  // pause_tables, resume_tables, message_tables.
  void command(std::shared_ptr<Client> client, protocol::ClientBody body, Id id);
  void disconnect(std::shared_ptr<Client> client);
  // Another server holds the event now (several servers on one store):
  // like a room's move_away, it writes nothing more, and its teacher's and
  // pupils' connections are told `moved` and closed, to come back through
  // the proxy to the new owner. `commit_first`: what it wrote is committed
  // first (a handover), then `after` runs; otherwise (its lease is lost)
  // what is held is dropped.
  void move_away(bool commit_first, std::function<void()> after);

  // Thread-safe, for GET /api/events/<code>/results.csv: the results as
  // last committed, if `token` is the teacher's (nullopt otherwise).
  std::shared_ptr<const protocol::EventResults> results_for_teacher(std::string_view token) const;

 private:
  struct Pupil {
    std::string name;
    std::optional<TokenHash> token;  // claimed when set
    std::vector<std::shared_ptr<Client>> clients;
  };
  struct Table {
    std::string room;
    std::vector<std::optional<int>> seats;  // the pupil in each seat; none: a bot
    // Seats a bot took over from a pupil during the round (remove_pupil,
    // seat_to_bot): no late pupil takes them. `unseated`: the pupil
    // seat_to_bot took the seat from, who waits for the next round.
    std::vector<bool> let_go;
    std::vector<std::optional<int>> unseated;
    // Every seat's hand, as the room's coach view last showed it; empty
    // without coaching.
    std::vector<engine::CardSet> hands;
    protocol::EventTable status;
    std::shared_ptr<Room> live;
    // The table's first finished game and its result, once recorded
    // (event_results_keeping.cpp).
    std::optional<std::string> game_id;
    protocol::TableResultRecord result;
  };

  template <class F>
  void on_strand(F&& work);
  void end_turn();
  void on_write(std::uint64_t number, WriteOutcome outcome);

  void do_create(const std::shared_ptr<Client>& client, Id id);
  void do_join(const std::shared_ptr<Client>& client, protocol::JoinEvent request, Id id);
  void do_resume_teacher(const std::shared_ptr<Client>& client, const protocol::ResumeEvent& request, Id id);
  void do_command(const std::shared_ptr<Client>& client, const protocol::ClientBody& body, Id id);
  void do_disconnect(const std::shared_ptr<Client>& client);
  void seat_pupils();
  void move_pupil(const std::shared_ptr<Client>& client, const protocol::MovePupil& move, Id id);
  void free_name(const std::shared_ptr<Client>& client, int pupil, Id id);
  void start_round(const std::shared_ptr<Client>& client, Id id);
  void end_round(const std::shared_ptr<Client>& client, Id id);
  void pause_tables(const std::shared_ptr<Client>& client, bool paused, Id id);
  void message_tables(const std::shared_ptr<Client>& client, const std::string& text, Id id);
  void set_chat(const std::shared_ptr<Client>& client, protocol::ChatMode chat, Id id);

  // Pupils and seats during a round (event_pupils.cpp).
  void remove_pupil(const std::shared_ptr<Client>& client, int pupil, Id id);
  void seat_to_bot(const std::shared_ptr<Client>& client, int pupil, Id id);
  void allow_late(const std::shared_ptr<Client>& client, bool allow, Id id);
  // A bot plays the pupil's seat in the round in play for the rest of it
  // (the table's room lets the seat go); `unseated`: they stay in the
  // event and wait for the next round.
  void let_seat_go(int pupil, bool unseated);
  // The teacher handed the pupil's seat in the round in play to a bot.
  bool unseated(int pupil) const;
  // A pupil with no seat while a round is in play, when late pupils are
  // allowed, takes over a seat a bot has held since the round began, at
  // the table with the most of them. Whether they got one.
  bool seat_late(int pupil);
  // Every pupil here without a seat who may take one late (seat_late) takes
  // it and is handed it: when the teacher allows late pupils, and when a
  // table first says its game is in play (a pupil who came before that
  // found none to take).
  void seat_waiting_pupils();
  void save_table(int table);

  // The coaching view (event_pupils.cpp): a teacher's connection watches
  // one table and is sent table_view at once and whenever it changes, at
  // most every kConsolePace.
  void watch_table(const std::shared_ptr<Client>& client, std::optional<int> table, Id id);
  // A teacher's connection that resumed watches the table the teacher last
  // chose, if it is one of the tables shown.
  void watch_again(const std::shared_ptr<Client>& client);
  protocol::TableView table_view(int table) const;
  void push_view(int table);
  void send_view(int table);
  void flush_views();
  void arm_views();
  // A pupil with a seat in the round in play gets its seat token.
  void hand_seat(int pupil, const std::shared_ptr<Client>& client);
  void table_changed(int round, int table, protocol::EventTable status, std::vector<engine::CardSet> hands);
  // A same-deal round (docs/FAIRNESS.md, "Shared deals"): the commitment to
  // the next round's seed, announced before that round deals; the round's,
  // with its seed once revealed; and the reveal, once every table of the
  // round is over (never while one still plays: its deck is everyone's).
  std::optional<protocol::DealFairness> next_deal() const;
  std::optional<protocol::DealFairness> round_deal() const;
  void reveal_round_if_over();
  void watch(int table);

  // Results (event_results_keeping.cpp): a table's game is over (its
  // status carries a game id): its result is stored, published for the
  // CSV and pushed to the teacher once committed.
  void table_finished(int table);
  void read_results(const std::shared_ptr<Client>& client, Id id);
  // The round in play (or the last) joins the earlier rounds' results
  // before a new round replaces it.
  void keep_round_results();
  protocol::EventResults results() const;
  EventResultsInput::Round round_input(int round, const std::vector<Table>& tables) const;
  // The results and the teacher's token hash, for results_for_teacher,
  // once what they show is committed; and the pushes to the teacher, at
  // most one every kConsolePace.
  void publish_results();
  void push_results();
  void restore_results(const StoredEvent& stored);

  bool is_teacher(const std::shared_ptr<Client>& client) const;
  std::optional<int> pupil_of(const std::shared_ptr<Client>& client) const;
  protocol::EventState state() const;
  protocol::EventPupil pupil_state(int pupil) const;
  std::optional<std::pair<int, engine::Seat>> seat_of(int pupil) const;
  int capacity() const;
  template <class Message>
  void send(const std::shared_ptr<Client>& client, const Message& message) {
    outbox_.send(client, make_shared_text(protocol::encode(message)));
  }
  void error(const std::shared_ptr<Client>& client, protocol::ErrorCode code, Id id, std::string message = {});
  // The teacher's console hears of a change within kConsolePace: a state
  // goes out at once if none went in the last kConsolePace, else at its end
  // (a class of busy tables changes far more often than a console redraws).
  void push_state();
  void send_state();
  void save_event();
  void save_pupil(int pupil);

  const RoomServices services_;
  RoomDirectory& directory_;
  const std::string code_;
  std::string name_;
  protocol::EventSettings settings_;
  std::vector<std::string> roster_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  DurableOutbox outbox_;
  bool submit_due_ = false;
  bool gone_ = false;  // move_away: another server holds the event
  std::int64_t created_ms_ = 0;

  std::optional<TokenHash> teacher_;
  std::vector<std::shared_ptr<Client>> teachers_;  // the teacher's live connections
  protocol::EventPhase phase_ = protocol::EventPhase::kOpen;
  int round_ = 0;
  std::vector<Pupil> pupils_;
  std::vector<std::vector<int>> plan_;  // the next round's seating, by table
  std::vector<Table> tables_;           // the round in play, or the last one
  // A same-deal event's seeds (gofish-deal/1): the next round's, drawn and
  // its commitment announced before that round starts, and the round in
  // play's (or the last), revealed once every table of it is over. Both
  // are kept in the event's settings record (save_event), so a restart
  // keeps the commitment announced and the round's deal; a restored round
  // is revealed when every table of it has its game's result stored.
  std::vector<std::uint8_t> next_round_seed_;
  std::vector<std::uint8_t> round_seed_;
  bool round_revealed_ = false;
  bool seeds_unsaved_ = false;  // restored from a record without the next seed
  GuardedTimer console_timer_;
  bool state_due_ = false;
  bool paused_ = false;  // pause_tables: every table of the round in play, and the next round's
  std::optional<TimerSource::SteadyTime> last_message_;  // message_tables, for its pace
  std::vector<std::pair<std::shared_ptr<Client>, int>> coached_;  // a teacher's connection, the table it watches
  // The table the teacher last chose to watch (watch_table), kept with the
  // event: a console that resumes watches it again without asking.
  std::optional<int> watching_;
  GuardedTimer views_timer_;
  std::set<int> views_due_;
  std::vector<EventResultsInput::Round> earlier_rounds_;  // results of the rounds before tables_'s
  GuardedTimer results_timer_;
  bool results_due_ = false;
  mutable std::mutex published_mutex_;
  std::shared_ptr<const protocol::EventResults> published_;
  std::optional<TokenHash> published_teacher_;

 public:
  static constexpr std::chrono::milliseconds kConsolePace{250};
  // At most one message_tables in this time (event/rate_limited).
  static constexpr std::chrono::milliseconds kMessagePace{2000};
};

}  // namespace gofish::server
