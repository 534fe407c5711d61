package io.quorumkv.cluster;

import io.quorumkv.support.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The join races Hazelcast warns of (seen in CI runs 16 and 65 as NodeStartLogTest failures, when
 * two node processes started at once on a loaded machine) are FINE while a join is under way, and
 * warnings again after it; other warnings of the same loggers stay warnings throughout.
 */
class JoinRaceLogFilterTest {
  private static final Logger PARTITION_SERVICE =
      Logger.getLogger("com.hazelcast.internal.partition.InternalPartitionService");
  private static final Logger PARTITION_STATE =
      Logger.getLogger("com.hazelcast.internal.partition.operation.PartitionStateOperation");
  private static final String NOT_STARTED = "[127.0.0.1]:10201 [test] [5.3.8] Ignoring received partition table,"
      + " startup is not completed yet. Sender: [127.0.0.1]:10025";
  private static final String NOT_MEMBER = "[127.0.0.1]:10243 [test] [5.3.8] com.hazelcast.spi.exception"
      + ".CallerNotMemberException: Not Member! this: [127.0.0.1]:10243, caller: [127.0.0.1]:10241, partitionId: -1,"
      + " operation: com.hazelcast.internal.partition.operation.PartitionStateOperation, service: hz:core:partitionService";

  private final LogCapture capture = new LogCapture();

  @BeforeEach
  void capture() {
    capture.addTo(PARTITION_SERVICE, PARTITION_STATE);
  }

  @AfterEach
  void release() {
    capture.removeFrom(PARTITION_SERVICE, PARTITION_STATE);
  }

  @Test
  void theJoinRacesAreFineWhileAJoinIsUnderWayAndWarningsAfterIt() {
    try (JoinRaceLogFilter.Window joining = JoinRaceLogFilter.open()) {
      PARTITION_SERVICE.warning(NOT_STARTED);
      PARTITION_STATE.warning(NOT_MEMBER);
      PARTITION_SERVICE.warning("Partition table is not consistent");
    }
    PARTITION_SERVICE.warning(NOT_STARTED);
    PARTITION_STATE.warning(NOT_MEMBER);
    assertEquals(List.of(Level.FINE, Level.FINE, Level.WARNING, Level.WARNING, Level.WARNING),
        levels());
  }

  @Test
  void aWindowClosedTwiceEndsOnlyItsOwnJoin() {
    JoinRaceLogFilter.Window first = JoinRaceLogFilter.open();
    try (JoinRaceLogFilter.Window second = JoinRaceLogFilter.open()) {
      first.close();
      first.close();
      PARTITION_STATE.warning(NOT_MEMBER);
    }
    PARTITION_STATE.warning(NOT_MEMBER);
    assertEquals(List.of(Level.FINE, Level.WARNING), levels());
  }

  private List<Level> levels() {
    return capture.records().stream().map(LogRecord::getLevel).toList();
  }
}
