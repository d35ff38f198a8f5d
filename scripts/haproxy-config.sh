#!/usr/bin/env bash
# Prints docker/haproxy.cfg, the one HAProxy configuration, for nodes that are
# not compose services: scripts/cluster.sh writes its loopback cluster's
# configuration with it, and docs/OPERATIONS.md the one of machines of your
# own (/etc/haproxy/haproxy.cfg).
#
#   scripts/haproxy-config.sh [--tls-cert PEM [--tls-listen ADDRESS:PORT]] [--listen ADDRESS:PORT]
#                             [--stats ADDRESS:PORT] [--source ADDRESS] [--maxconn N] [--compose]
#                             NAME=ADDRESS:PORT...
#
# One server line per NAME=ADDRESS:PORT (the node id is a good name), with
# the options of the file's first server line. Without --tls-cert the
# configuration has no TLS: the file's TLS lines (the global ssl- settings,
# the "bind :8443 ssl" line, the redirect to HTTPS and the HSTS header) are
# left out with the comments that lead them, and HAProxy serves players on
# plain HTTP at "bind :8080" (scripts/cluster.sh, or a TLS terminator of
# your own in front). --tls-cert PEM keeps them, with PEM (certificate,
# chain, then key, in one file HAProxy can read) in place of
# /etc/haproxy/certs/gofish.pem; --tls-listen replaces its ":8443". The
# redirect names the HTTPS port from GOFISH_HTTPS_PORT in HAProxy's
# environment (443 unless set). --listen replaces the plain "bind :8080",
# --stats the statistics page's "bind :8404" (keep that one on a private
# address), --source adds "source ADDRESS" to the backend (the address
# HAProxy reaches the nodes from, when the machine has several and the
# nodes trust one), --maxconn replaces the global maxconn. Compose's
# resolvers (its DNS for the service names) are left out, with the comments
# that lead them, unless --compose says the nodes are compose services too:
# docker/haproxy-single.cfg, the single node's of docker/compose.yaml, is
#   scripts/haproxy-config.sh --compose --tls-cert /etc/haproxy/certs/gofish.pem gofish=gofish:8080
# Every other line, comments included, is the file's own: the test
# docker_cluster_config holds the output to that (and docker/haproxy-single.cfg
# to that command's output).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  sed -n '/^#   scripts/,/^#$/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

listen=:8080 stats=:8404 source="" maxconn="" tls_cert="" tls_listen=:8443 compose=""
servers=()
arguments="$*"
while (($#)); do
  case $1 in
    --compose) compose=1; shift ;;
    --tls-cert) tls_cert=$2; shift 2 ;;
    --tls-listen) tls_listen=$2; shift 2 ;;
    --listen) listen=$2; shift 2 ;;
    --stats) stats=$2; shift 2 ;;
    --source) source=$2; shift 2 ;;
    --maxconn) maxconn=$2; shift 2 ;;
    -*) usage ;;
    *=*:*) servers+=("$1"); shift ;;
    *) usage ;;
  esac
done
((${#servers[@]})) || usage
[[ -z $maxconn || $maxconn =~ ^[1-9][0-9]*$ ]] || usage

[[ $tls_cert != *[[:space:]]* ]] || usage

if [[ -n $tls_cert ]]; then
  echo "# Written by scripts/haproxy-config.sh from docker/haproxy.cfg (see there for the reasons)."
else
  echo "# Written by scripts/haproxy-config.sh from docker/haproxy.cfg (see there for the reasons), without TLS."
fi
echo "#   scripts/haproxy-config.sh $arguments"
awk -v listen="$listen" -v stats="$stats" -v source="$source" -v maxconn="$maxconn" -v servers="${servers[*]}" \
    -v tls_cert="$tls_cert" -v tls_listen="$tls_listen" -v compose="$compose" '
  # Comment lines are held until the line they lead shows whether they go with it.
  function flush() { if (held != "") printf "%s", held; held = "" }
  BEGIN { n = split(servers, server, " "); header = 1 }
  # The file'"'"'s own opening comment: replaced by the line above.
  header && /^#/ { next }
  { header = 0 }
  /^[ \t]*#/ { held = held $0 "\n"; next }
  # The resolvers section, to the blank line after it, and the comment before
  # it; kept for nodes that are compose services.
  /^resolvers / && compose == "" { held = ""; skipping = 1; next }
  skipping && /^$/ { skipping = 0; next }
  skipping { next }
  /^[ \t]*default-server .*resolvers / && compose == "" { held = ""; next }
  # TLS: kept with --tls-cert (its certificate and port), else left out with its comments.
  /^[ \t]*(ssl-default-bind-|bind :8443 ssl |http-request redirect location "https:|http-response set-header Strict-Transport-Security)/ {
    if (tls_cert == "") { held = ""; next }
    flush()
    if ($0 ~ /bind :8443 ssl /) { sub(/:8443/, tls_listen); sub(/crt [^ \t]+/, "crt " tls_cert) }
    print; next
  }
  /^[ \t]*maxconn [0-9]+$/ && maxconn != "" { flush(); sub(/maxconn [0-9]+/, "maxconn " maxconn); print; next }
  /^[ \t]*bind :8080$/ { flush(); sub(/:8080/, listen); print; next }
  /^[ \t]*bind :8404$/ { flush(); sub(/:8404/, stats); print; next }
  /^backend / {
    flush(); print
    if (source != "") {
      print "    # HAProxy reaches the nodes from this address (the one they trust for"
      print "    # PROXY headers)."
      print "    source " source
    }
    next
  }
  /^[ \t]*server / {
    flush()
    if (seen++) next
    indent = $0; sub(/[^ \t].*/, "", indent)
    options = $0; sub(/^[ \t]*server[ \t]+[^ \t]+[ \t]+[^ \t]+/, "", options)
    for (k = 1; k <= n; ++k) {
      eq = index(server[k], "=")
      printf "%sserver %s %s%s\n", indent, substr(server[k], 1, eq - 1), substr(server[k], eq + 1), options
    }
    next
  }
  { flush(); print }
  END { flush() }
' "$root/docker/haproxy.cfg"
