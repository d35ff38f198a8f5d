# The limits every benchmark lifts on gofish-server, sourced by bench/run,
# bench/where, bench/ab and bench/cluster so that they load the same server:
# closed-loop players are neither throttled nor capped.
#
# bench_limit_flags: the message rate, connections, rooms, and no bot delay.
# bench_address_flags: what one address may hold and create (gofish-load
# spreads its players over 8 loopback addresses, so the defaults would cap it).
# shellcheck shell=bash disable=SC2034
bench_limit_flags=(--message-rate 100000 --message-burst 100000 --max-connections 50000 --max-rooms 20000
                   --bot-delay-ms 0)
bench_address_flags=(--max-connections-per-address=50000 --max-sockets-per-address=50000
                     --max-rooms-per-address=20000 --room-create-burst=20000 --room-create-rate=100000)
