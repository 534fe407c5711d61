package io.quorumkv.storage;

import java.util.List;

/** One step of a range scan: the records found and whether the scan is over. */
public record RangeBatch(List<RangeEntry> entries, boolean last) {
}
