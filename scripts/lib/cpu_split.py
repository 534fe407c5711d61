#!/usr/bin/env python3
"""cpu_split.py REQUESTS FILE: async-profiler's collapsed CPU samples (1 ms each) as microseconds per
request, by where the time went: RocksDB's parts, the kernel's, then the innermost frame naming a
library layer. Prints a markdown column: label and value per line, tab-separated."""
import collections
import re
import sys

# Checked in this order over the whole stack (first match wins): a RocksDB write's WAL syscall
# counts as the WAL, not as a kernel write.
STACK_RULES = [
    ("JIT and GC", lambda t, s: re.match(r"\[(C1|C2|G1|GC|VM |Sweeper|Service)", t) is not None),
    ("RocksDB flushes and compactions", lambda t, s: "rocksdb:" in t or "FlushJob" in s or "CompactionJob" in s),
    ("RocksDB reads", lambda t, s: "DBImpl::Get" in s or "GetImpl" in s or "MultiGet" in s),
    ("RocksDB memtable inserts", lambda t, s: "MemTableInserter" in s or "MemTable::Add" in s),
    ("RocksDB WAL", lambda t, s: "WriteToWAL" in s or "log::Writer" in s or "WritableFileWriter" in s),
    ("RocksDB, the rest", lambda t, s: "rocksdb::" in s or "Java_org_rocksdb" in s),
    ("futexes and parking (hand-offs)", lambda t, s: "sys_futex" in s or "sched_yield" in s
     or "Unsafe_Park" in s or "Unsafe_Unpark" in s),
    ("event-loop wake-ups (eventfd)", lambda t, s: "eventFdWrite" in s or "eventfd_write" in s),
    ("the response's send (kernel)", lambda t, s: re.search(r"sys_(sendto|writev|sendmsg|write)_", s) is not None),
    ("the request's read (kernel)", lambda t, s: re.search(r"sys_(recvfrom|read|readv|recvmsg)_", s) is not None),
    ("epoll (kernel)", lambda t, s: re.search(r"sys_epoll|epoll_pwait|epoll_wait", s) is not None),
    ("the kernel, the rest", lambda t, s: "_[k]" in s),
]
LAYERS = [("Micrometer", "io/micrometer"), ("quorumkv's own code", "io/quorumkv"), ("vertx-web", "io/vertx/ext/web"),
          ("Netty's HTTP codec", "io/netty/handler/codec"), ("Vert.x core", "io/vertx"), ("Netty", "io/netty"),
          ("one-nio", "one/nio"), ("the JDK", "java/"), ("the JDK", "jdk/"), ("the JDK", "sun/")]


def classify(stack):
    frames = stack.split(";")
    thread = frames[0]
    for name, rule in STACK_RULES:
        if rule(thread, stack):
            return name
    for frame in reversed(frames):
        path = frame.replace(".", "/")
        for name, prefix in LAYERS:
            if prefix in path:
                return name
    return "other"


def main():
    requests = float(sys.argv[1])
    totals = collections.Counter()
    for line in open(sys.argv[2]):
        stack, _, count = line.rstrip().rpartition(" ")
        if stack:
            totals[classify(stack)] += int(count)
    print(f"all\t{sum(totals.values()) * 1000 / requests:.1f}")
    for name, _ in STACK_RULES:
        print(f"{name}\t{totals[name] * 1000 / requests:.1f}")
    for name in dict.fromkeys(n for n, _ in LAYERS):
        print(f"{name}\t{totals[name] * 1000 / requests:.1f}")
    print(f"other\t{totals['other'] * 1000 / requests:.1f}")


if __name__ == "__main__":
    main()
