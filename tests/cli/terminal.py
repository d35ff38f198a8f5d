"""gofish-cli in a detached tmux session of its own (its own socket, a fixed
size), read back with capture-pane: what a person would see and type."""
import os
import re
import subprocess
import time

from harness import Failure


class Terminal:
    def __init__(self, command, width=150, height=50):
        self.socket = f"gofish-cli-test-{os.getpid()}"
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "cli", "-x", str(width), "-y", str(height), command)
        self.tmux("set-option", "-t", "cli", "history-limit", "50000")

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True).stdout

    def screen(self):
        """The whole pane, history included, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "cli")

    def here(self):
        """Where the next output goes: the start of the last line shown (the prompt)."""
        text = self.screen().rstrip()
        return text.rfind("\n") + 1

    def type_line(self, text):
        self.tmux("send-keys", "-t", "cli", "-l", text)
        self.tmux("send-keys", "-t", "cli", "Enter")

    def wait_for(self, pattern, timeout=20, after=0):
        """Waits until `pattern` appears in the screen at or after character `after`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.compile(pattern, re.M).search(self.screen(), after)
            if match:
                return match
            time.sleep(0.1)
        raise self.never_appeared(pattern)

    def never_appeared(self, pattern):
        text = self.screen()
        return Failure(f"{pattern!r} never appeared on the screen:\n" + "\n".join(text.rstrip().splitlines()[-40:]))

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
