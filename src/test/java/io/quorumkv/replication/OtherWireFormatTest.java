package io.quorumkv.replication;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.storage.Record;
import io.quorumkv.support.Http;
import io.quorumkv.support.TestNode;
import io.quorumkv.wire.BatchOperations;
import io.quorumkv.wire.WireFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A batch from a node of another wire format is refused, naming both versions, and changes nothing. */
class OtherWireFormatTest {
  @TempDir
  static Path dataDir;
  static TestNode node;

  @BeforeAll
  static void startNode() {
    node = TestNode.start(dataDir);
  }

  @AfterAll
  static void stopNode() {
    node.close();
  }

  @Test
  void aBatchOfAnotherWireFormatIs400NamingBothVersionsAndWritesNothing() {
    byte[] body = BatchOperations.encode(List.of(new BatchOperations.Operation(bytes("other-format"),
        Record.live(node.node().clock().current() + 1, bytes("v"), 0)))).getBytes();
    body[0] = 7;
    HttpResponse<byte[]> refused = node.http.send("POST", InternalEndpoint.RECORD_BATCH.path(),
        HttpRequest.BodyPublishers.ofByteArray(body));

    assertEquals(400, refused.statusCode());
    assertEquals("wire format 7, this node speaks " + WireFormat.VERSION + "\n", Http.text(refused));
    assertEquals(404, node.http.get("/v0/entity?id=other-format").statusCode());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
