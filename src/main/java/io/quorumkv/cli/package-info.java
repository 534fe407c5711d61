/**
 * The operator's one door: {@code java -jar quorumkv.jar admin SUBCOMMAND} ({@code AdminCommand}).
 * Every subcommand reads the same options ({@code AdminOptions}: the nodes' urls, a token, the
 * TLS files, {@code --json}), talks to the cluster through one {@code NodeClient} (fail-over
 * across the urls, one line for any failure) and prints a table for people or JSON for scripts.
 */
package io.quorumkv.cli;
