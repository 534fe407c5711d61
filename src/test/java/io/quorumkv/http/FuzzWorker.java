package io.quorumkv.http;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * One fuzzing thread: opens connections to the node and sends one to four requests on each
 * (sometimes cutting the last one short), reads each answer within the answer timeout and judges
 * it. Its requests follow from its own seed; a failure names the seed, the thread, the request's
 * number on this thread and its bytes.
 */
final class FuzzWorker implements Runnable {
  static final int ANSWER_TIMEOUT_MS = 5_000;
  private static final int MAX_BASE64_BYTES = 4_096;

  private final int index;
  private final long seed;
  private final int port;
  private final FuzzRequests requests;
  private final FuzzTally tally;
  private final String replay;
  private long number;

  /** @param replay how to replay the run, for failure messages ("-Dfuzz.seed=... -Dfuzz.threads=...") */
  FuzzWorker(int index, long seed, int port, FuzzRequests requests, FuzzTally tally, String replay) {
    this.index = index;
    this.seed = seed;
    this.port = port;
    this.requests = requests;
    this.tally = tally;
    this.replay = replay;
  }

  @Override
  public void run() {
    Random random = new Random(seed);
    try {
      while (tally.goOn()) {
        Socket socket;
        try {
          socket = connect();
        } catch (IOException e) {
          tally.fail(where() + ": cannot connect within " + ANSWER_TIMEOUT_MS + " ms: " + e);
          continue;
        }
        tally.connections.increment();
        try (socket) {
          if (!exchange(socket, random)) {
            return;
          }
        } catch (IOException e) {
          tally.fail(where() + ": the connection failed: " + e);
        }
      }
    } catch (RuntimeException e) {
      tally.fail(where() + ": the fuzzer itself failed: " + e);
      throw e;
    }
  }

  /** Sends requests on one connection until it is done; false when the run's budget is spent. */
  private boolean exchange(Socket socket, Random random) throws IOException {
    InputStream in = new BufferedInputStream(socket.getInputStream());
    OutputStream out = socket.getOutputStream();
    int onThisConnection = 1 + random.nextInt(4);
    String previous = "";
    for (int i = 0; i < onThisConnection; i++) {
      if (!tally.claim()) {
        return false;
      }
      FuzzRequest request = requests.next(random);
      number++;
      tally.origin(request);
      boolean cut = random.nextInt(12) == 0;
      boolean sentWhole = send(socket, out, request, cut, random);
      if (request.framingBroken() && !cut) {
        // The node may be waiting for bytes that never come: the end of input tells it there are none.
        endOutput(socket);
      }
      FuzzAnswer answer;
      long sentNanos = System.nanoTime();
      try {
        answer = FuzzAnswer.read(in, request.head());
      } catch (SocketTimeoutException e) {
        tally.hangs.increment();
        tally.fail(failure("neither an answer nor the connection closed within " + ANSWER_TIMEOUT_MS + " ms"
            + (cut || request.framingBroken() ? " of the end of input" : ""), request, previous));
        return true;
      } catch (IOException e) {
        if (sentWhole && !request.framingBroken()) {
          tally.unexpectedCloses.increment();
          tally.fail(failure("connection closed without an answer (" + e.getMessage() + ")", request, previous));
        } else {
          tally.closedWithoutAnswer.increment();
        }
        return true;
      }
      tally.answered(answer.status(), (System.nanoTime() - sentNanos) / 1_000, request);
      String problem = FuzzOracle.problemWith(answer, request);
      if (problem != null) {
        tally.fail(failure(problem, request, previous));
      }
      previous = "\n    after, on the same connection, " + answer.status() + " to " + request.shown();
      if (cut || request.framingBroken() || !request.reusable() || answer.closesConnection()) {
        return true;
      }
    }
    return true;
  }

  /** Writes the request, or with {@code cut} a random prefix of it and then ends the output; false if not all of it went out. */
  private boolean send(Socket socket, OutputStream out, FuzzRequest request, boolean cut, Random random) {
    try {
      if (cut) {
        tally.cutShort.increment();
        out.write(request.bytes(), 0, random.nextInt(request.bytes().length + 1));
        out.flush();
        endOutput(socket);
        return false;
      }
      out.write(request.bytes());
      out.flush();
      return true;
    } catch (IOException e) {
      return false; // the node may close early, say after answering 413 to a large body
    }
  }

  private static void endOutput(Socket socket) {
    try {
      socket.shutdownOutput();
    } catch (IOException e) {
      // already closed by the node: the answer (or its absence) says the rest
    }
  }

  private String failure(String problem, FuzzRequest request, String previous) {
    String bytes = request.bytes().length <= MAX_BASE64_BYTES ? "request bytes (base64): " + request.base64()
        : "request bytes: " + request.bytes().length + ", too many to print";
    return where() + ": " + problem + " for " + request.shown() + previous + "\n    " + bytes + saved(request);
  }

  /** Saves the request's bytes under target/ for replaying it; says where, or nothing if that failed. */
  private String saved(FuzzRequest request) {
    try {
      Path dir = Files.createDirectories(Path.of("target", "fuzz-failures"));
      Path file = dir.resolve("seed" + seed + "-thread" + index + "-request" + number + ".bin");
      Files.write(file, request.bytes());
      return "\n    saved as " + file + " (replay: nc 127.0.0.1 PORT < " + file + ")";
    } catch (IOException e) {
      return "";
    }
  }

  private String where() {
    return "thread " + index + " (seed " + seed + ") request #" + number + " [replay the run with " + replay + "]";
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket();
    socket.setSoLinger(true, 0);
    try {
      socket.connect(new InetSocketAddress("127.0.0.1", port), ANSWER_TIMEOUT_MS);
      socket.setSoTimeout(ANSWER_TIMEOUT_MS);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    return socket;
  }
}
