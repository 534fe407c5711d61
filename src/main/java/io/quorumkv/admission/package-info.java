/**
 * What a node takes on at once: bounds on the bytes of request bodies and replica batches held
 * in memory, and the requests refused ("shed") when a bound is reached, counted by reason. A
 * node refuses new client work early and cheaply (a {@code 503} with {@code Retry-After}, before
 * reading a body) rather than running out of heap; replica traffic from its peers has a reserve
 * of its own, so writes already admitted elsewhere complete.
 */
package io.quorumkv.admission;
