/**
 * The conf file: {@code ConfigLoader} reads JSON into a validated {@code NodeConfig} (with
 * {@code HazelcastConfig}, {@code HintsConfig}, {@code StorageConfig} sections), and every problem
 * is one {@code ConfigException} line naming the key. {@code NodeUrl} is a node's normalised address.
 */
package io.quorumkv.config;
