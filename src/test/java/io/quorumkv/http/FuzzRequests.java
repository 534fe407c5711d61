package io.quorumkv.http;

import java.util.Random;

/**
 * The fuzzer's mix of requests: a quarter random from scratch, a tenth valid requests of every
 * endpoint sent unchanged, the rest those valid requests mutated.
 */
final class FuzzRequests {
  private final RandomRequests random;
  private final ValidRequests valid;
  private final RequestMutator mutator;

  FuzzRequests(String adminToken, String clusterSecret, int bodyLimit) {
    this.random = new RandomRequests(bodyLimit);
    this.valid = new ValidRequests(adminToken, clusterSecret, bodyLimit);
    this.mutator = new RequestMutator(bodyLimit);
  }

  FuzzRequest next(Random rng) {
    int kind = rng.nextInt(20);
    if (kind < 5) {
      return random.next(rng);
    }
    ValidRequests.Valid request = valid.next(rng);
    if (kind < 7) {
      byte[] bytes = request.parts().wire().bytes();
      WireCheck check = WireCheck.of(bytes);
      return new FuzzRequest(bytes, "valid " + request.label(), check.head(), check.reusable(), !check.answerDue(),
          check.unsupportedVersion(), true);
    }
    return mutator.mutate(request, rng);
  }
}
