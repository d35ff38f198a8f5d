// The interactive prompt: a thread of its own blocked in libedit's readline()
// (line editing and history). Each typed line waits in the reader until the
// session has handled it, and the next prompt comes only then. While the
// thread owns the terminal, output is queued and libedit's idle hook prints it
// above the prompt, so the prompt and the output are never written at once.
//
// Everything the thread and the hook touch lives in a state they share, not
// in the reader: a thread still waiting in readline() when the reader stops is
// left to end with the process, and whatever it does later (a key, the end of
// input) reaches no freed memory.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gofish::cli {

class LineReader {
 public:
  struct Line {
    std::string text;
    bool end_of_input = false;  // Ctrl-D, or the terminal closed
  };

  // Reads from in_fd and draws the prompt on out_fd (the terminal's stdin and
  // stdout in gofish-cli; a pseudo-terminal in the tests). libedit keeps one
  // editor a process, so every reader of a process uses the first one's files.
  explicit LineReader(int in_fd, int out_fd);
  ~LineReader();  // stop()
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Starts the thread, once: later calls, and calls after stop(), do nothing.
  void start(const std::string& prompt);
  bool started() const;  // started and not stopped

  // Called on the reader thread after each typed line, to have the session
  // handle it (post to its loop); nullptr while there is no loop to post to.
  // The reader's lock is held during the call, so a wake that is replaced or
  // cleared is never called again.
  void set_wake(std::function<void()> wake);

  // The oldest typed line not yet handled, if any; handled() removes it, and
  // the prompt comes back once none is left. discard() drops them all.
  std::optional<Line> next();
  void handled();
  void discard();

  // While the thread owns the terminal, queues the line for the idle hook to
  // print and returns true; otherwise returns false (the caller prints it).
  bool queue(const std::string& line);

  // Adds a typed line to the editor's history.
  void remember(const std::string& line);

  // Gives the terminal back as it was and returns the lines queued but not yet
  // printed. A thread that waits in readline() is left to end with the process;
  // any other is joined.
  std::vector<std::string> stop();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace gofish::cli
