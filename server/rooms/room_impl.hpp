// The room behind the Room interface (room.hpp), for its own translation
// units only: room.cpp (the entry points, the request handlers and the
// game's lifecycle), room_output.cpp (what it sends and writes) and
// room_presence.cpp (seat tokens, grace periods, the host role, rematch
// votes, idle expiry and closing). Everything runs on the room's strand.
// Its state lives in collaborators, each in its own file: SeatTable,
// RoomLog, DurableOutbox, RoomFanout, RoomGame, TurnClock, GuardedTimer,
// RoomView.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/random.hpp"
#include "engine/transcript.hpp"
#include "protocol/messages.hpp"
#include "protocol/token_bucket.hpp"
#include "server/rooms/durable_outbox.hpp"
#include "server/rooms/guarded_timer.hpp"
#include "server/rooms/next_deal.hpp"
#include "server/rooms/room.hpp"
#include "server/rooms/room_fanout.hpp"
#include "server/rooms/room_game.hpp"
#include "server/rooms/room_log.hpp"
#include "server/rooms/room_restore.hpp"
#include "server/rooms/room_view.hpp"
#include "server/rooms/seat_table.hpp"
#include "server/rooms/turn_clock.hpp"
#include "server/store/store.hpp"

namespace gofish::server {

class RoomImpl final : public Room, public std::enable_shared_from_this<RoomImpl> {
 public:
  using Id = std::optional<protocol::RequestId>;

  RoomImpl(const RoomServices& services, std::weak_ptr<RoomHost> host, std::string code,
           protocol::RoomSettings settings, SeatTable seats, std::int64_t v);
  // A room read back from the store: its game as it was, nobody connected.
  void adopt_restored(RestoredRoom& restored);

  // Room: each posts its work to the strand.
  const std::string& code() const override { return code_; }
  void create(std::shared_ptr<Client> client, protocol::CreateRoom request, Id id) override;
  void join(std::shared_ptr<Client> client, protocol::Join request, Id id) override;
  void resume(std::shared_ptr<Client> client, std::string token, TokenHash hash, std::optional<std::int64_t> last_v,
              Id id) override;
  void handle(std::shared_ptr<Client> client, protocol::ClientMessage message, Clock::time_point arrived) override;
  void disconnect(std::shared_ptr<Client> client) override;
  std::optional<protocol::LobbyRoom> lobby_entry() const override;
  void begin_after_restore() override;
  void move_away(bool commit_first, std::function<void()> after) override;
  void leases_confirmed(bool confirmed) override;
  void open_table(TableSetup setup) override;
  void reveal_deal() override;
  void hand_seat(std::shared_ptr<Client> client, engine::Seat seat, protocol::EventSeat message) override;
  void watch(TableReport report, bool coaching) override;
  void pause_table(bool paused) override;
  void set_chat(protocol::ChatMode chat) override;
  void release_seat(engine::Seat seat) override;
  void seat_late_pupil(engine::Seat seat, std::string name) override;
  void tell_daily_result(engine::Seat seat, protocol::DailyResult result) override;

 private:
  using ErrorCode = protocol::ErrorCode;
  using State = protocol::RoomState;
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  // Runs `work` on the strand as one turn: what it writes goes to the store
  // in one submission as the turn ends (post_submit).
  template <class F>
  void on_strand(F&& work) {
    boost::asio::post(strand_, [self = shared_from_this(), work = std::forward<F>(work)]() mutable {
      Turn turn(*self);
      work(*self);
    });
  }
  // A timer's handler, run as one turn like on_strand's work (the timers
  // fire on the strand): what it writes is submitted, and a class's table
  // reports what changed, as the turn ends. Without a store nothing else
  // would end the turn of a bot's move, and its table would not be heard of.
  template <class F>
  std::function<void()> as_turn(F&& work) {
    return [weak = weak_from_this(), work = std::forward<F>(work)]() mutable {
      if (auto self = weak.lock()) {
        Turn turn(*self);
        work(*self);
      }
    };
  }
  struct Turn {
    explicit Turn(RoomImpl& in) : room(in) { room.in_turn_ = true; }
    // Also while a turn's work unwinds from an exception: what the turn
    // wrote and sent happened, so it is submitted as usual. Nothing may
    // leave a destructor: a failure here is logged.
    ~Turn();
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    RoomImpl& room;
  };

  // ---- room.cpp: requests
  void do_create(const std::shared_ptr<Client>& client, protocol::CreateRoom request, Id id);
  void do_join(const std::shared_ptr<Client>& client, protocol::Join request, Id id);
  void do_resume(const std::shared_ptr<Client>& client, const std::string& token, const TokenHash& hash,
                 std::optional<std::int64_t> last_v, Id id);
  void do_disconnect(const std::shared_ptr<Client>& client);
  void remove_spectator(std::size_t index);
  void do_handle(const std::shared_ptr<Client>& client, protocol::ClientMessage message, Clock::time_point arrived);
  void do_leave(const std::shared_ptr<Client>& client, const Member& member, Id id);
  void do_add_bot(const std::shared_ptr<Client>& client, const protocol::AddBot& request, Id id);
  void do_remove_bot(const std::shared_ptr<Client>& client, engine::Seat index, Id id);
  void do_kick(const std::shared_ptr<Client>& client, engine::Seat index, Id id);
  void do_start(const std::shared_ptr<Client>& client, Id id);
  void do_rematch(const std::shared_ptr<Client>& client, engine::Seat seat, Id id);
  void do_contribute(const std::shared_ptr<Client>& client, const Member& member, const protocol::Contribute& m, Id id);
  void do_chat(const std::shared_ptr<Client>& client, const Member& member, const protocol::Chat& chat, Id id);
  void do_transcript(const std::shared_ptr<Client>& client, Id id);
  void do_decision(const std::shared_ptr<Client>& client, const engine::Decision& decision, Id id,
                   Clock::time_point arrived);

  // ---- room.cpp: the game
  void start_game();
  void apply(const engine::Judgement& judgement, const std::function<void()>& before_events = {});
  // `deal`: the events are a game's start, after which a bot takes over
  // every seat whose owner is away.
  void after_events(bool deal = false);
  void finish_game();
  // A fresh seed for the next deal, stored before its commitment goes out.
  void draw_next_deal();
  // The next deal as it is now, to the store (nothing, once the game is dealt).
  void write_next_deal();
  // Today's deal's standing as it is now, to the store (nothing: none).
  void write_daily_note();
  bool bot_controls(engine::Seat index) const {
    const SeatSlot& seat = seats_[index];
    return seat.bot() || (seat.human() && seat.takeover.has_value());
  }
  void schedule();
  void on_bot_timer();
  void on_turn_timeout();
  void bot_move(engine::Seat seat);
  void announce_turn();
  engine::Transcript transcript() const { return engine::make_transcript(game_->game()); }

  // ---- room_output.cpp: what the room sends and writes
  void send(const std::shared_ptr<Client>& client, const protocol::ServerMessage& message);
  // An ok answers a request whose records this turn writes (a seat, a vote,
  // the event it caused), most of them after the ok: it waits for the turn's
  // submission all the same, so it goes out once they are stored and before
  // those events (protocol/README.md, "Server contract: order").
  void reply_ok(const std::shared_ptr<Client>& client, Id id) {
    if (outbox_.version_moved()) post_submit();
    send(client, protocol::Ok{std::move(id)});
  }
  void reply_error(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message = {});
  void refuse(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message = {});
  // Refused because the room is paused: at once, past the durability hold
  // (the refusal is no effect of anything held), so the client need not
  // wait for the store to hear it. A client in no room is let go.
  void refuse_paused(const std::shared_ptr<Client>& client, ErrorCode code, Id id, std::string message = {});
  void record(protocol::RoomEvent event);
  void write(Record record);
  void post_submit();
  void end_turn();
  void submit();
  void write_seats();
  // What became of submission `number` (on the strand).
  void on_write(std::uint64_t number, WriteOutcome outcome);
  // ---- room_pause.cpp: a room whose store fails, or whose node cannot
  // confirm its lease, pauses until both are well again.
  std::optional<protocol::PauseReason> pause_reason() const;
  // Paused because what the room did is not saved: nobody may come in.
  bool held_by_store() const;
  // What everyone was told when the pause in force began, for whoever
  // comes in during it.
  protocol::RoomPaused paused_notice() const;
  // Pauses or goes on as pause_reason() now says, telling everyone once.
  void update_pause();
  void pause();
  void go_on();
  RoomView view() const {
    return RoomView(code_, settings_, seats_, state_, game_number_, game_, log_.v(), clock_.timer(),
                    next_deal_ ? std::optional(next_deal_->announced()) : std::nullopt);
  }
  protocol::RoomSnapshot snapshot(std::optional<engine::Seat> you) const { return view().snapshot(you); }
  protocol::Turn turn_for(std::optional<engine::Seat> viewer) const { return view().turn(viewer); }

  // ---- room_presence.cpp: seats over time
  void issue_token(const TokenHash& hash, engine::Seat seat);
  void revoke_token(const std::optional<TokenHash>& hash);
  std::string seat_human(engine::Seat index, const std::shared_ptr<Client>& client, std::string name);
  void free_seat(engine::Seat index);
  TokenBucket chat_bucket() const;
  void arm_grace(engine::Seat index);
  void on_grace_expired(engine::Seat index);
  void resume_after_restart();
  void after_seat_lost();
  void give_up_seat(engine::Seat index);  // a bot plays it to the game's end, or it is free
  void pass_host_on();
  // The host is away (past the grace period, or a game starts without
  // them): the role goes to a player who is here.
  void pass_host_to_someone_here();
  void check_rematch();
  void after_membership_change();
  void on_idle();
  void close_room(protocol::RoomClosedReason reason, const std::string& why);
  // ---- room_table.cpp: a table of a class event
  void do_open_table(TableSetup setup);
  // A finished game's fairness record as it may be served now: a shared
  // deal's seed is left out until it is revealed (its day is over, or the
  // event said reveal_deal).
  std::optional<protocol::DealFairness> served_fairness(const std::optional<protocol::DealFairness>& fairness) const;
  void do_hand_seat(const std::shared_ptr<Client>& client, engine::Seat seat, protocol::EventSeat message);
  void do_release_seat(engine::Seat seat);
  void do_seat_late_pupil(engine::Seat seat, std::string name);
  protocol::EventTable table_status() const;
  // At the end of every turn: the watcher hears of a change, after its commit.
  void report_table();
  // ---- room_move.cpp: the room now served by another server
  void do_move_away(bool commit_first, std::function<void()> after);
  void set_state(State state);
  void refresh_lobby();

  const RoomServices services_;
  const Limits& limits_;
  const std::weak_ptr<RoomHost> host_;
  const std::string code_;
  // Fixed at creation but for its chat mode, which a class event's teacher
  // may change (set_chat), on the strand like everything else here.
  protocol::RoomSettings settings_;
  Strand strand_;

  State state_ = State::kWaiting;
  bool closed_ = false;
  // Closed because another server now holds the room (do_move_away): a join
  // or resume that found it here just before is answered room/busy, which
  // clients ask again after, not as if the room or the seat were gone.
  bool moved_ = false;
  // Paused (update_pause): everyone was told, and no decision, timer or
  // change of seats is taken until play goes on. `leases_lapsed_`: the
  // node's leases are not confirmed (leases_confirmed).
  bool paused_ = false;
  bool leases_lapsed_ = false;
  // Paused by its event's teacher (pause_table); why the pause in force
  // began, for the message that ends it.
  bool teacher_paused_ = false;
  protocol::PauseReason paused_for_ = protocol::PauseReason::kSavingFailed;
  // In a turn of on_strand, and whether it has records to submit at its end.
  bool in_turn_ = false;
  bool submit_due_ = false;
  SeatTable seats_;
  RoomLog log_;
  DurableOutbox outbox_;
  // Each seat's row as last handed to the store (write_seats), so a change
  // of membership writes only the seats it changed; empty until first written.
  std::vector<std::string> seats_written_;
  RoomFanout fanout_;
  int game_number_ = 0;
  std::optional<RoomGame> game_;               // the game in play, or the last one finished
  std::optional<FinishedGame> last_finished_;  // whose transcript `transcript` serves

  TurnClock clock_;                                          // a bot's move or a human's turn timer
  std::vector<std::unique_ptr<GuardedTimer>> grace_timers_;  // one per seat
  GuardedTimer idle_timer_;
  // Hands a write the store writer refused (out of memory) over again.
  GuardedTimer resubmit_timer_;
  engine::Rng rng_;
  // A class event's table (room_table.cpp): whether its same-deal round's
  // seed is revealed, and who hears of changes with what they last heard.
  bool deal_revealed_ = false;  // reveal_deal: the same-deal round is over at every table
  // gofish-deal/1 (next_deal.hpp): the seed and contributions of the next
  // game, from the room's making and again after every game.
  std::optional<NextDeal> next_deal_;
  // Today's deal's standing (tell_daily_result), for the holder of its
  // seat's token while game `game` is the room's last; stored with the room
  // (write_daily_note) before it is sent, so it outlives a restart.
  std::optional<DailyNote> daily_note_;
  TableReport table_report_;
  bool table_coached_ = false;
  std::optional<std::pair<protocol::EventTable, std::vector<engine::CardSet>>> table_reported_;

  mutable std::mutex lobby_mutex_;
  std::optional<protocol::LobbyRoom> lobby_;
};

}  // namespace gofish::server
