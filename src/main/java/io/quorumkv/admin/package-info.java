/**
 * Operating a node: {@code AdminApi} serves JFR recording sessions and their flame graphs under
 * {@code /admin/jfr} (behind the admin token; a cluster-wide command reaches the other nodes over
 * the internal endpoint {@code JFR_COMMAND}), {@code MembershipAdmin} the membership commands under
 * {@code /admin/cluster} (leave, remove, abort), and {@code NodeMetrics} keeps the Prometheus
 * registry served at {@code /metrics}, observing storage, replication, the board and membership
 * through their observer interfaces. {@code ClusterHandler} answers {@code GET /v0/cluster}, the
 * cluster's state as this node sees it (the public API owns the path). Each mounts its routes on
 * the HTTP router.
 */
package io.quorumkv.admin;
