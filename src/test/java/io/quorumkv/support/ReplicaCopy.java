package io.quorumkv.support;

import io.quorumkv.peer.InternalEndpoint;
import io.quorumkv.replication.RecordHeaders;
import io.quorumkv.web.ApiHeaders;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** A replica's own stored record of a key, as its internal endpoint reports it (no coordination, no repair). */
public record ReplicaCopy(long version, boolean tombstone, long expiresAt, String value) {

  /** What the node holds for the key, or null if it holds nothing. */
  public static ReplicaCopy of(Http node, String key) {
    HttpResponse<byte[]> response = node.get(InternalEndpoint.RECORD_GET.path() + "?id=" + Http.encode(key));
    if (response.statusCode() == 404) {
      return null;
    }
    if (response.statusCode() != 200) {
      throw new AssertionError("internal read of " + key + " answered " + response.statusCode() + ": " + Http.text(response));
    }
    long version = Long.parseLong(response.headers().firstValue(ApiHeaders.VERSION).orElseThrow());
    boolean tombstone = "1".equals(response.headers().firstValue(RecordHeaders.TOMBSTONE).orElse("0"));
    long expiresAt = Long.parseLong(response.headers().firstValue(RecordHeaders.EXPIRES_AT).orElseThrow());
    return new ReplicaCopy(version, tombstone, expiresAt, new String(response.body(), StandardCharsets.UTF_8));
  }
}
