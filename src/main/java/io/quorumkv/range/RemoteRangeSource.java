package io.quorumkv.range;

import io.quorumkv.config.NodeUrl;
import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.peer.PeerClient;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.wire.Frame;
import io.quorumkv.wire.FrameReader;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;

import java.util.List;

/**
 * Another node's store as a {@link RangeSource}: its {@link RangeProtocol} stream, parsed frame by
 * frame. Once {@link #MAX_BUFFERED_BYTES} or {@link #MAX_BUFFERED_RECORDS} are buffered the
 * response is paused, so the connection stops being read, TCP pushes back, and the other node's
 * scan waits on its full write queue; reading resumes when the merge has taken half of them.
 * A stream that ends or breaks before its end frame is a failure, never a shorter range.
 */
public final class RemoteRangeSource extends BufferedRangeSource {
  static final int MAX_BUFFERED_BYTES = 256 * 1024;
  static final int MAX_BUFFERED_RECORDS = 1024;

  private final PeerClient client;
  private final InternalEndpoint endpoint;
  private final String query;
  private final int maxPayloadBytes;
  private HttpClientRequest request;
  private HttpClientResponse response;
  private MultiMap responseHeaders = MultiMap.caseInsensitiveMultiMap();
  private long bufferedBytes;
  private long received;
  private boolean paused;
  private boolean responseEnded;

  /**
   * @param endpoint the endpoint streaming the records ({@code RANGE} or {@code TRANSFER})
   * @param query    its encoded query string
   */
  public RemoteRangeSource(PeerClient client, InternalEndpoint endpoint, NodeUrl node, String query,
                           int maxPayloadBytes) {
    super(node);
    this.client = client;
    this.endpoint = endpoint;
    this.query = query;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  @Override
  void open() {
    client.request(client.options(endpoint, node(), query)).compose(opened -> {
      request = opened;
      return closed() ? opened.reset().map((HttpClientResponse) null) : opened.send();
    }).onComplete(sent -> {
      if (closed()) {
        return;
      }
      if (sent.failed()) {
        fail(describe(sent.cause()));
      } else if (sent.result().statusCode() != 200) {
        fail("answered " + sent.result().statusCode()); // the merge closes this source, dropping the connection
      } else {
        read(sent.result());
      }
    });
  }

  private void read(HttpClientResponse response) {
    this.response = response;
    responseHeaders = response.headers();
    response.exceptionHandler(failure -> {
      if (!ended()) {
        fail(describe(failure) + " after " + received + " records");
      }
    });
    response.endHandler(ended -> {
      responseEnded = true;
      if (!ended()) {
        fail("stream ended without its end frame after " + received + " records");
      }
    });
    response.handler(FrameReader.of(maxPayloadBytes, frame -> {
      if (!live()) {
        return;
      }
      try {
        take(frame);
      } catch (IllegalArgumentException malformed) {
        malformed(malformed.getMessage());
      }
    }, this::malformed));
  }

  private void malformed(String why) {
    if (live()) {
      fail("malformed stream after " + received + " records: " + why);
    }
  }

  private void take(Frame frame) {
    if (ended()) {
      throw new IllegalArgumentException("a frame after the end frame");
    }
    if (frame.kind() == Frame.Kind.END) {
      long sent = RangeProtocol.decodeEnd(frame.payload());
      if (sent != received) {
        throw new IllegalArgumentException("end frame counts " + sent + " records, " + received + " arrived");
      }
      arrived(List.of(), true);
      return;
    }
    if (frame.kind() != Frame.Kind.RECORD) {
      throw new IllegalArgumentException("frame of kind " + frame.kind() + " in a range stream");
    }
    RangeEntry entry = RangeProtocol.decodeRecord(frame.payload());
    bufferedBytes += sizeOf(entry);
    received++;
    arrived(List.of(entry), false);
    if (!paused && (bufferedBytes >= MAX_BUFFERED_BYTES || bufferedRecords() >= MAX_BUFFERED_RECORDS)) {
      paused = true;
      response.pause();
    }
  }

  /** A header of the stream's response; null before it arrived or when absent. */
  public String header(String name) {
    return responseHeaders.get(name);
  }

  @Override
  void taken(RangeEntry entry) {
    bufferedBytes -= sizeOf(entry);
    if (paused && bufferedBytes < MAX_BUFFERED_BYTES / 2 && bufferedRecords() < MAX_BUFFERED_RECORDS / 2) {
      paused = false;
      response.resume();
    }
  }

  /** Drops the connection, unless the stream was read to its end. */
  @Override
  void abandon() {
    if (request != null && !responseEnded) {
      request.reset();
    }
  }

  private static long sizeOf(RangeEntry entry) {
    return entry.key().length + entry.value().length;
  }
}
