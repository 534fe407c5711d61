package io.quorumkv.http;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.BatchAnswers;
import io.quorumkv.replication.BatchAnswers.Answer;
import io.quorumkv.replication.InternalProtocol;
import io.quorumkv.storage.Record;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestNode;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.BatchOperations.Operation;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.WireParts;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /internal/v0/records/stream} on a real node, spoken over a plain socket: the upgrade, the
 * secret, batch frames answered by id, and a malformed frame closing the connection.
 */
class BatchStreamApiTest {
  private static final String SECRET = "stream-secret";
  @TempDir
  static Path dataDir;
  static TestNode node;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(TestNode.config(dataDir, new JsonObject().put("clusterSecret", SECRET)),
        InstantSource.system());
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void framesInFlightTogetherAreEachAnsweredByTheirId() throws IOException {
    try (Socket socket = upgraded(SECRET)) {
      Record written = Record.live(node.node().clock().current() + 1, bytes("streamed"), 0);
      writeFrame(socket, 7, List.of(new Operation(bytes("s-1"), written)));
      writeFrame(socket, 8, List.of(new Operation(bytes("s-2"), null), new Operation(bytes("s-3"), null)));
      Map<Long, List<Answer>> answers = new HashMap<>();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      for (int i = 0; i < 2; i++) {
        Frame frame = readFrame(in);
        answers.put(frame.id(), BatchAnswers.decodePayload(frame.payload()));
      }
      assertTrue(answers.get(7L).get(0).write().stored(), "the write's answer: " + answers.get(7L));
      assertEquals(2, answers.get(8L).size(), "one answer per read");
      writeFrame(socket, 9, List.of(new Operation(bytes("s-1"), null)));
      Frame frame = readFrame(in);
      assertEquals(9L, frame.id());
      assertArrayEquals(bytes("streamed"), BatchAnswers.decodePayload(frame.payload()).get(0).record().value());
    }
    assertEquals("streamed", Http.text(node.http.get("/v0/entity?id=s-1")));
  }

  @Test
  void aMalformedFrameClosesTheConnection() throws IOException {
    try (Socket socket = upgraded(SECRET)) {
      OutputStream out = socket.getOutputStream();
      out.write(new byte[] {0, 0, 0, 3, 1, 2, 3});
      out.flush();
      assertEquals(-1, socket.getInputStream().read(), "closed, nothing answered");
    }
  }

  @Test
  void anUpgradeWithoutTheSecretOrTheProtocolIsRefused() throws IOException {
    assertTrue(upgradeAnswer(null, InternalProtocol.STREAM_UPGRADE).startsWith("HTTP/1.1 403"));
    assertTrue(upgradeAnswer("wrong", InternalProtocol.STREAM_UPGRADE).startsWith("HTTP/1.1 403"));
    assertTrue(upgradeAnswer(SECRET, "websocket-or-else").startsWith("HTTP/1.1 400"));
  }

  private static Socket upgraded(String secret) throws IOException {
    Socket socket = new Socket("127.0.0.1", node.port());
    socket.setSoTimeout(10_000);
    String head = upgrade(socket, secret, InternalProtocol.STREAM_UPGRADE);
    assertTrue(head.startsWith("HTTP/1.1 101"), head);
    return socket;
  }

  private static String upgradeAnswer(String secret, String protocol) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", node.port())) {
      socket.setSoTimeout(10_000);
      return upgrade(socket, secret, protocol);
    }
  }

  /** Sends the upgrade request and reads the answer's head (up to the blank line). */
  private static String upgrade(Socket socket, String secret, String protocol) throws IOException {
    String request = "GET " + InternalEndpoint.RECORD_STREAM.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Connection: Upgrade\r\nUpgrade: " + protocol + "\r\n"
        + (secret == null ? "" : InternalEndpoint.SECRET_HEADER + ": " + secret + "\r\n") + "\r\n";
    socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }

  private static void writeFrame(Socket socket, long id, List<Operation> operations) throws IOException {
    Buffer frame = WireParts.join(Frame.encode(Frame.Kind.OPERATIONS, id, BatchOperations.payloadInParts(operations)));
    socket.getOutputStream().write(frame.getBytes());
    socket.getOutputStream().flush();
  }

  /** One whole frame: its header, then as many bytes as the header says. */
  private static Frame readFrame(DataInputStream in) throws IOException {
    byte[] header = new byte[Frame.HEADER_BYTES];
    in.readFully(header);
    byte[] payload = new byte[Buffer.buffer(header).getInt(Frame.HEADER_BYTES - 4)];
    in.readFully(payload);
    return Frame.decode(Buffer.buffer(header).appendBytes(payload), Frame.Kind.ANSWERS);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
