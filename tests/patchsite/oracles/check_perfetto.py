#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Structural check of `patchsite dump --perfetto` that needs no schema.

usage: check_perfetto.py TRACE [NAME=CALLS]...
       check_perfetto.py --events TRACE   (instants named subsys:name, with their annotations)
       check_perfetto.py --annotated TRACE   (every slice, at its end, and every instant that
                                              has debug annotations: name and annotations)

The wire format is decoded here from the protobuf encoding rules alone
(protobuf.dev/programming-guides/encoding), with no code shared with the C
writer, and the structure is checked against the field numbers Perfetto
publishes, written out below with the .proto file and field each comes from
(google/perfetto, protos/perfetto/...).  It prints one line of counts:
  sequences=N threads=N begins=N ends=N instants=N open=N NAME=N...
where NAME=N counts the slices begun under that name; each NAME=CALLS given
must match (the caller takes CALLS from the sample program, the oracle).
Time off the CPU (slices "off-CPU...", instants "sched-...": issue 25) is kept
out of begins, ends and instants and counted at the end of the line as
offcpu=N (slices) sched_instants=N; its slices must nest like the calls.
Exit 1 with the reason on the first violation.
"""
import sys

# trace.proto: Trace.packet = 1
TRACE_PACKET = 1
# trace_packet.proto: TracePacket
TIMESTAMP, CLOCK_SNAPSHOT, SEQ_ID, TRACK_EVENT, INTERNED_DATA = 8, 6, 10, 11, 12
SEQUENCE_FLAGS, TIMESTAMP_CLOCK_ID, DEFAULTS, TRACK_DESCRIPTOR = 13, 58, 59, 60
SEQ_INCREMENTAL_STATE_CLEARED = 1
# trace_packet_defaults.proto: timestamp_clock_id = 58, track_event_defaults = 11
# track_event.proto: TrackEventDefaults.track_uuid = 11; TrackEvent.type = 9,
# name_iid = 10, name = 23, debug_annotations = 4, track_uuid = 11;
# Type: SLICE_BEGIN 1, SLICE_END 2, INSTANT 3; EventName iid = 1, name = 2
TE_TYPE, TE_NAME_IID, TE_NAME = 9, 10, 23
# interned_data.proto: InternedData.event_names = 2
EVENT_NAMES = 2
# clock_snapshot.proto: clocks = 1 { clock_id = 1, timestamp = 2, is_incremental = 3 }
# track_descriptor.proto: uuid = 1, parent_uuid = 5, process = 3, thread = 4
# thread_descriptor.proto: pid = 1, tid = 2, thread_name = 5


def fields(buf):
    """(field, wire type, value) of one message; value: int or bytes."""
    i, out = 0, []

    def varint():
        nonlocal i
        v, shift = 0, 0
        while True:
            if i >= len(buf):
                raise ValueError("varint runs past the end")
            b = buf[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    while i < len(buf):
        key = varint()
        f, w = key >> 3, key & 7
        if w == 0:
            out.append((f, w, varint()))
        elif w == 1:
            out.append((f, w, int.from_bytes(buf[i:i + 8], "little")))
            i += 8
        elif w == 2:
            n = varint()
            if i + n > len(buf):
                raise ValueError("field %d: length %d past the end" % (f, n))
            out.append((f, w, buf[i:i + n]))
            i += n
        elif w == 5:
            i += 4
        else:
            raise ValueError("wire type %d" % w)
    if i != len(buf):
        raise ValueError("message ends inside a field")
    return out


# debug_annotation.proto: DebugAnnotation name = 10, bool_value = 2, uint_value = 3,
# int_value = 4, double_value = 5, string_value = 6, pointer_value = 7
def annotation(buf):
    import struct
    a = fields(buf)
    name = one(a, 10).decode()
    for f, _, v in a:
        if f == 4:
            return name, v - (1 << 64) if v >= 1 << 63 else v
        if f == 3:
            return name, v
        if f == 7:
            return name, hex(v)
        if f == 5:
            return name, struct.unpack("<d", v.to_bytes(8, "little"))[0]
        if f == 6:
            return name, v.decode()
        if f == 2:
            return name, bool(v)
    return name, None


def one(fs, f):
    v = [x[2] for x in fs if x[0] == f]
    return v[0] if v else None


def die(msg):
    print("check_perfetto: " + msg)
    sys.exit(1)


def main():
    events = sys.argv[1] == "--events"
    annotated = sys.argv[1] == "--annotated"
    if events or annotated:
        del sys.argv[1]
    data = open(sys.argv[1], "rb").read()
    want = dict(a.split("=") for a in sys.argv[2:])
    seqs = {}  # id -> {"cleared", "names": {iid: name}, "stack": [], "t": abs ns}
    threads = begins = ends = instants = offcpu = sched_instants = 0
    by_name = {}
    for f, w, pkt in fields(data):
        if f != TRACE_PACKET or w != 2:
            die("top level: field %d is not Trace.packet" % f)
        p = fields(pkt)
        sid = one(p, SEQ_ID)
        if sid is None:
            die("a packet without trusted_packet_sequence_id")
        q = seqs.setdefault(sid, {"cleared": False, "names": {}, "stack": [], "t": None,
                                  "incr": False})
        flags = one(p, SEQUENCE_FLAGS) or 0
        if flags & SEQ_INCREMENTAL_STATE_CLEARED:
            q["cleared"] = True
            q["names"] = {}
            cs = fields(one(p, CLOCK_SNAPSHOT) or b"")
            for cf, _, clk in cs:
                if cf != 1:
                    continue
                c = fields(clk)
                if one(c, 1) == 64 and one(c, 3) == 1:
                    q["incr"] = True
                    q["t"] = one(c, 2)
            d = fields(one(p, DEFAULTS) or b"")
            if one(d, 58) != 64 or one(fields(one(d, 11) or b""), 11) is None:
                die("seq %d: defaults lack clock 64 or a track_uuid" % sid)
            if not q["incr"]:
                die("seq %d: no incremental clock 64 in its clock snapshot" % sid)
        td = one(p, TRACK_DESCRIPTOR)
        if td is not None:
            t = fields(td)
            if one(t, 4) is not None:
                th = fields(one(t, 4))
                if one(th, 1) is None or one(th, 2) is None or one(t, 5) is None:
                    die("a thread descriptor without pid, tid or parent")
                threads += 1
            elif one(t, 3) is None:
                die("a track descriptor neither process nor thread")
        te = one(p, TRACK_EVENT)
        if te is None:
            continue
        if not q["cleared"]:
            die("seq %d: a track event before SEQ_INCREMENTAL_STATE_CLEARED" % sid)
        if one(p, TIMESTAMP_CLOCK_ID) is None:
            q["t"] += one(p, TIMESTAMP) or 0
        for _, _, idata in [x for x in p if x[0] == INTERNED_DATA]:
            for nf, _, en in fields(idata):
                if nf == EVENT_NAMES:
                    e = fields(en)
                    q["names"][one(e, 1)] = one(e, 2).decode()
        e = fields(te)
        typ = one(e, TE_TYPE)
        iid = one(e, TE_NAME_IID)
        if iid is not None and iid not in q["names"]:
            die("seq %d: name_iid %d not interned before use" % (sid, iid))
        name = q["names"].get(iid) if iid is not None else (one(e, TE_NAME) or b"").decode()
        annots = dict(annotation(a) for f, _, a in e if f == 4)
        if typ == 1 and name.startswith("off-CPU"):
            offcpu += 1
            q["stack"].append((q["t"], name, annots))
        elif typ == 1:
            begins += 1
            by_name[name] = by_name.get(name, 0) + 1
            q["stack"].append((q["t"], name, annots))
        elif typ == 2:
            if not q["stack"]:
                die("seq %d: a slice end with no slice open" % sid)
            t0, bname, bannots = q["stack"].pop()
            ends += not bname.startswith("off-CPU")
            if t0 > q["t"]:
                die("seq %d: a slice ends before it begins" % sid)
            if annotated and (bannots or annots):
                print(repr((bname, dict(bannots, **annots))))
        elif typ == 3 and name.startswith("sched-"):
            sched_instants += 1
        elif typ == 3:
            if (events and ":" in name) or (annotated and annots):
                print(repr((name, annots)))
            instants += 1
            by_name[name] = by_name.get(name, 0) + 1
        else:
            die("track event type %r" % typ)
    opened = sum(len(q["stack"]) for q in seqs.values())
    if events or annotated:
        return
    print("sequences=%d threads=%d begins=%d ends=%d instants=%d open=%d" %
          (len(seqs), threads, begins, ends, instants, opened) +
          "".join(" %s=%s" % (k, by_name.get(k, 0)) for k in want) +
          " offcpu=%d sched_instants=%d" % (offcpu, sched_instants))
    for k, v in want.items():
        if by_name.get(k, 0) != int(v):
            die("%s: %d events, expected %s" % (k, by_name.get(k, 0), v))


if __name__ == "__main__":
    main()
