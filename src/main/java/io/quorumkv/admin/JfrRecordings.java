package io.quorumkv.admin;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * JDK Flight Recorder sessions of this node, by name: start with a duration and a settings
 * template ({@code default} or {@code profile}), list, stop, the {@code .jfr} file, and flame
 * graphs ({@link FlameKind}) as self-contained HTML pages. Files live in {@code <dataDir>/recordings}.
 * Every method blocks (file I/O, conversion): call them from a worker. Any number of requests may read one
 * recording at once: each gets a dump of its own (and a page converted from it), which the caller
 * deletes once sent. Each recording writes {@code NAME.ID.jfr} when it stops (JFR then closes
 * it); a newer recording of that name replaces it and its file.
 */
public final class JfrRecordings {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  /** A recording stops growing past this: old chunks are dropped. */
  private static final long MAX_RECORDING_BYTES = 256L << 20;

  private final Path dir;
  private final Map<String, Recording> recordings = new ConcurrentHashMap<>();
  private final Map<String, String> settingsNames = new ConcurrentHashMap<>();

  /** What a recording is: its name, state, settings, start and requested duration. */
  public record Info(String name, String state, String settings, Instant started, long durationMs, String file) {
    public io.vertx.core.json.JsonObject toJson() {
      return new io.vertx.core.json.JsonObject().put("name", name).put("state", state).put("settings", settings)
          .put("started", started == null ? null : started.toString()).put("durationMs", durationMs).put("file", file);
    }
  }

  /** A temporary file made for one request, to delete once sent; {@code name} is what the client is told to call it. */
  public record Export(Path path, String name) {
  }

  public JfrRecordings(Path dir) {
    this.dir = dir;
  }

  public static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("name must be 1 to 64 letters, digits, '.', '_' or '-'");
    }
    return name;
  }

  /** The JFR settings of that name ('default' or 'profile'); reads a file of the JDK. */
  static Configuration settings(String settings) {
    try {
      return Configuration.getConfiguration(settings);
    } catch (ParseException | IOException e) {
      throw new IllegalArgumentException("settings must be 'default' or 'profile', got '" + settings + "'");
    }
  }

  public Info start(String name, Duration duration, String settings) throws IOException {
    checkName(name);
    Configuration configuration = settings(settings);
    Files.createDirectories(dir);
    Recording recording = new Recording(configuration);
    recording.setName(name);
    recording.setToDisk(true);
    recording.setDestination(fileOf(recording));
    recording.setDuration(duration);
    recording.setMaxSize(MAX_RECORDING_BYTES);
    Recording previous = recordings.putIfAbsent(name, recording);
    if (previous != null && previous.getState() == RecordingState.RUNNING) {
      recording.close();
      throw new IllegalStateException("recording '" + name + "' is already running");
    }
    recordings.put(name, recording);
    if (previous != null) {
      previous.close();
      Files.deleteIfExists(fileOf(previous));
    }
    settingsNames.put(name, settings);
    recording.start();
    return infoOf(recording);
  }

  public List<Info> list() {
    List<Info> result = new ArrayList<>();
    recordings.values().forEach(r -> result.add(infoOf(r)));
    result.sort(java.util.Comparator.comparing(Info::name));
    return result;
  }

  /** Stops the recording (its file is then complete); stopping a stopped recording changes nothing. */
  public Info stop(String name) {
    Recording recording = existing(name);
    if (recording.getState() == RecordingState.RUNNING || recording.getState() == RecordingState.DELAYED) {
      recording.stop();
    }
    return infoOf(recording);
  }

  /**
   * A temporary copy of the recording's {@code .jfr} file, or of what it holds so far while it
   * runs. 409 (IllegalStateException) before it started, while JFR writes its file, or once a new
   * recording of that name replaced it.
   */
  public Export file(String name) throws IOException {
    return export(existing(name));
  }

  private Export export(Recording recording) throws IOException {
    String name = recording.getName();
    RecordingState state = recording.getState();
    if (state == RecordingState.RUNNING) {
      Path dump = Files.createTempFile(dir, name + ".", ".snapshot.jfr");
      try {
        recording.dump(dump);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(dump);
        if (recording.getState() != RecordingState.RUNNING) {
          throw new IllegalStateException("recording '" + name + "' stopped meanwhile; ask again");
        }
        throw e;
      }
      // A recording that stops during the dump (its duration ran out) can leave it empty without an error.
      if (Files.size(dump) == 0) {
        Files.deleteIfExists(dump);
        throw new IllegalStateException("recording '" + name + "' stopped meanwhile; ask again");
      }
      return new Export(dump, name + ".snapshot.jfr");
    }
    if (state != RecordingState.CLOSED) { // JFR closes a recording once it has written its file
      throw new IllegalStateException("recording '" + name + "' is " + (state == RecordingState.STOPPED
          ? "being written; ask again" : "not started yet"));
    }
    Path copy = Files.createTempFile(dir, name + ".", ".jfr");
    try {
      Files.copy(fileOf(recording), copy, StandardCopyOption.REPLACE_EXISTING);
      if (Files.size(copy) == 0) { // a recording closed before JFR wrote any of it
        throw new NoSuchFileException(copy.toString());
      }
    } catch (NoSuchFileException e) {
      Files.deleteIfExists(copy);
      throw new IllegalStateException("recording '" + name + "' was replaced by a newer one, or has no file");
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(copy);
      throw e;
    }
    return new Export(copy, name + ".jfr");
  }

  /** The flame graph of the recording as a temporary HTML file, converted from a dump of its own. */
  public Export flameGraph(String name, FlameKind kind) throws IOException {
    Recording recording = existing(name);
    boolean wasRunning = recording.getState() == RecordingState.RUNNING;
    Export jfr = export(recording);
    String kindName = kind.lowerCaseName();
    try {
      Path page = Files.createTempFile(dir, name + "." + kindName + ".", ".html");
      try {
        kind.convert(jfr.path(), page, name + " " + kindName);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(page);
        // A stop (or a newer recording of the name) during the dump can leave it unreadable.
        if (wasRunning && recording.getState() != RecordingState.RUNNING) {
          throw new IllegalStateException("recording '" + name + "' stopped while it was dumped; ask again");
        }
        throw e;
      }
      return new Export(page, name + "." + kindName + ".html");
    } finally {
      Files.deleteIfExists(jfr.path());
    }
  }

  /** Stops and closes every recording (node stop). */
  public void closeAll() {
    recordings.values().forEach(Recording::close);
    recordings.clear();
  }

  private Recording existing(String name) {
    Recording recording = recordings.get(checkName(name));
    if (recording == null) {
      throw new java.util.NoSuchElementException("no recording named '" + name + "'");
    }
    return recording;
  }

  /** Each recording writes a file of its own: a reader copying one never meets a newer recording writing it. */
  private Path fileOf(Recording recording) {
    return dir.resolve(recording.getName() + "." + recording.getId() + ".jfr");
  }

  private Info infoOf(Recording recording) {
    Duration duration = recording.getDuration();
    return new Info(recording.getName(), recording.getState().name().toLowerCase(),
        settingsNames.get(recording.getName()), recording.getStartTime(), duration == null ? 0 : duration.toMillis(),
        fileOf(recording).toString());
  }
}
