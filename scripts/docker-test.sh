#!/usr/bin/env bash
# Proves that docker/Dockerfile makes a working image: builds it, runs it,
# waits for /healthz, plays a whole bot game through it with gofish-cli --bot,
# checks that the server runs as a non-root user and that SIGTERM stops it
# cleanly within a few seconds. Then the image once more as docker/compose.yaml's
# comments have the server end TLS itself, with the self-signed certificate
# their command makes: its HEALTHCHECK (on the plain operator port), the
# plain port's redirect, and a bot game over wss:// with gofish-cli
# --ca-file. Cleans up what it started.
#
#   scripts/docker-test.sh --cli build/clients/cli/gofish-cli
#   scripts/docker-test.sh --cli build/clients/cli/gofish-cli --image localhost/gofish:TAG
#
# With --image it tests that image, built before by scripts/image-build.sh
# (podman; the test suite's fixture gofish_images), and leaves it in place;
# without, it builds the image itself and removes it at the end.
#
# It uses docker where a Docker engine answers, and podman otherwise, as
# scripts/container-setup.sh makes them ready (podman with a configuration
# and storage of its own, and the base image made with debootstrap where no
# registry can give it).
#
# Environment: GOFISH_IMAGE_STATE (default /var/tmp/gofish-image-test) holds
# the podman storage and the base image between runs (scripts/container-setup.sh);
# GOFISH_IMAGE_TAG names the image built (default localhost/gofish:test).
set -euo pipefail
cd "$(dirname "$0")/.."

cli=""
prebuilt=""
while (($#)); do
  case $1 in
    --cli) cli=$2; shift 2 ;;
    --image) prebuilt=$2; shift 2 ;;
    *) echo "usage: $0 --cli PATH-TO-gofish-cli [--image IMAGE]" >&2; exit 2 ;;
  esac
done
[[ -x $cli ]] || { echo "docker-test: gofish-cli not found at '$cli' (pass --cli)" >&2; exit 2; }
cli=$(realpath "$cli")

tag=${prebuilt:-${GOFISH_IMAGE_TAG:-localhost/gofish:test}}
container=gofish-test-$$
tls_container=gofish-tls-test-$$
certs=""
log() { printf 'docker-test: %s\n' "$*"; }

setup_flags=()
[[ -n $prebuilt ]] && setup_flags=(--podman)  # where scripts/image-build.sh built it
setup=$(scripts/container-setup.sh "${setup_flags[@]}") || exit 1
while IFS='=' read -r key value; do
  case $key in
    state) state=$value ;;
    engine) engine=("$value") ;;
    *) export "$key=$value" ;;
  esac
done <<<"$setup"

cleanup() {
  local status=$?
  "${engine[@]}" rm -f "$container" "$tls_container" >/dev/null 2>&1 || true
  [[ -z $certs ]] || rm -rf "$certs"
  [[ -n $prebuilt ]] || "${engine[@]}" rmi -f "$tag" >/dev/null 2>&1 || true
  exit "$status"
}
trap cleanup EXIT

if [[ -n $prebuilt ]]; then
  "${engine[@]}" image exists "$tag" || { echo "docker-test: no image $tag (scripts/image-build.sh builds it)" >&2; exit 1; }
  log "testing $tag; image size $("${engine[@]}" image inspect --format '{{.Size}}' "$tag") bytes"
else
  log "building $tag from docker/Dockerfile"
  start=$SECONDS
  build_flags=(--pull=never)
  # podman writes OCI images by default, and OCI has no HEALTHCHECK.
  [[ ${engine[0]} == podman ]] && build_flags+=(--format docker)
  "${engine[@]}" build "${build_flags[@]}" -f docker/Dockerfile -t "$tag" . > "$state/build.log" 2>&1 \
    || { tail -n 60 "$state/build.log" >&2; exit 1; }
  log "built in $((SECONDS - start)) s; image size $("${engine[@]}" image inspect --format '{{.Size}}' "$tag") bytes"
fi

port=$(python3 scripts/free_ports.py)
"${engine[@]}" run -d --name "$container" -p "127.0.0.1:$port:8080" \
  -e GOFISH_BOT_DELAY_MS=0 -e GOFISH_LOG_LEVEL=info "$tag" >/dev/null
log "container $container on 127.0.0.1:$port"

for ((i = 0; i < 100; i++)); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { "${engine[@]}" logs "$container" >&2; echo "docker-test: /healthz never answered" >&2; exit 1; }
log "/healthz answers"
"${engine[@]}" healthcheck run "$container" >/dev/null 2>&1 && log "the image's HEALTHCHECK passes" \
  || { [[ ${engine[0]} == docker ]] || { echo "docker-test: the image's HEALTHCHECK failed" >&2; exit 1; }; }

uid=$("${engine[@]}" exec "$container" id -u)
[[ $uid != 0 ]] || { echo "docker-test: the server runs as root" >&2; exit 1; }
log "the server runs as uid $uid ($("${engine[@]}" exec "$container" id -un))"

# A whole game through the container: this client is the host and a bot,
# the server fills the other seats with its own bots.
log "playing a bot game through the container"
summary=$(timeout 120 "$cli" "ws://127.0.0.1:$port" --name Robo --create --preset classic --seats 3 \
  --bots medium,easy --bot hard --games 1 --start-when-full --no-color) \
  || { printf '%s\n' "$summary" >&2; "${engine[@]}" logs "$container" | tail -n 30 >&2; echo "docker-test: the bot game failed" >&2; exit 1; }
printf '%s\n' "$summary" | tail -n 5
grep -qi "winner" <<<"$summary" || { echo "docker-test: the game's summary names no winner" >&2; exit 1; }

log "sending SIGTERM"
start_ns=$(date +%s%N)
"${engine[@]}" kill --signal TERM "$container" >/dev/null
code=$(timeout 20 "${engine[@]}" wait "$container")
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
[[ $code == 0 ]] || { "${engine[@]}" logs "$container" | tail -n 20 >&2; echo "docker-test: exit code $code after SIGTERM" >&2; exit 1; }
((elapsed_ms <= 10000)) || { echo "docker-test: took ${elapsed_ms} ms to stop" >&2; exit 1; }
log "stopped cleanly (exit 0) ${elapsed_ms} ms after SIGTERM"

# The server ending TLS itself, as docker/compose.yaml's comments set it up,
# with the self-signed certificate their command makes (here in a folder of
# this run's): the certificate is its own authority for gofish-cli and curl.
certs=$(mktemp -d "${TMPDIR:-/tmp}/gofish-docker-test-certs.XXXXXX")
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
  -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
  -keyout "$certs/privkey.pem" -out "$certs/fullchain.pem" 2>"$certs/openssl.log" \
  || { cat "$certs/openssl.log" >&2; echo "docker-test: openssl could not make a certificate" >&2; exit 1; }
chmod 755 "$certs" && chmod 644 "$certs"/*.pem  # the container's user gofish reads them
read -r tls_port redirect_port < <(python3 scripts/free_ports.py 2)
"${engine[@]}" run -d --name "$tls_container" -p "127.0.0.1:$tls_port:8443" -p "127.0.0.1:$redirect_port:8080" \
  -v "$certs:/etc/gofish/tls:ro" -e GOFISH_PORT=8443 -e GOFISH_TLS_CERT=/etc/gofish/tls/fullchain.pem \
  -e GOFISH_TLS_KEY=/etc/gofish/tls/privkey.pem -e GOFISH_HTTP_REDIRECT_PORT=8080 \
  -e GOFISH_BOT_DELAY_MS=0 "$tag" >/dev/null
log "container $tls_container ending TLS itself on 127.0.0.1:$tls_port, redirecting on 127.0.0.1:$redirect_port"
https=(curl -fsS --cacert "$certs/fullchain.pem")
for ((i = 0; i < 100; i++)); do
  "${https[@]}" "https://127.0.0.1:$tls_port/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
"${https[@]}" "https://127.0.0.1:$tls_port/healthz" >/dev/null \
  || { "${engine[@]}" logs "$tls_container" >&2; echo "docker-test: /healthz over HTTPS never answered" >&2; exit 1; }
hsts=$("${https[@]}" -o /dev/null -D - "https://127.0.0.1:$tls_port/" | tr -d '\r' | grep -i '^strict-transport-security:' || true)
[[ -n $hsts ]] || { echo "docker-test: the page over HTTPS has no HSTS header" >&2; exit 1; }
redirect=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$redirect_port/r/K7QXM")
[[ $redirect == "308 https://127.0.0.1:8443/r/K7QXM" ]] \
  || { echo "docker-test: the plain port answers '$redirect', not 308 to https://127.0.0.1:8443/r/K7QXM" >&2; exit 1; }
log "HTTPS answers with $hsts; the plain port redirects ($redirect)"
if [[ ${engine[0]} == podman ]]; then
  "${engine[@]}" healthcheck run "$tls_container" >/dev/null 2>&1 \
    || { echo "docker-test: the image's HEALTHCHECK fails while the main port speaks TLS" >&2; exit 1; }
  log "the image's HEALTHCHECK passes while the main port speaks TLS"
fi
summary=$(timeout 120 "$cli" "wss://127.0.0.1:$tls_port" --ca-file "$certs/fullchain.pem" --name Robo --create \
  --preset classic --seats 3 --bots medium,easy --bot hard --games 1 --start-when-full --no-color 2>&1) \
  || { printf '%s\n' "$summary" >&2; "${engine[@]}" logs "$tls_container" | tail -n 30 >&2
       echo "docker-test: the bot game over wss:// failed" >&2; exit 1; }
grep -qi "winner" <<<"$summary" || { printf '%s\n' "$summary" >&2; echo "docker-test: the wss:// game's summary names no winner" >&2; exit 1; }
log "a bot game over wss:// with --ca-file: $(tail -n 1 <<<"$summary")"
"${engine[@]}" rm -f "$tls_container" >/dev/null
log "passed"
