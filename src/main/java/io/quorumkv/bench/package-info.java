/**
 * Measuring tools shipped in the jar: the constant-rate load tool ({@code java -jar quorumkv.jar
 * bench}, {@code LoadTool} with {@code LoadGenerator}, {@code Workload}, {@code LatencyReport}) and
 * {@code Fill}, which loads a node with records before a read benchmark.
 */
package io.quorumkv.bench;
