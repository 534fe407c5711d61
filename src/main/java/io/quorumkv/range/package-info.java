/**
 * The cluster-wide range ({@code scope=cluster}): {@code ClusterRange} opens one
 * {@code RangeSource} per node of the topology ({@code LocalRangeSource} on this node's cursor,
 * {@code RemoteRangeSource} on another node's {@code RangeProtocol} stream), and {@code RangeMerge}
 * takes each key once with its freshest record. {@code ClusterRangeStream} drives the merge into a
 * response at the pace of the client (for {@code /v0/entities?scope=cluster} and a restore's key
 * list), and each source reads only a batch or so ahead of it. The stream's server side is
 * here too: {@code InternalRangeHandler} writes {@code RecordFrames}, frames of the shared
 * {@code wire} format ({@code RangeProtocol}: a record frame per record, then the end frame).
 */
package io.quorumkv.range;
