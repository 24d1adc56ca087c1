#!/usr/bin/env python3
"""Slow and many connections against trace_processor --httpd.

    http_load.py BIN TRACE [--slow N] [--many N] [--seconds S]

Starts BIN --httpd on a free loopback port with TRACE, then:
  slow: N connections send a request line and one header byte a second
        (slowloris); every second, how many the server still holds and how
        long a fresh GET /status takes;
  many: N connections at once, each a POST /query, all answered?
Only 127.0.0.1 is ever contacted; every loop is bounded in count and time.
"""
import argparse
import socket
import statistics
import subprocess
import sys
import threading
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def status_ms(port):
    t = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Connection: close\r\n\r\n")
    ok = s.recv(12) == b"HTTP/1.1 200"
    s.close()
    return (time.monotonic() - t) * 1000, ok


def slow_run(port, n, seconds):
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /status HTTP/1.1\r\nX: ")
        s.setblocking(False)
        socks.append(s)
    lat, failures = [], 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        held = []
        for s in socks:
            try:
                if s.recv(1) == b"":
                    s.close()
                    continue
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                continue
            try:
                s.send(b"a")
                held.append(s)
            except OSError:
                s.close()
        socks = held
        ms, ok = status_ms(port)
        lat.append(ms)
        failures += not ok
        print("slow: t=%4.1fs held=%3d /status %.2f ms" %
              (time.monotonic() - t0, len(socks), ms))
        time.sleep(1)
    for s in socks:
        s.close()
    print("slow: %d connections, /status median %.2f ms, max %.2f ms, "
          "%d failed" % (n, statistics.median(lat), max(lat), failures))


def many_run(port, n):
    q = b"select count(*) from slice"
    body = bytes([0x0a, len(q)]) + q
    req = (b"POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
           + body)
    results = []
    barrier = threading.Barrier(n)

    def one():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            barrier.wait(timeout=30)
            s.sendall(req)
            results.append(s.recv(12) == b"HTTP/1.1 200")
            s.close()
        except Exception:
            results.append(False)

    t = time.monotonic()
    threads = [threading.Thread(target=one) for _ in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    print("many: %d at once: %d answered 200, %d not, in %.2f s" %
          (n, sum(results), n - sum(results), time.monotonic() - t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("trace")
    ap.add_argument("--slow", type=int, default=300)
    ap.add_argument("--many", type=int, default=400)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("extra", nargs="*", help="more trace_processor flags")
    a = ap.parse_args()
    port = free_port()
    p = subprocess.Popen([a.bin, "--httpd", "--http-port", str(port)] +
                         a.extra + [a.trace], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                status_ms(port)
                break
            except OSError:
                time.sleep(0.1)
        if a.slow:
            slow_run(port, a.slow, a.seconds)
        if a.many:
            many_run(port, a.many)
    finally:
        p.terminate()
        p.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
