/**
 * The public HTTP API (docs/api.md): {@code HttpVerticle} runs one server per event loop,
 * {@code ApiRouter} routes, and one handler per resource parses the request and answers
 * ({@code EntityHandler}, {@code RangeHandler} with {@code ClusterRangeStream} for
 * {@code scope=cluster}, {@code ClusterHandler}). {@code ClientErrors} turns a coordination failure
 * into a status; {@code ClientAdmission} and {@code LargeReads} shed load. The conditional-write
 * forwarding to a key's first replica is this package's too ({@code ConditionalForwarder} and
 * {@code EntityHandler#putForwarded}). Other parts mount their own routes as a {@code RouteMount};
 * this package knows nothing of them.
 */
package io.quorumkv.http;
