/**
 * The public HTTP API (docs/api.md): {@code HttpVerticle} runs one server per event loop,
 * {@code EntityFastPath} answers the plain entity requests in front of {@code ApiRouter}, which routes
 * the rest, and one handler per resource parses the request and answers ({@code EntityHandler},
 * {@code RangeHandler}; {@code /v0/cluster} is admin's {@code ClusterHandler}), with its event loop's
 * services from {@code ApiContext}. Both paths share the rules around the work:
 * {@code ClientExchanges} admits a client request and gives it a {@code ClientExchange}, which holds
 * its body's or large value's bytes until its answer ends and times it on the fast path
 * ({@code RequestTiming} times the router's). A conditional write that is another node's to run goes
 * there through replication's {@code ConditionalForwarder}. Other parts mount their own routes as a
 * {@code RouteMount}; this package knows nothing of them.
 */
package io.quorumkv.http;
