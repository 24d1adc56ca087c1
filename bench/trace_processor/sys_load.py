#!/usr/bin/env python3
"""Load for make_traces.sh's ftrace recording, until the epoch second END.

    sys_load.py pingpong END   two processes pass a byte back and forth in
                               bursts: sched switches, wakings, wakeups
    sys_load.py marker END     nested trace_marker slices (ftrace/print),
                               about a thousand requests a second
"""
import os
import sys
import time


def pingpong(end):
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    if os.fork() == 0:
        os.close(a_w)
        while os.read(a_r, 1):
            os.write(b_w, b"x")
        os._exit(0)
    while time.time() < end:
        for _ in range(50):
            os.write(a_w, b"x")
            os.read(b_r, 1)
        time.sleep(0.01)
    os.close(a_w)
    os.wait()


def marker(end):
    fd = os.open("/sys/kernel/tracing/trace_marker", os.O_WRONLY)
    pid = os.getpid()
    n = 0
    while time.time() < end:
        # A request: handle > parse > (lookup, decode), then handle > reply.
        for name in (b"handle", b"parse", b"lookup"):
            os.write(fd, b"B|%d|%s %d" % (pid, name, n % 50))
        os.write(fd, b"E|%d" % pid)
        os.write(fd, b"B|%d|decode" % pid)
        os.write(fd, b"E|%d" % pid)
        os.write(fd, b"E|%d" % pid)
        os.write(fd, b"B|%d|reply" % pid)
        os.write(fd, b"E|%d" % pid)
        os.write(fd, b"E|%d" % pid)
        n += 1
        time.sleep(0.001)


if __name__ == "__main__":
    {"pingpong": pingpong, "marker": marker}[sys.argv[1]](int(sys.argv[2]))
