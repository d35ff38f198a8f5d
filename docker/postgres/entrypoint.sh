#!/bin/bash
# Starts PostgreSQL in the foreground (as PID 1, so it gets the container's
# stop signal), making its cluster first when $PGDATA has none: see
# docker/postgres/Dockerfile for the environment it reads.
set -euo pipefail

user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
say() { echo "postgres-entrypoint: $*" >&2; }

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  if [[ -z ${POSTGRES_PASSWORD:-} ]]; then
    say "the data directory $PGDATA is empty, and POSTGRES_PASSWORD is not set: the first start makes the superuser $user with that password"
    exit 1
  fi
  say "making a cluster in $PGDATA: superuser $user, database $database"
  initdb --pgdata="$PGDATA" --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
    --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  # Other containers (the gofish nodes) connect over the network, with the password.
  printf '%s\n' "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  printf '%s\n' "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  if [[ $database != postgres ]]; then
    # Started on a socket of its own while the database is made: nothing
    # else connects, and the health check does not pass yet.
    socket=$(mktemp -d)
    pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses='' -c unix_socket_directories=$socket" --wait --silent start
    psql --quiet --no-psqlrc --set=ON_ERROR_STOP=1 --host="$socket" --username="$user" --dbname=postgres \
      --set=name="$database" <<<'CREATE DATABASE :"name";'
    pg_ctl --pgdata="$PGDATA" --mode=fast --wait --silent stop
    rmdir "$socket"
  fi
fi

exec postgres -D "$PGDATA" "$@"
