package io.quorumkv.config;

import java.util.List;

/** How a node joins the membership group: its own Hazelcast port and the TCP-IP member list. */
public record HazelcastConfig(int port, List<String> members) {
}
