#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Raw requests on a control socket (patchsite/ctl/proto.h), for ctl.sh:
#   ctlpoke.py SOCKET request OP NAME [VALUE]   a well-formed request: prints
#                                             "status errno" then the text
#   ctlpoke.py SOCKET hostile SEED              random, truncated, oversized and
#                                             stalled requests; prints one line per kind
import random, socket, struct, sys, time

def conn(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s

def req(op, name, value=b""):
    return b"PSCQ" + struct.pack("<BBHI", 1, op, len(name), len(value)) + name + value

def reply(s):
    data = b""
    try:
        while True:
            k = s.recv(65536)
            if not k:
                break
            data += k
    except (ConnectionResetError, socket.timeout):
        pass
    if len(data) < 12 or data[:4] != b"PSCR":
        return None
    _, status, err, n = struct.unpack("<BBHI", data[4:12])
    return status, err, data[12:12 + n]

def send_get(path, payload, close_write=True):
    s = conn(path)
    try:
        s.sendall(payload)
        if close_write:
            s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    r = reply(s)
    s.close()
    return r

def main():
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "request":
        op = {"read": 1, "write": 2, "append": 3, "list": 4}[sys.argv[3]]
        r = send_get(path, req(op, sys.argv[4].encode(),
                                sys.argv[5].encode() if len(sys.argv) > 5 else b""))
        if r is None:
            print("noreply")
        else:
            print(r[0], r[1])
            sys.stdout.write(r[2].decode(errors="replace"))
        return
    rnd = random.Random(int(sys.argv[3]))
    # Random bytes, of many lengths: a reply saying why, or a close; never a hang.
    bad = 0
    for i in range(200):
        junk = bytes(rnd.getrandbits(8) for _ in range(rnd.choice([1, 5, 12, 40, 300, 5000])))
        if rnd.random() < 0.5:
            junk = b"PSCQ" + junk	# past the magic, into the fields
        r = send_get(path, junk)
        bad += r is not None and r[0] == 1
    print("random", bad)
    # Oversized lengths: refused from the header, before any allocation.
    r = send_get(path, b"PSCQ" + struct.pack("<BBHI", 1, 1, 0xffff, 0xffffffff))
    print("oversized", r[0] if r else "noreply", r[1] if r else "")
    # Unknown version and op.
    r = send_get(path, b"PSCQ" + struct.pack("<BBHI", 9, 1, 4, 0) + b"xxxx")
    print("version", r[0] if r else "noreply", r[1] if r else "")
    r = send_get(path, b"PSCQ" + struct.pack("<BBHI", 1, 77, 4, 0) + b"xxxx")
    print("op", r[0] if r else "noreply", r[1] if r else "")
    # A NUL inside a name.
    r = send_get(path, req(1, b"tracing_on\0x"))
    print("nul", r[0] if r else "noreply", r[1] if r else "")
    # Truncated: the header promises more than comes, then the client closes.
    r = send_get(path, req(2, b"tracing_on", b"1")[:-3])
    print("truncated", "noreply" if r is None else r[0])
    # Stalled: half a header and silence; the channel gives up on it, the next client is served.
    s = conn(path)
    s.sendall(b"PSC")
    t0 = time.time()
    r = send_get(path, req(1, b"tracing_on"))
    print("after-stall", r[0] if r else "noreply", r[2].decode().strip() if r else "",
          "waited<5s" if time.time() - t0 < 5 else "waited>=5s")
    s.close()

main()
