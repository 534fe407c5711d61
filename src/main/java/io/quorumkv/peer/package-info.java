/**
 * What every internal protocol shares: {@code InternalEndpoint}, the one table of the endpoints
 * nodes call on each other (method, path, timeout, handler); {@code PeerAuthorization}, the cluster
 * secret in front of them; {@code PeerRoutes}, which mounts a feature's endpoints behind it; the
 * client every internal request leaves through; and {@code Throttle}, which paces repairs and
 * transfers.
 */
package io.quorumkv.peer;
