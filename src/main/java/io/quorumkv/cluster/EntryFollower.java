package io.quorumkv.cluster;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;

import java.util.function.BiConsumer;

/** Passes every added or updated entry's key and value of a Hazelcast map to one handler, on a Hazelcast event thread. */
public record EntryFollower(BiConsumer<String, Object> handler)
    implements EntryAddedListener<String, Object>, EntryUpdatedListener<String, Object> {
  @Override
  public void entryAdded(EntryEvent<String, Object> event) {
    handler.accept(event.getKey(), event.getValue());
  }

  @Override
  public void entryUpdated(EntryEvent<String, Object> event) {
    handler.accept(event.getKey(), event.getValue());
  }
}
