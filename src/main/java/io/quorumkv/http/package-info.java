/**
 * The HTTP API (docs/api.md): {@code HttpVerticle} runs one server per event loop, {@code ApiRouter}
 * routes, and one handler per resource parses the request and answers ({@code EntityHandler},
 * {@code RangeHandler} with {@code RangeStream} or, for {@code scope=cluster},
 * {@code ClusterRangeStream}, {@code ClusterHandler}, and {@code InternalHandler} and
 * {@code InternalRangeHandler} for other nodes' traffic). {@code ApiErrors} turns failures into a status and a short text body.
 * Other parts of the node (admin, metrics) add their routes as a {@code RouteMount}; this package
 * knows nothing of them.
 */
package io.quorumkv.http;

