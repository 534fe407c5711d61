package io.quorumkv.replication;

import io.quorumkv.web.BadRequestException;
import io.vertx.core.MultiMap;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.regex.Pattern;

/**
 * The conditional headers of {@code /v0/entity} requests (and of the conditional writes forwarded to a
 * key's first replica), read into a {@link Condition}. Entity tags are a record's version in
 * double quotes ({@code "V"}); anything else is a 400, never a silently unconditional request.
 */
public final class Preconditions {
  private static final Pattern STRONG_TAG = Pattern.compile("\"(\\d{1,19})\"");
  private static final String IF_MATCH = "If-Match";
  private static final String IF_NONE_MATCH = "If-None-Match";
  private static final String TAG_EXPECTED = "\"V\" (a version in double quotes) or *";

  private Preconditions() {
  }

  public static String entityTag(long version) {
    return "\"" + version + "\"";
  }

  /** The condition of a PUT or DELETE, null when it has none; BadRequestException for bad headers. */
  public static Condition ofWrite(MultiMap headers, boolean isPut) {
    String ifMatch = joined(headers, IF_MATCH);
    String ifNoneMatch = joined(headers, IF_NONE_MATCH);
    if (ifMatch != null && ifNoneMatch != null) {
      throw new BadRequestException("If-Match and If-None-Match cannot be combined");
    }
    if (ifNoneMatch != null) {
      if (!isPut) {
        throw new BadRequestException("If-None-Match applies to PUT only; a DELETE takes If-Match");
      }
      if (!ifNoneMatch.equals("*")) {
        throw new BadRequestException("on a PUT, If-None-Match takes only *, got '" + ifNoneMatch + "'");
      }
      return Condition.absent();
    }
    if (ifMatch == null) {
      return null;
    }
    if (ifMatch.equals("*")) {
      return Condition.present();
    }
    if (ifMatch.indexOf(',') >= 0) {
      throw new BadRequestException("If-Match takes one version, got '" + ifMatch + "'");
    }
    return Condition.versionIs(versionOf(IF_MATCH, ifMatch));
  }

  /**
   * For a GET: which live versions its {@code If-None-Match} names (any for {@code *}), null
   * without the header. A GET takes no {@code If-Match}.
   */
  public static LongPredicate notModifiedOf(MultiMap headers) {
    if (headers.get(IF_MATCH) != null) {
      throw new BadRequestException("If-Match applies to PUT and DELETE; a GET takes If-None-Match");
    }
    String ifNoneMatch = joined(headers, IF_NONE_MATCH);
    if (ifNoneMatch == null) {
      return null;
    }
    if (ifNoneMatch.equals("*")) {
      return version -> true;
    }
    List<Long> versions = new ArrayList<>();
    for (String tag : ifNoneMatch.split(",", -1)) {
      versions.add(versionOf(IF_NONE_MATCH, tag.trim()));
    }
    return versions::contains;
  }

  /** The header's values (several lines joined by commas, as HTTP defines), trimmed; null when absent. */
  private static String joined(MultiMap headers, String name) {
    if (headers.get(name) == null) {
      return null; // nearly every request: no list built on the hot path
    }
    return String.join(",", headers.getAll(name)).trim();
  }

  private static long versionOf(String header, String tag) {
    var matcher = STRONG_TAG.matcher(tag);
    if (tag.startsWith("W/")) {
      throw new BadRequestException(header + ": weak entity tags are not used, expected " + TAG_EXPECTED);
    }
    if (!matcher.matches()) {
      throw new BadRequestException(header + " must be " + TAG_EXPECTED + ", got '" + tag + "'");
    }
    try {
      return Long.parseLong(matcher.group(1));
    } catch (NumberFormatException e) {
      throw new BadRequestException(header + ": version out of range, got '" + tag + "'");
    }
  }
}
