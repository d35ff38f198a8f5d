#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks: a new cluster in a
# temporary directory, listening on 127.0.0.1 only (a free port) and on a
# unix socket in that directory, fsync off, with an empty database gofish;
# gone once stopped.
#
#   scripts/pg-throwaway.sh start STATE          make and start a cluster, describe it in the file STATE
#   scripts/pg-throwaway.sh createdb STATE NAME  make an empty database NAME in it, print its URL
#   scripts/pg-throwaway.sh stop STATE           stop the cluster STATE describes, remove its directory and STATE
#   scripts/pg-throwaway.sh halt STATE           stop its server (as an outage would), keeping its data
#   scripts/pg-throwaway.sh resume STATE         start that server again, on the same port with the same data
#
# STATE holds key=value lines: dir, owner, port, user, password, and url, the
# superuser's URL for database gofish (postgresql://gofish:...@127.0.0.1:PORT/gofish).
# Logins over TCP need the password (scram-sha-256); over the socket they do not.
# PostgreSQL refuses to run as root: run as root, this runs the server as the
# postgres account (made by Debian's postgresql package), or else as nobody.
# The binaries come from $PG_BINDIR, or the newest /usr/lib/postgresql/*/bin.
# $PG_THROWAWAY_SETTINGS adds server settings after ours, e.g. "-c fsync=on"
# for a benchmark that should pay for its flushes.
# Starting over a STATE whose cluster still runs (a run that was cut short)
# stops that one first.
set -euo pipefail

usage() { echo "usage: $0 start STATE | createdb STATE NAME | stop STATE | halt STATE | resume STATE" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
action=$1
state=$2

say() { echo "pg-throwaway: $*" >&2; }

bindir=${PG_BINDIR:-}
if [[ -z $bindir ]]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
fi
if [[ -z $bindir || ! -x $bindir/initdb ]]; then
  say "no PostgreSQL server binaries (initdb, pg_ctl) found; install Debian's postgresql package (scripts/install-deps.sh) or set PG_BINDIR"
  exit 1
fi

# as OWNER COMMAND...: runs COMMAND as OWNER (from the cluster's directory, which OWNER can enter).
as() {
  local owner=$1; shift
  if [[ $(id -u) -eq 0 ]]; then
    (cd "$dir" && setpriv --reuid="$owner" --regid="$(id -g "$owner")" --init-groups -- "$@")
  else
    (cd "$dir" && "$@")
  fi
}

value() { sed -n "s/^$1=//p" "$state"; }

stop() {
  [[ -f $state ]] || return 0
  dir=$(value dir)
  local owner
  owner=$(value owner)
  if [[ -n $dir && -f $dir/data/postmaster.pid ]]; then
    if ! as "$owner" "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null; then
      local pid
      pid=$(head -n 1 "$dir/data/postmaster.pid")
      say "pg_ctl stop failed; killing postmaster $pid"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  [[ -n $dir && -d $dir ]] && rm -rf "$dir"
  rm -f "$state"
}

start() {
  stop
  local owner
  owner=$(id -un)
  if [[ $(id -u) -eq 0 ]]; then
    owner=nobody
    if getent passwd postgres >/dev/null; then owner=postgres; fi
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/gofish-pg.XXXXXX")
  local password
  password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
  printf '%s\n' "$password" >"$dir/password"
  if [[ $(id -u) -eq 0 ]]; then chown -R "$owner:$(id -g "$owner")" "$dir"; fi
  # Written before the server starts, so stop can clean up whatever happens next.
  printf 'dir=%s\nowner=%s\n' "$dir" "$owner" >"$state"
  if ! as "$owner" "$bindir/initdb" -D "$dir/data" -U gofish --pwfile="$dir/password" --auth-host=scram-sha-256 \
      --auth-local=trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    say "initdb failed"
    stop
    exit 1
  fi
  local port=""
  for _ in $(seq 20); do
    local try=$((20000 + RANDOM % 40000))
    if as "$owner" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "$(server_options "$try")" start >/dev/null; then
      port=$try
      break
    fi
    # Another program holds the port: try another one. Anything else is fatal.
    grep -q 'could not bind\|Address already in use' "$dir/server.log" || break
  done
  if [[ -z $port ]]; then
    cat "$dir/server.log" >&2 || true
    say "the server did not start"
    stop
    exit 1
  fi
  if ! as "$owner" "$bindir/createdb" -h "$dir" -p "$port" -U gofish gofish; then
    say "createdb failed"
    stop
    exit 1
  fi
  printf 'port=%s\nuser=gofish\npassword=%s\nurl=postgresql://gofish:%s@127.0.0.1:%s/gofish\n' \
    "$port" "$password" "$password" "$port" >>"$state"
  say "PostgreSQL on 127.0.0.1:$port (data in $dir, running as $owner)"
}

createdb() {
  local name=$1
  [[ -f $state ]] || { say "no cluster: $state does not exist"; exit 1; }
  dir=$(value dir)
  local port password
  port=$(value port)
  password=$(value password)
  as "$(value owner)" "$bindir/createdb" -h "$dir" -p "$port" -U gofish "$name"
  echo "postgresql://gofish:$password@127.0.0.1:$port/$name"
}

# The server's own flags, the same at every start.
server_options() { echo "-c listen_addresses=127.0.0.1 -p $1 -k $dir -c fsync=off -c full_page_writes=off ${PG_THROWAWAY_SETTINGS:-}"; }

halt() {
  [[ -f $state ]] || { say "no cluster: $state does not exist"; exit 1; }
  dir=$(value dir)
  as "$(value owner)" "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null
  say "PostgreSQL on 127.0.0.1:$(value port) halted (data kept in $dir)"
}

resume() {
  [[ -f $state ]] || { say "no cluster: $state does not exist"; exit 1; }
  dir=$(value dir)
  as "$(value owner)" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "$(server_options "$(value port)")" start >/dev/null
  say "PostgreSQL on 127.0.0.1:$(value port) running again"
}

case $action in
  start) [[ $# -eq 2 ]] || usage; start ;;
  halt) [[ $# -eq 2 ]] || usage; halt ;;
  resume) [[ $# -eq 2 ]] || usage; resume ;;
  createdb) [[ $# -eq 3 ]] || usage; createdb "$3" ;;
  stop) [[ $# -eq 2 ]] || usage; stop ;;
  *) usage ;;
esac
