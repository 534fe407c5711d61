package io.quorumkv.http;

import io.quorumkv.range.RangeProtocol;
import io.quorumkv.storage.RangeBatch;
import io.quorumkv.storage.RangeCursor;
import io.quorumkv.storage.RangeEntry;
import io.quorumkv.storage.StorageService;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;
import java.util.function.Predicate;

/** What a {@link RangeStream} reads from the store and how it puts it on the wire. */
interface RangeFormat {

  Future<RangeBatch> next(StorageService storage, RangeCursor cursor, int maxRecords, int maxBytes);

  void write(HttpServerResponse response, List<RangeEntry> entries);

  /** Ends the response after the last batch. */
  void end(HttpServerResponse response);

  /** The public range: live records only, one chunk per record ({@code key \n value}). */
  static RangeFormat liveChunks() {
    return new RangeFormat() {
      @Override
      public Future<RangeBatch> next(StorageService storage, RangeCursor cursor, int maxRecords, int maxBytes) {
        return storage.nextBatch(cursor, maxRecords, maxBytes);
      }

      @Override
      public void write(HttpServerResponse response, List<RangeEntry> entries) {
        for (RangeEntry entry : entries) {
          response.write(chunkOf(entry));
        }
      }

      @Override
      public void end(HttpServerResponse response) {
        response.end();
      }
    };
  }

  /** The internal stream of {@link RangeProtocol}: every stored record, a batch per write, then the end frame. */
  static RangeFormat recordFrames() {
    return recordFrames(entry -> true);
  }

  /** {@link #recordFrames()} of only the records {@code sent} takes. */
  static RangeFormat recordFrames(Predicate<RangeEntry> sent) {
    return new RangeFormat() {
      private long count;

      @Override
      public Future<RangeBatch> next(StorageService storage, RangeCursor cursor, int maxRecords, int maxBytes) {
        return storage.nextRecords(cursor, maxRecords, maxBytes);
      }

      @Override
      public void write(HttpServerResponse response, List<RangeEntry> entries) {
        List<RangeEntry> taken = entries.stream().filter(sent).toList();
        if (!taken.isEmpty()) {
          response.write(RangeProtocol.encodeRecords(taken));
          count += taken.size();
        }
      }

      @Override
      public void end(HttpServerResponse response) {
        response.end(RangeProtocol.encodeEnd(count));
      }
    };
  }

  /** One record of the public range as its chunk: {@code key \n value}. */
  static Buffer chunkOf(RangeEntry entry) {
    return Buffer.buffer(entry.key().length + 1 + entry.value().length)
        .appendBytes(entry.key())
        .appendByte((byte) '\n')
        .appendBytes(entry.value());
  }
}
