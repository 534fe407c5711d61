package io.quorumkv.web;

/** Headers quorumkv adds to its answers. */
public final class ApiHeaders {
  /** The version of the record read or written (hybrid logical clock, decimal). */
  public static final String VERSION = "X-QKV-Version";
  /** The same version as an entity tag, {@code "V"}, for {@code If-Match} and {@code If-None-Match}. */
  public static final String ETAG = "ETag";

  private ApiHeaders() {
  }
}
