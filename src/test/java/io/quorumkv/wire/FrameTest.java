package io.quorumkv.wire;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every kind of frame round-trips; a frame of another format version, kind or length is refused, never misread. */
class FrameTest {

  @Test
  void everyKindRoundTripsWithItsIdAndPayload() {
    for (Frame.Kind kind : Frame.Kind.values()) {
      Buffer body = Frame.encode(kind, 42, Buffer.buffer("payload of " + kind));
      assertEquals(WireFormat.VERSION, body.getByte(0), "the format version opens the frame");
      Frame frame = Frame.decode(body, kind);
      assertEquals(kind, frame.kind());
      assertEquals(42, frame.id());
      assertEquals("payload of " + kind, frame.payload().toString());
    }
  }

  @Test
  void aFrameInPartsIsTheSameFrame() {
    Buffer joined = WireParts.join(Frame.encode(Frame.Kind.ANSWERS, 3, java.util.List.of(Buffer.buffer("ab"),
        Buffer.buffer("cd"))));
    assertEquals(Frame.encode(Frame.Kind.ANSWERS, 3, Buffer.buffer("abcd")), joined);
  }

  @Test
  void anotherFormatVersionIsRefusedNamingBoth() {
    Buffer body = Frame.encode(Frame.Kind.OPERATIONS, 0, Buffer.buffer("x"));
    body.setByte(0, (byte) 7);
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> Frame.decode(body, Frame.Kind.OPERATIONS));
    assertEquals("wire format 7, this node speaks " + WireFormat.VERSION, refused.getMessage());
    IllegalArgumentException shortOne = assertThrows(IllegalArgumentException.class,
        () -> Frame.decode(Buffer.buffer(new byte[] {2, 1}), Frame.Kind.OPERATIONS));
    assertEquals("wire format 2, this node speaks " + WireFormat.VERSION, shortOne.getMessage(),
        "the version is checked before anything else");
  }

  @Test
  void truncatedOrLongerBodiesAreRefused() {
    byte[] whole = Frame.encode(Frame.Kind.RECORD, 1, Buffer.buffer("record")).getBytes();
    for (int cut = 0; cut < whole.length; cut++) {
      Buffer truncated = Buffer.buffer(Arrays.copyOf(whole, cut));
      assertThrows(IllegalArgumentException.class, () -> Frame.decode(truncated, Frame.Kind.RECORD), "cut at " + cut);
    }
    Buffer longer = Buffer.buffer(whole).appendByte((byte) 0);
    assertThrows(IllegalArgumentException.class, () -> Frame.decode(longer, Frame.Kind.RECORD));
  }

  @Test
  void anotherKindOrAnUnknownOneIsRefused() {
    Buffer answers = Frame.encode(Frame.Kind.ANSWERS, 0, Buffer.buffer());
    IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
        () -> Frame.decode(answers, Frame.Kind.OPERATIONS));
    assertEquals("frame of kind ANSWERS, expected OPERATIONS", other.getMessage());
    answers.setByte(1, (byte) 0);
    assertThrows(IllegalArgumentException.class, () -> Frame.decode(answers, Frame.Kind.OPERATIONS));
  }
}
