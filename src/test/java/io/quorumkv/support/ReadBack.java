package io.quorumkv.support;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.junit.jupiter.api.Assertions.fail;

/** Keys written at {@code ack=1&from=1} (one copy each), and the check that every one reads back through given nodes. */
public final class ReadBack {
  private ReadBack() {
  }

  /** The entity path of the key at {@code ack=1&from=1}. */
  public static String single(String key) {
    return "/v0/entity?id=" + Http.encode(key) + "&ack=1&from=1";
  }

  /** Fails, with up to ten examples, unless every key reads back as its value through every node of {@code through}. */
  public static void assertAll(ProcessCluster cluster, Map<String, String> written, List<Integer> through) {
    List<String> wrong = new ArrayList<>();
    for (int node : through) {
      written.forEach((key, value) -> {
        HttpResponse<byte[]> answer = cluster.http(node).get(single(key));
        if (answer.statusCode() != 200 || !Objects.equals(value, Http.text(answer))) {
          wrong.add(key + " through node " + node + ": " + answer.statusCode() + " " + Http.text(answer));
        }
      });
    }
    if (!wrong.isEmpty()) {
      fail(wrong.size() + " reads of acknowledged keys failed, such as " + wrong.subList(0, Math.min(10, wrong.size())));
    }
  }
}
