/**
 * The one wire format of every internal stream and binary body (docs/architecture.md, "The wire
 * format"): {@code Frame} (format version | kind | id | payload length | payload; the kinds in one
 * table, {@code Frame.Kind}), {@code WireFormat} (the one version this node speaks: a frame of
 * another is refused with an error naming both, never misread), {@code FrameReader} (cuts a
 * connection's bytes into frames, each payload read only once its {@code Gate} admits it),
 * {@code RecordLayout} (a record on the wire, the only code that writes its layout),
 * {@code WireParts} (a payload in parts: large values wrapped, not copied), {@code WireReader}
 * (bounds-checked reading) and {@code BatchOperations} (a batch's reads and writes, sent by
 * coordinators and by the restore tool). Below every protocol that uses it (replication, range,
 * topology, backup); it knows none of them.
 */
package io.quorumkv.wire;
