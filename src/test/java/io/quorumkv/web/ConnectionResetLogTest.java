package io.quorumkv.web;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.InternalProtocol;
import io.quorumkv.support.Await;
import io.quorumkv.support.LogCapture;
import io.quorumkv.support.TestNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A connection reset by the other end (a client gone mid-request, a peer killed mid-stream) is part
 * of a cluster's life: the node logs it at DEBUG, never as SEVERE, as Vert.x does for a connection
 * without an exception handler.
 */
class ConnectionResetLogTest {
  private static final Logger ROOT = Logger.getLogger("");
  private static final Logger CONNECTION_ERRORS = Logger.getLogger(ConnectionErrors.class.getName());

  @TempDir
  Path dir;
  private TestNode node;
  private final LogCapture capture = new LogCapture();
  private Level levelBefore;

  @BeforeEach
  void startNodeAndCaptureTheLog() {
    node = TestNode.start(dir);
    levelBefore = CONNECTION_ERRORS.getLevel();
    CONNECTION_ERRORS.setLevel(Level.FINE);
    capture.addTo(ROOT);
  }

  @AfterEach
  void stop() {
    capture.removeFrom(ROOT);
    CONNECTION_ERRORS.setLevel(levelBefore);
    node.close();
  }

  @Test
  void aClientThatResetsMidBodyIsNoSevereLine() throws Exception {
    resetAfter("PUT /v0/entity?id=k HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\npartial", false);
    assertResetLoggedQuietly();
  }

  @Test
  void aPeerThatResetsItsBatchStreamIsNoSevereLine() throws Exception {
    InternalEndpoint stream = InternalEndpoint.RECORD_STREAM;
    resetAfter(stream.method().name() + " " + stream.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
        + "Upgrade: " + InternalProtocol.STREAM_UPGRADE + "\r\n\r\n", true);
    assertResetLoggedQuietly();
  }

  /** Sends {@code request}, waits for the switch to the stream when asked, then resets the connection. */
  private void resetAfter(String request, boolean awaitUpgrade) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", node.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      if (awaitUpgrade) {
        String head = readHead(socket.getInputStream());
        assertEquals("HTTP/1.1 101", head.substring(0, 12), head);
        out.write(new byte[] {1, 2, 3}); // a frame begun, never finished
        out.flush();
      }
      socket.setSoLinger(true, 0); // close sends RST instead of FIN
    }
  }

  private void assertResetLoggedQuietly() {
    Await.until("the node noticed the reset", Duration.ofSeconds(10), () -> capture.records().stream().anyMatch(
        record -> record.getLevel() == Level.SEVERE || ConnectionErrors.class.getName().equals(record.getLoggerName())));
    assertEquals(List.of(), capture.records().stream().filter(record -> record.getLevel() == Level.SEVERE)
        .map(record -> record.getLoggerName() + ": " + record.getMessage()).toList());
  }

  private static String readHead(InputStream in) throws Exception {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.append((char) b);
    }
    return head.toString();
  }
}
