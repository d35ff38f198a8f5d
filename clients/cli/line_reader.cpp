#include "clients/cli/line_reader.hpp"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

// libedit's readline-compatible interface (line editing and history).
#include <editline/readline.h>

namespace gofish::cli {

struct LineReader::State {
  int in_fd = STDIN_FILENO;
  std::FILE* out = stdout;
  termios saved_terminal{};
  std::thread thread;

  std::mutex mutex;  // guards everything below
  std::condition_variable handled;
  std::deque<Line> typed;
  std::function<void()> wake;
  bool reading = false;  // the thread waits in readline()
  bool stopping = false;
  bool owns_terminal = false;
  std::vector<std::string> queued;

  // On the reader thread, from the idle hook: prints what was queued, then
  // draws the prompt and the half-typed line again below it.
  void show_queued_output() {
    std::vector<std::string> lines;
    {
      std::lock_guard lock(mutex);
      if (!owns_terminal) return;
      lines.swap(queued);
    }
    if (lines.empty()) return;
    std::fputs("\r\x1b[K", out);
    for (const auto& line : lines) {
      std::fputs(line.c_str(), out);
      std::fputc('\n', out);
    }
    std::fflush(out);
    rl_forced_update_display();
  }
};

namespace {

// How long libedit's idle hook waits for a key before it prints queued output.
constexpr int kKeyWaitMs = 30;

// libedit's event hook is a plain function: it finds the running reader's
// state here. Never destroyed, so a thread left in readline() at exit can
// still look.
struct Hook {
  std::mutex mutex;
  std::shared_ptr<LineReader::State> state;
  int in_fd = STDIN_FILENO;
};
Hook& hook() {
  static auto* const instance = new Hook;
  return *instance;
}

int on_idle() {
  int in_fd = STDIN_FILENO;
  {
    std::lock_guard lock(hook().mutex);
    in_fd = hook().in_fd;
  }
  // Also once the reader has stopped: libedit calls the hook in a loop while
  // it waits, and the wait keeps that loop from spinning.
  pollfd key{in_fd, POLLIN, 0};
  ::poll(&key, 1, kKeyWaitMs);
  std::shared_ptr<LineReader::State> state;
  {
    std::lock_guard lock(hook().mutex);
    state = hook().state;
  }
  if (state) state->show_queued_output();
  return 0;
}

std::FILE* stream_for(int fd, const char* mode) {
  if (fd == STDIN_FILENO) return stdin;
  if (fd == STDOUT_FILENO) return stdout;
  return ::fdopen(fd, mode);
}

// The reader thread: holds its own share of the state, so it may outlive the
// LineReader.
void read_lines(const std::shared_ptr<LineReader::State>& state, const std::string& prompt) {
  while (true) {
    char* raw = readline(prompt.c_str());
    std::unique_lock lock(state->mutex);
    state->reading = false;
    state->typed.push_back(raw ? LineReader::Line{raw, false} : LineReader::Line{{}, true});
    std::free(raw);
    if (state->stopping) return;
    if (state->wake) state->wake();
    state->handled.wait(lock, [&] { return state->typed.empty() || state->stopping; });
    if (state->stopping) return;
    // Set under the lock, so that stop() never joins a thread about to wait
    // for a key.
    state->reading = true;
  }
}

}  // namespace

LineReader::LineReader(int in_fd, int out_fd) : state_(std::make_shared<State>()) {
  state_->in_fd = in_fd;
  state_->out = stream_for(out_fd, "w");
  if (!rl_instream) rl_instream = stream_for(in_fd, "r");
  if (!rl_outstream) rl_outstream = state_->out;
}

LineReader::~LineReader() { stop(); }

void LineReader::start(const std::string& prompt) {
  if (state_->thread.joinable() || state_->stopping) return;
  tcgetattr(state_->in_fd, &state_->saved_terminal);
  {
    std::lock_guard lock(state_->mutex);
    state_->owns_terminal = true;
    state_->reading = true;
  }
  {
    std::lock_guard lock(hook().mutex);
    hook().state = state_;
    hook().in_fd = state_->in_fd;
  }
  rl_event_hook = on_idle;
  state_->thread = std::thread([state = state_, prompt] { read_lines(state, prompt); });
}

bool LineReader::started() const { return state_->thread.joinable(); }

void LineReader::set_wake(std::function<void()> wake) {
  std::lock_guard lock(state_->mutex);
  state_->wake = std::move(wake);
}

std::optional<LineReader::Line> LineReader::next() {
  std::lock_guard lock(state_->mutex);
  if (state_->typed.empty()) return std::nullopt;
  return state_->typed.front();
}

void LineReader::handled() {
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->typed.empty()) state_->typed.pop_front();
  }
  state_->handled.notify_all();
}

void LineReader::discard() {
  {
    std::lock_guard lock(state_->mutex);
    state_->typed.clear();
  }
  state_->handled.notify_all();
}

bool LineReader::queue(const std::string& line) {
  std::lock_guard lock(state_->mutex);
  if (!state_->owns_terminal) return false;
  state_->queued.push_back(line);
  return true;
}

void LineReader::remember(const std::string& line) { add_history(line.c_str()); }

std::vector<std::string> LineReader::stop() {
  if (!state_->thread.joinable()) return {};
  std::vector<std::string> lines;
  bool reading = false;
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
    state_->wake = nullptr;
    state_->owns_terminal = false;
    lines.swap(state_->queued);
    reading = state_->reading;
  }
  state_->handled.notify_all();
  {
    std::lock_guard lock(hook().mutex);
    if (hook().state == state_) hook().state.reset();
  }
  if (reading) {
    // readline() left the terminal raw; it may wait for a key until the
    // process ends.
    tcsetattr(state_->in_fd, TCSANOW, &state_->saved_terminal);
    std::fputs("\r\x1b[K", state_->out);
    std::fflush(state_->out);
    state_->thread.detach();
  } else {
    state_->thread.join();
  }
  return lines;
}

}  // namespace gofish::cli
