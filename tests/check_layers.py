#!/usr/bin/env python3
"""The server's layers, checked from the includes.

server/ is four folders, each its own library (server/CMakeLists.txt):

    app    -> edge, rooms, store
    edge   -> rooms
    rooms  -> store
    store  -> (none of them)

A file may include its own folder's headers and those of the folders its
library links, nothing else under server/. Besides:

- Boost.Beast (boost/beast...) only in server/edge. Outside server/, the
  programs that are WebSocket clients may use it too: clients/cli, bench (the
  load generator and the echo server) and tests (the socket-driving test
  clients, and the batching stream's test over real sockets). engine/,
  protocol/, tools/, fuzz/ and the rest of server/ may not.
- libpq-fe.h and sqlite3.h only in server/store, and in tests/, whose store
  and restart tests open the databases behind the server's back.
- engine/ and protocol/ never include server/.
- Every file of server/ lives in one of the four folders, and every include
  of a server header names its folder ("server/rooms/room.hpp").

    check_layers.py ROOT              scan ROOT; exit 1 naming file:line
    check_layers.py --self-test DIR   plant violations in a scratch tree
                                      under DIR and check they are found

The files are those git tracks or, outside a git checkout (the container
image's build context has no .git), every file under ROOT except build
folders and node_modules.
"""

import os
import re
import shutil
import subprocess
import sys

SOURCE = re.compile(r"\.(c|cc|cpp|cxx|h|hh|hpp|hxx|ipp|inl)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
ROOMS = ("app", "edge", "rooms", "store")
# What each room's library links (besides itself).
ALLOWED = {
    "app": {"edge", "rooms", "store"},
    "edge": {"rooms"},
    "rooms": {"store"},
    "store": set(),
}
BEAST_OK = ("server/edge/", "clients/cli/", "bench/", "tests/")
DATABASE_OK = ("server/store/", "tests/")
DATABASE_HEADERS = ("libpq-fe.h", "sqlite3.h")
SKIPPED_DIRS = re.compile(r"^(build[^/]*|out|data|node_modules|\.git)$")


def list_files(root):
    if os.path.exists(os.path.join(root, ".git")):
        result = subprocess.run(["git", "-C", root, "-c", "core.quotepath=off", "ls-files", "--cached", "--others",
                                 "--exclude-standard"],
                                capture_output=True, text=True, check=False)
        if result.returncode == 0:
            return [path for path in result.stdout.splitlines() if path]
    files = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = [name for name in subdirs if not SKIPPED_DIRS.match(name)]
        for name in names:
            files.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    return files


def room_of(path):
    """The room of a path under server/ ("server/edge/x.hpp" -> "edge"), None
    for a file directly in server/ or a folder that is not a room."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == "server" and parts[1] in ROOMS:
        return parts[1]
    return None


def problems_of(path, included):
    """Why `path` may not include `included` (empty list: it may)."""
    found = []
    if included.startswith("boost/beast") and not path.startswith(BEAST_OK):
        found.append("includes Boost.Beast, which only server/edge (and the clients, bench and tests) may")
    if os.path.basename(included) in DATABASE_HEADERS and not path.startswith(DATABASE_OK):
        found.append(f"includes {included}, which only server/store (and tests) may")
    if included.startswith("server/"):
        target = room_of(included)
        if target is None:
            found.append(f"includes {included}, which names no room (server/app, edge, rooms or store)")
        elif path.startswith(("engine/", "protocol/")):
            found.append(f"includes {included}: engine/ and protocol/ never include the server")
        elif path.startswith("server/"):
            source = room_of(path)
            if source is not None and target != source and target not in ALLOWED[source]:
                below = ", ".join(f"server/{room}" for room in sorted(ALLOWED[source]))
                allowed = f"may include only {below} besides itself" if below else "may include no other room"
                found.append(f"server/{source} includes server/{target} ({included}); server/{source} {allowed}")
    return found


def scan(root):
    """Every violation under `root`, as "file:line: reason" strings."""
    report = []
    for path in sorted(list_files(root)):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            continue
        if path.startswith("server/") and room_of(path) is None and path != "server/CMakeLists.txt":
            report.append(f"{path}: lives directly in server/; every server file belongs in "
                          "server/app, server/edge, server/rooms or server/store")
        if not SOURCE.search(path):
            continue
        with open(full, encoding="utf-8", errors="replace") as source:
            for number, line in enumerate(source, start=1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                for reason in problems_of(path, match.group(1)):
                    report.append(f"{path}:{number}: {reason}")
    return report


def self_test(work_dir):
    tree = os.path.join(work_dir, "check_layers_self_test")
    shutil.rmtree(tree, ignore_errors=True)
    planted = {
        # path: (content, expected to be reported)
        "server/store/ok.cpp": ('#include "server/store/store.hpp"\n#include <sqlite3.h>\n', False),
        "server/rooms/ok.cpp": ('#include "server/store/store.hpp"\n#include <boost/asio/post.hpp>\n', False),
        "server/edge/ok.cpp": ('#include "server/rooms/room.hpp"\n#include <boost/beast/http.hpp>\n', False),
        "server/app/ok.cpp": ('#include "server/edge/server.hpp"\n#include "server/store/store.hpp"\n', False),
        "tests/server/ok.cpp": ('#include <boost/beast/websocket.hpp>\n#include <libpq-fe.h>\n', False),
        "server/rooms/beast.cpp": ('// fine so far\n#include <boost/beast/core/error.hpp>\n', True),
        "server/rooms/edge.cpp": ('#include "server/edge/server.hpp"\n', True),
        "server/store/rooms.hpp": ('#pragma once\n#include "server/rooms/room.hpp"\n', True),
        "server/edge/store.cpp": ('#include "server/store/sqlite_store.hpp"\n', True),
        "server/rooms/app.cpp": ('#include "server/app/config.hpp"\n', True),
        "server/edge/sqlite.cpp": ('#include <sqlite3.h>\n', True),
        "server/app/libpq.cpp": ('#include <libpq-fe.h>\n', True),
        "server/flat.cpp": ('// a file outside the rooms\n', True),
        "server/rooms/flat_include.cpp": ('#include "server/room.hpp"\n', True),
        "engine/server.cpp": ('#include "server/rooms/room.hpp"\n', True),
        "tools/beast.cpp": ('  #  include <boost/beast.hpp>\n', True),
        "build/ignored.cpp": ('#include <boost/beast.hpp>\n', False),
    }
    for path, (content, _) in planted.items():
        full = os.path.join(tree, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as out:
            out.write(content)
    report = scan(tree)
    failures = []
    for path, (_, expected) in planted.items():
        hits = [line for line in report if line.startswith(path + ":")]
        if expected and not hits:
            failures.append(f"the scan missed the violation planted in {path}")
        if not expected and hits:
            failures.append(f"the scan reported a file it should not have: {hits}")
    if not any(line.startswith("server/rooms/beast.cpp:2:") for line in report):
        failures.append("the scan did not name the planted include's line (server/rooms/beast.cpp:2)")
    if failures:
        print("\n".join(failures + ["the whole report:"] + report))
        return 1
    print(f"the scan finds all {sum(1 for _, e in planted.values() if e)} planted violations")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) != 2:
        print(__doc__)
        return 2
    report = scan(argv[1])
    if report:
        print("includes across a layer boundary (see tests/check_layers.py and server/CMakeLists.txt):")
        print("\n".join("  " + line for line in report))
        return 1
    print("every include keeps to the server's layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
