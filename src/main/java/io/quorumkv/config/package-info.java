/**
 * The conf file: {@code ConfigLoader} reads JSON into a validated {@code NodeConfig} (with its
 * sections: {@code HazelcastConfig}, {@code HintsConfig}, {@code StorageConfig},
 * {@code AntiEntropyConfig}, {@code TransferConfig}, {@code AdmissionConfig}, {@code AuthConfig} with
 * each token's {@code Role}), and every problem is
 * one {@code ConfigException} line naming the key. {@code NodeUrl} is a node's normalised address.
 */
package io.quorumkv.config;
