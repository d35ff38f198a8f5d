#!/usr/bin/env python3
"""Ports on 127.0.0.1 for a program that is started later with a fixed port
(HAProxy's backends, a node restarted on its own port, a container's -p).

A port that bind(("127.0.0.1", 0)) hands out comes from the kernel's ephemeral
range, the same range every other `--port 0` server and every outgoing
connection of a parallel test run draws from; one of them can take it between
the pick and the start ("Address already in use"). These ports are drawn at
random from below that range, where only another caller of this picker can
land, and each is checked free when it is picked.

As a command: free_ports.py [N] prints N ports (1 by default) on one line."""
import random
import socket
import sys


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as ranges:
            return int(ranges.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(count):
    """`count` distinct ports on 127.0.0.1, each free when it was picked."""
    high = _ephemeral_low() - 1
    low = min(10000, high - 1000)
    held, ports = [], []
    try:
        for _ in range(count * 200):
            if len(ports) == count:
                return ports
            port = random.randint(low, high)
            if port in ports:
                continue
            probe = socket.socket()
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                probe.close()
                continue
            held.append(probe)
            ports.append(port)
        if len(ports) == count:
            return ports
        raise RuntimeError(f"no {count} free ports between {low} and {high} on 127.0.0.1")
    finally:
        for probe in held:
            probe.close()


def free_port():
    return free_ports(1)[0]


if __name__ == "__main__":
    print(*free_ports(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
