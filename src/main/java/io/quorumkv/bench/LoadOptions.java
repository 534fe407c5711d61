package io.quorumkv.bench;

import io.quorumkv.web.ClientTls;
import io.quorumkv.web.NodeAccess;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * The load tool's options: {@code bench --url URL --rate N [--connections C] [--duration 30s]
 * [--workload get|put|delete|mixed|range] [--keys K] [--value-size B] [--ack A --from F]
 * [--put-share 0.1] [--placement any|owner|other] [--out DIR] [--tool-jit c1|c2] [--retry-after honour|ignore]
 * [--token TOKEN]}.
 */
public record LoadOptions(List<URI> urls, int rate, int connections, Duration duration, Duration warmup, Workload.Kind workload,
                          int keys, int valueSize, Integer ack, Integer from, double putShare, Placement placement,
                          Path out, ToolJit toolJit, boolean honourRetryAfter, String token, ClientTls tls) {

  /** Which keys of the key space a run uses, by their first replica in the cluster's rendezvous order. */
  enum Placement {
    /** Every key. */
    ANY,
    /** Only keys whose first replica is the node the load goes to. */
    OWNER,
    /** Only keys whose first replica is another node. */
    OTHER;

    static Placement parse(String text) {
      return switch (text) {
        case "any" -> ANY;
        case "owner" -> OWNER;
        case "other" -> OTHER;
        default -> throw new IllegalArgumentException("--placement must be any, owner or other, got '" + text + "'");
      };
    }
  }


  /** {@code --rate max}: as fast as the server answers, each connection sending when its last request answered. */
  static final int SATURATE = 0;

  public static final String USAGE = """
      usage: java -jar quorumkv.jar bench --url URL[,URL...] --rate REQ_PER_S [options]
        --url URL,URL      several nodes: the connections are spread over them in turn
        --rate max         saturation: each connection sends as soon as its last answer arrived
        --connections N    keep-alive connections (default 64)
        --duration D       measured run time: 30s, 2m, 500ms (default 30s)
        --warmup D         load at the same rate before measuring, not recorded (default 5s; 0s for none)
        --workload W       get, put, delete, mixed (PUT share by --put-share), range or status (default get)
        --keys N           key space k0 .. k(N-1) (default 100000)
        --value-size B     PUT value bytes (default 100)
        --ack A --from F   quorum for every request (default: the node's)
        --put-share S      PUT share of the mixed workload (default 0.1)
        --placement P      any, owner (keys whose first replica is the --url node) or other (default any)
        --out DIR          also write DIR/latency.txt, DIR/latency.hlog and DIR/latency.png
        --tool-jit J       this tool's JIT: c1 (quick compilations, less CPU taken from a server on the
                           same machine) or c2 (faster once warm); default c1 up to --rate 5000, else c2
        --retry-after R    honour (default): after a 503 with Retry-After a connection sends nothing for
                           that long, and the requests due meanwhile are held back (counted, not sent);
                           ignore: it sends on at once, as a client that retries without waiting
      """ + NodeAccess.USAGE + """
        --help             this text
      exit status: 0 done, 1 with errors or timeouts (or when the first 20 answers all failed alike: the run
      then stops at once, saying why), 2 bad options, 3 this tool could not keep the rate (its own event
      loops were held up over 20% of the time: the result is the tool's, not the server's)""";

  public static LoadOptions parse(List<String> args) {
    Deque<String> rest = new ArrayDeque<>(args);
    List<URI> urls = null;
    int rate = -1;
    int connections = 64;
    Duration duration = Duration.ofSeconds(30);
    Duration warmup = Duration.ofSeconds(5);
    Workload.Kind workload = Workload.Kind.GET;
    int keys = 100_000;
    int valueSize = 100;
    Integer ack = null;
    Integer from = null;
    double putShare = 0.1;
    Placement placement = Placement.ANY;
    Path out = null;
    ToolJit toolJit = null;
    boolean honourRetryAfter = true;
    NodeAccess access = NodeAccess.NONE;
    while (!rest.isEmpty()) {
      String option = rest.pop();
      if (rest.isEmpty()) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      String value = rest.pop();
      switch (option) {
        case "--url" -> urls = Arrays.stream(value.split(",")).map(String::trim).map(URI::create).toList();
        case "--rate" -> rate = "max".equals(value) ? SATURATE : positive(option, value);
        case "--connections" -> connections = positive(option, value);
        case "--duration" -> duration = duration(value);
        case "--warmup" -> warmup = duration(value);
        case "--workload" -> workload = Workload.Kind.parse(value);
        case "--keys" -> keys = positive(option, value);
        case "--value-size" -> valueSize = nonNegative(option, value);
        case "--ack" -> ack = positive(option, value);
        case "--from" -> from = positive(option, value);
        case "--put-share" -> putShare = share(value);
        case "--placement" -> placement = Placement.parse(value);
        case "--out" -> out = Path.of(value);
        case "--tool-jit" -> toolJit = ToolJit.parse(value);
        case "--retry-after" -> honourRetryAfter = retryAfter(value);
        default -> {
          if (!NodeAccess.takes(option)) {
            throw new IllegalArgumentException("unknown option " + option);
          }
          access = access.with(option, value);
        }
      }
    }
    if (urls == null || rate < 0) {
      throw new IllegalArgumentException("--url and --rate are required");
    }
    for (URI url : urls) {
      if (url.getHost() == null || url.getPort() < 0) {
        throw new IllegalArgumentException("--url must look like http://host:port or https://host:port");
      }
    }
    if (urls.size() > 1 && placement != Placement.ANY) {
      throw new IllegalArgumentException("--placement owner or other needs a single --url");
    }
    if (toolJit == null) {
      toolJit = rate == SATURATE || rate > ToolJit.C1_MAX_PACED_RATE ? ToolJit.C2 : ToolJit.C1;
    }
    return new LoadOptions(urls, rate, connections, duration, warmup, workload, keys, valueSize, ack, from, putShare,
        placement, out, toolJit, honourRetryAfter, access.token(), access.checked().tls());
  }

  private static boolean retryAfter(String text) {
    return switch (text) {
      case "honour", "honor" -> true;
      case "ignore" -> false;
      default -> throw new IllegalArgumentException("--retry-after must be honour or ignore, got '" + text + "'");
    };
  }

  /** The {@code Authorization} header's value for {@code --token}, null without one. */
  String authorization() {
    return token == null ? null : "Bearer " + token;
  }

  /** The first node of {@code --url}, the one asked for the cluster's layout. */
  URI url() {
    return urls.get(0);
  }

  boolean saturate() {
    return rate == SATURATE;
  }

  String rateText() {
    return saturate() ? "saturation" : String.format("%,d req/s", rate);
  }

  static Duration duration(String text) {
    try {
      if (text.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
      }
      if (text.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
      }
      if (text.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
      }
      return Duration.ofSeconds(Long.parseLong(text));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--duration: '" + text + "' is not like 30s, 2m or 500ms");
    }
  }

  private static int positive(String option, String text) {
    int value = nonNegative(option, text);
    if (value == 0) {
      throw new IllegalArgumentException(option + " must be positive");
    }
    return value;
  }

  private static int nonNegative(String option, String text) {
    try {
      int value = Integer.parseInt(text);
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException ignored) {
      // answered below
    }
    throw new IllegalArgumentException(option + " must be a whole number, got '" + text + "'");
  }

  private static double share(String text) {
    try {
      double value = Double.parseDouble(text);
      if (value >= 0 && value <= 1) {
        return value;
      }
    } catch (NumberFormatException ignored) {
      // answered below
    }
    throw new IllegalArgumentException("--put-share must be between 0 and 1, got '" + text + "'");
  }
}
