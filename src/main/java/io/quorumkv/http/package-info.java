/**
 * The public HTTP API (docs/api.md): {@code HttpVerticle} runs one server per event loop,
 * {@code ApiRouter} routes, and one handler per resource parses the request and answers
 * ({@code EntityHandler}, {@code RangeHandler}; {@code /v0/cluster} is admin's {@code ClusterHandler}),
 * with its event loop's services from {@code ApiContext}; {@code ClientAdmission} and
 * {@code LargeReads} shed load. A conditional write that is another node's to run goes there through replication's
 * {@code ConditionalForwarder}. Other parts mount their own routes as a {@code RouteMount};
 * this package knows nothing of them.
 */
package io.quorumkv.http;
