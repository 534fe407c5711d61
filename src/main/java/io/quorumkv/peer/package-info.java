/**
 * What every internal protocol shares: {@code InternalEndpoint}, the one table of the endpoints
 * nodes call on each other (method, path, timeout); {@code PeerAuthorization}, the cluster secret
 * (and, under TLS, {@code PeerCertificates}: a node's certificate) in front of them;
 * {@code PeerRoutes}, which mounts a feature's endpoints behind it and records the class that
 * answers each; {@code PeerClient}, the client every internal request leaves through; and
 * {@code Throttle}, which paces repairs, transfers and the restore tool.
 */
package io.quorumkv.peer;
