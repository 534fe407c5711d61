package io.quorumkv.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Keeps every record the loggers it is added to publish, at every level, until it is removed. */
public final class LogCapture extends Handler {
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();

  public LogCapture() {
    setLevel(Level.ALL);
  }

  public void addTo(Logger... loggers) {
    for (Logger logger : loggers) {
      logger.addHandler(this);
    }
  }

  public void removeFrom(Logger... loggers) {
    for (Logger logger : loggers) {
      logger.removeHandler(this);
    }
  }

  /** The records published so far, in order. */
  public List<LogRecord> records() {
    return List.copyOf(records);
  }

  @Override
  public void publish(LogRecord record) {
    records.add(record);
  }

  @Override
  public void flush() {
  }

  @Override
  public void close() {
  }
}
