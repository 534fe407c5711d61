package io.quorumkv.http;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A request line split the way Netty's HTTP decoder splits it: method and target end at SP, HTAB,
 * VT, FF or CR; the version is the rest, trimmed.
 */
record RequestLine(String method, String target, String version) {
  private static final Pattern VERSION = Pattern.compile("HTTP/(\\d{1,9})\\.(\\d{1,9})");

  static RequestLine parse(String line) {
    int methodStart = skip(line, 0, true);
    int methodEnd = skip(line, methodStart, false);
    int targetStart = skip(line, methodEnd, true);
    int targetEnd = skip(line, targetStart, false);
    int versionStart = skip(line, targetEnd, true);
    return new RequestLine(line.substring(methodStart, methodEnd), line.substring(targetStart, targetEnd),
        line.substring(versionStart).strip());
  }

  /** The index of the first character from {@code at} that is (or, with {@code separators} true, is not) a separator. */
  private static int skip(String line, int at, boolean separators) {
    int i = at;
    while (i < line.length() && isSeparator(line.charAt(i)) == separators) {
      i++;
    }
    return i;
  }

  private static boolean isSeparator(char c) {
    return c == ' ' || c == '\t' || c == 0x0b || c == 0x0c || c == '\r';
  }

  /**
   * Whether the version is well-formed ({@code HTTP/DIGIT.DIGIT}) but neither 1.0 nor 1.1, the one
   * case answered 505. As Netty reads it: upper-cased, the numbers as integers (so {@code http/2.0}
   * and {@code HTTP/02.0} count, {@code HTTP/1.10} does not).
   */
  static boolean isUnsupportedVersion(String version) {
    Matcher matcher = VERSION.matcher(version.strip().toUpperCase(Locale.ROOT));
    if (!matcher.matches()) {
      return false;
    }
    int major = Integer.parseInt(matcher.group(1));
    int minor = Integer.parseInt(matcher.group(2));
    return major <= 9 && minor <= 9 && !(major == 1 && minor <= 1);
  }
}
