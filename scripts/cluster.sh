#!/usr/bin/env bash
# A gofish cluster on this machine, for trying it and for tests: a throwaway
# PostgreSQL (scripts/pg-throwaway.sh), N gofish-server nodes sharing it
# (--storage postgres, --node-id nodeK, each on its own port on 127.0.0.1)
# and HAProxy in front on a loopback port, with docker/haproxy.cfg written
# out for those ports (scripts/haproxy-config.sh): a request that names a room (/ws?room=CODE) goes to
# the node its code hashes to, one without goes round robin, and a node
# whose /readyz fails gets nothing new.
#
#   scripts/cluster.sh up [DIR] [--nodes N] [--server BIN] [--port P] [-- SERVER-FLAG...]
#       Starts the cluster in DIR (made if missing) and returns; writes
#       DIR/cluster.env and prints it. Without DIR: a temporary directory, in
#       the foreground, until Ctrl-C (or SIGTERM) takes it all down and removes it.
#       --nodes N     nodes, default 3
#       --server BIN  the gofish-server binary, default build/server/gofish-server
#       --port P      HAProxy's port on 127.0.0.1, default any free one
#       SERVER-FLAGs after -- go to every node (e.g. --bot-delay-ms=0 --lease-ttl-ms=3000)
#   scripts/cluster.sh stop-node DIR K [--signal TERM|KILL|STOP|CONT]
#       Sends node K the signal (TERM by default); for TERM and KILL waits until it has exited.
#   scripts/cluster.sh start-node DIR K [-- SERVER-FLAG...]
#       Starts node K again with its recorded command line, on its port, and waits until it is
#       ready and HAProxy sees it up. SERVER-FLAGs after -- are added for this start only
#       (e.g. another --lease-ttl-ms, to give nodes different leases).
#   scripts/cluster.sh status DIR
#       Each node's pid, whether it runs, its /readyz, and HAProxy's view of it.
#   scripts/cluster.sh down DIR
#       Stops HAProxy and every node (SIGTERM, then SIGKILL after 10 s) and PostgreSQL.
#   scripts/cluster.sh haproxy-config PROXY-PORT STATS-PORT NODE-PORT...
#       Prints the HAProxy configuration `up` writes for those ports: docker/haproxy.cfg
#       with loopback addresses (scripts/haproxy-config.sh). Starts nothing.
#
# DIR/cluster.env holds key=value lines, values quoted for bash (printf %q):
# dir, proxy_port, proxy_url (http://127.0.0.1:P; WebSockets at ws://127.0.0.1:P/ws),
# stats_url (HAProxy's statistics page), postgres_url, nodes, nodeK_port,
# nodeK_admin_port (its operator port on 127.0.0.1: /metrics, /healthz, /readyz),
# nodeK_pid, nodeK_command (the exact command line), haproxy_pid, haproxy_command.
# Node K logs to DIR/nodeK.log (appended to on each start), HAProxy to DIR/haproxy.log.
# This script only ever signals the pids it recorded there.
#
# Every client reaches the nodes from HAProxy's address, 127.0.0.1, so the
# limits per client address are raised to the server-wide caps (until the
# nodes read the client's address from the proxy).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

# The nodes' lease, as docker/compose.cluster.yaml and
# deploy/systemd/gofish.env give theirs (a flag after -- overrides it; the
# tests docker_cluster_config and deploy_systemd hold the three to one
# value). With 2 s, renewed every 667 ms, a crashed or frozen node's rooms
# can be taken 1.3 to 2 s after it stopped, so its players are back at
# their tables within 3 s (cluster_failover, cluster_frozen); the server's
# default of 3 s takes up to a second longer. A node that cannot renew
# pauses its rooms 1.5 s after its last renewal that went through (the TTL
# less a 500 ms margin for clock drift).
lease_ttl_ms=2000

say() { echo "cluster: $*" >&2; }
die() { say "$*"; exit 1; }
usage() {
  sed -n '/^#   scripts/,/^# DIR/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

# value KEY: KEY's value in $dir/cluster.env, unquoted.
value() {
  local line
  line=$(grep -m1 "^$1=" "$dir/cluster.env" || true)
  [[ -n $line ]] || return 0
  eval "printf '%s' ${line#*=}"
}

# set_value KEY VALUE: replaces or adds KEY in $dir/cluster.env.
set_value() {
  local file=$dir/cluster.env line
  line=$(printf '%s=%q' "$1" "$2")
  if grep -q "^$1=" "$file" 2>/dev/null; then
    grep -v "^$1=" "$file" >"$file.new" || true
    printf '%s\n' "$line" >>"$file.new"
    mv "$file.new" "$file"
  else
    printf '%s\n' "$line" >>"$file"
  fi
}

alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }

# http_status PORT PATH: the status code of GET PATH on 127.0.0.1:PORT, 000 if none.
http_status() {
  local code
  code=$({ exec 3<>"/dev/tcp/127.0.0.1/$1" &&
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3 &&
    timeout 2 head -n 1 <&3 | awk '{print $2}'; } 2>/dev/null) || true
  echo "${code:-000}"
}

# free_ports N: N distinct ports on 127.0.0.1, free a moment ago, from below the ephemeral range.
free_ports() { python3 "$root/scripts/free_ports.py" "$1"; }

# wait_until SECONDS WHAT COMMAND...: runs COMMAND every 0.1 s until it succeeds.
wait_until() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    ((SECONDS < deadline)) || { say "gave up waiting for $what"; return 1; }
    sleep 0.1
  done
}

node_ready() { [[ $(http_status "$(value "node$1_port")" /readyz) == 200 ]]; }
node_gone() { ! alive "$(value "node$1_pid")"; }

# haproxy_sees K STATUS: HAProxy's health check reports node K as STATUS (UP or DOWN).
haproxy_sees() {
  local port
  port=$(value stats_port)
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  printf 'GET /stats;csv HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  timeout 2 cat <&3 | awk -F, -v node="node$1" -v want="$2" '$1 == "nodes" && $2 == node { found = ($18 ~ "^" want) } END { exit !found }'
}

start_node() {
  local k=$1 command pid
  shift
  command=$(value "node${k}_command")
  [[ -n $command ]] || die "no node $k in $dir/cluster.env"
  alive "$(value "node${k}_pid")" && die "node $k is running already (pid $(value "node${k}_pid"))"
  (($# == 0)) || command+=" $(printf '%q ' "$@")"
  # exec: the recorded pid is the server's own.
  eval "exec $command" >>"$dir/node$k.log" 2>&1 </dev/null &
  pid=$!
  set_value "node${k}_pid" "$pid"
  if ! wait_until 30 "node $k's /readyz" node_ready "$k"; then
    tail -n 20 "$dir/node$k.log" >&2
    return 1
  fi
  # Once HAProxy runs, also until its health check sends the node traffic again.
  if alive "$(value haproxy_pid)"; then
    wait_until 15 "HAProxy to see node $k up" haproxy_sees "$k" UP
  fi
}

signal_node() {
  local k=$1 signal=$2 pid
  pid=$(value "node${k}_pid")
  alive "$pid" || die "node $k is not running"
  kill -s "$signal" "$pid"
  case $signal in
    TERM | KILL) wait_until 30 "node $k (pid $pid) to exit" node_gone "$k" ;;
  esac
}

up() {
  local nodes=3 server=$root/build/server/gofish-server proxy_port=0 foreground=false
  local extra=()
  dir=""
  while (($#)); do
    case $1 in
      --nodes) nodes=$2; shift 2 ;;
      --server) server=$2; shift 2 ;;
      --port) proxy_port=$2; shift 2 ;;
      --) shift; extra=("$@"); break ;;
      -*) usage ;;
      *) [[ -z $dir ]] || usage; dir=$1; shift ;;
    esac
  done
  [[ $nodes =~ ^[1-9][0-9]*$ ]] || die "--nodes is a positive number"
  [[ -x $server ]] || die "no gofish-server at $server (build it, or give --server)"
  command -v haproxy >/dev/null || die "no haproxy (scripts/install-deps.sh installs it)"
  if [[ -z $dir ]]; then
    foreground=true
    dir=$(mktemp -d "${TMPDIR:-/tmp}/gofish-cluster.XXXXXX")
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [[ ! -f $dir/cluster.env ]] || die "$dir/cluster.env exists: a cluster runs there (scripts/cluster.sh down $dir)"
  # In the foreground the directory is ours: it goes with the cluster.
  if $foreground; then trap 'down_all; rm -rf "$dir"; exit 0' INT TERM; fi

  # A port for each node, HAProxy's two, and each node's operator port (its
  # default, the main port + 1, could be the next node's).
  local ports
  read -r -a ports <<<"$(free_ports $((2 * nodes + 2)))"
  ((proxy_port != 0)) || proxy_port=${ports[nodes]}
  local stats_port=${ports[nodes + 1]}
  set_value dir "$dir"
  set_value proxy_port "$proxy_port"
  set_value proxy_url "http://127.0.0.1:$proxy_port"
  set_value stats_port "$stats_port"
  set_value stats_url "http://127.0.0.1:$stats_port/stats"
  set_value nodes "$nodes"

  "$root/scripts/pg-throwaway.sh" start "$dir/postgres.state"
  local postgres_url
  postgres_url=$(sed -n 's/^url=//p' "$dir/postgres.state")
  set_value postgres_url "$postgres_url"

  local k
  for ((k = 1; k <= nodes; ++k)); do
    local port=${ports[k - 1]} admin_port=${ports[nodes + 1 + k]}
    local args=(
      "$server" --storage postgres --postgres-url "$postgres_url" --node-id "node$k"
      --bind 127.0.0.1 --port "$port" --admin-port "$admin_port"
      --data-dir "$dir/node$k" --web-root "$(dirname "$server")/../web"
      --lease-ttl-ms "$lease_ttl_ms"
      --trusted-proxy 127.0.0.2
      --max-connections-per-address 1000 --max-sockets-per-address 2000 --max-rooms-per-address 200
      --room-create-rate 100 --room-create-burst 200 --failed-join-rate 100 --failed-join-burst 200
      "${extra[@]}"
    )
    set_value "node${k}_port" "$port"
    set_value "node${k}_admin_port" "$admin_port"
    set_value "node${k}_command" "$(printf '%q ' "${args[@]}")"
  done
  for ((k = 1; k <= nodes; ++k)); do
    start_node "$k" || { down_all; exit 1; }
  done

  write_haproxy_config "$proxy_port" "$stats_port" "$nodes" >"$dir/haproxy.cfg"
  haproxy -c -q -f "$dir/haproxy.cfg" || { down_all; die "haproxy rejected $dir/haproxy.cfg"; }
  local haproxy_command
  haproxy_command=$(printf '%q ' haproxy -db -f "$dir/haproxy.cfg")
  set_value haproxy_command "$haproxy_command"
  eval "exec $haproxy_command" >>"$dir/haproxy.log" 2>&1 </dev/null &
  set_value haproxy_pid "$!"
  for ((k = 1; k <= nodes; ++k)); do
    wait_until 15 "HAProxy to see node $k up" haproxy_sees "$k" UP || { down_all; exit 1; }
  done

  cat "$dir/cluster.env"
  say "up: play at $(value proxy_url)/ (gofish-cli ws://127.0.0.1:$proxy_port), statistics at $(value stats_url)"
  if $foreground; then
    say "Ctrl-C takes it down"
    while true; do sleep 1; done
  fi
}

# haproxy_config PROXY-PORT STATS-PORT NODE-PORT...: docker/haproxy.cfg, the
# one configuration, for this machine (scripts/haproxy-config.sh writes it
# out): HAProxy listens on 127.0.0.1 (the proxy and the statistics on their
# ports), reaches the nodes from 127.0.0.2 (the one address they trust for
# PROXY headers; the script and the tests still reach a node directly from
# 127.0.0.1, with no header), and has one server line per node, nodeK on
# 127.0.0.1 at its port.
haproxy_config() {
  local proxy_port=$1 stats_port=$2 k=0 port servers=()
  shift 2
  for port in "$@"; do servers+=("node$((++k))=127.0.0.1:$port"); done
  # HAProxy refuses to start if it cannot have two descriptors a connection
  # (a container's 4096 is too few for 4096 connections): fit the limit.
  local fds maxconn=4096
  fds=$(ulimit -n)
  if [[ $fds != unlimited ]] && ((fds < 2 * maxconn + 256)); then maxconn=$(((fds - 256) / 2)); fi
  "$root/scripts/haproxy-config.sh" --listen "127.0.0.1:$proxy_port" --stats "127.0.0.1:$stats_port" \
    --source 127.0.0.2 --maxconn "$maxconn" "${servers[@]}"
}

# The configuration for the cluster in $dir: haproxy_config with its ports.
write_haproxy_config() {
  local proxy_port=$1 stats_port=$2 nodes=$3 k ports=()
  for ((k = 1; k <= nodes; ++k)); do ports+=("$(value "node${k}_port")"); done
  haproxy_config "$proxy_port" "$stats_port" "${ports[@]}"
}

down_all() {
  [[ -f $dir/cluster.env ]] || return 0
  local pid k nodes
  pid=$(value haproxy_pid)
  if alive "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
  nodes=$(value nodes)
  for ((k = 1; k <= ${nodes:-0}; ++k)); do
    pid=$(value "node${k}_pid")
    if alive "$pid"; then
      kill -CONT "$pid" 2>/dev/null || true
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done
  for ((k = 1; k <= ${nodes:-0}; ++k)); do
    pid=$(value "node${k}_pid")
    if alive "$pid" && ! wait_until 10 "node $k to stop" node_gone "$k"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  pid=$(value haproxy_pid)
  if alive "$pid"; then sleep 0.2; kill -KILL "$pid" 2>/dev/null || true; fi
  "$root/scripts/pg-throwaway.sh" stop "$dir/postgres.state" || true
  mv "$dir/cluster.env" "$dir/cluster.env.down"
  say "down: $dir"
}

status() {
  local k nodes pid state
  echo "proxy $(value proxy_url) haproxy pid $(value haproxy_pid) $(alive "$(value haproxy_pid)" && echo running || echo stopped)"
  nodes=$(value nodes)
  for ((k = 1; k <= nodes; ++k)); do
    pid=$(value "node${k}_pid")
    state=stopped
    if alive "$pid"; then
      state=running
      [[ $(ps -o stat= -p "$pid") == T* ]] && state=paused  # SIGSTOP
    fi
    local seen=DOWN
    haproxy_sees "$k" UP && seen=UP
    echo "node$k port $(value "node${k}_port") admin $(value "node${k}_admin_port") pid $pid $state readyz $(http_status "$(value "node${k}_port")" /readyz) haproxy $seen"
  done
}

(($#)) || usage
action=$1
shift
case $action in
  up) up "$@" ;;
  haproxy-config)
    (($# >= 3)) || usage
    haproxy_config "$@"
    ;;
  stop-node | start-node | status | down)
    (($# >= 1)) || usage
    dir=$1
    shift
    [[ -f $dir/cluster.env ]] || die "no cluster in $dir (no cluster.env)"
    case $action in
      stop-node)
        (($# == 1 || $# == 3)) || usage
        k=$1 signal=TERM
        if (($# == 3)); then
          [[ $2 == --signal ]] || usage
          signal=$3
        fi
        [[ $signal =~ ^(TERM|KILL|STOP|CONT)$ ]] || usage
        signal_node "$k" "$signal"
        ;;
      start-node)
        (($# == 1)) || { (($# >= 2)) && [[ $2 == -- ]]; } || usage
        k=$1
        shift
        (($# == 0)) || shift
        start_node "$k" "$@"
        ;;
      status) (($# == 0)) || usage; status ;;
      down) (($# == 0)) || usage; down_all ;;
    esac
    ;;
  *) usage ;;
esac
