package io.quorumkv.config;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who may use the API (docs/api.md#authentication): the tokens of the conf's {@code auth} section
 * ({@code auth.tokens}, {@code auth.tokensFile}) and its {@code adminToken} (a token of role admin).
 * A token's text never goes into a message: problems name its key and its token's name.
 *
 * @param tokens    every token a request may carry
 * @param anonymous the role of a request without a token: {@code admin} when no token is set (all open),
 *                  {@code write} when only {@code adminToken} is (only {@code /admin} closed), null
 *                  once {@code auth} gives tokens (nothing open but what needs no role at all)
 */
public record AuthConfig(List<ApiToken> tokens, Role anonymous) {
  /** No token: the API is open, as a node started without a conf. */
  public static final AuthConfig OPEN = new AuthConfig(List.of(), Role.ADMIN);
  /** The name {@code adminToken} goes by among the tokens. */
  public static final String ADMIN_TOKEN_NAME = "adminToken";

  public AuthConfig {
    tokens = List.copyOf(tokens);
  }

  /**
   * One token. Its {@code toString} leaves the secret out, so neither it nor a conf holding it can
   * print the secret.
   *
   * @param name   what the conf calls it (in 403 answers, never the secret)
   * @param secret what a request carries as {@code Authorization: Bearer SECRET}
   */
  public record ApiToken(String name, Role role, String secret) {
    @Override
    public String toString() {
      return "ApiToken[" + name + ", " + role + "]";
    }
  }

  /** Whether a request needing {@code needed} may go without a token. */
  public boolean open(Role needed) {
    return anonymous != null && anonymous.includes(needed);
  }

  /** Reads {@code adminToken} and the {@code auth} section of the conf's root. */
  static AuthConfig read(JsonSection root) {
    String adminToken = root.string(ADMIN_TOKEN_NAME, null);
    if (adminToken != null && adminToken.isEmpty()) {
      throw new ConfigException("'" + ADMIN_TOKEN_NAME + "' must not be empty (leave it out for no token)");
    }
    Tokens tokens = new Tokens();
    if (adminToken != null) {
      tokens.add(ADMIN_TOKEN_NAME, ADMIN_TOKEN_NAME, new ApiToken(ADMIN_TOKEN_NAME, Role.ADMIN, adminToken));
    }
    if (root.section("auth", auth -> section(auth, tokens)) != null) {
      return new AuthConfig(tokens.all, null);
    }
    return adminToken == null ? OPEN : new AuthConfig(tokens.all, Role.WRITE);
  }

  /** Adds the tokens of the {@code auth} section, inline and from its file; returns them. */
  private static Tokens section(JsonSection auth, Tokens tokens) {
    List<JsonSection> inline = auth.sections("tokens");
    String file = auth.string("tokensFile", null);
    if ((inline == null || inline.isEmpty()) && file == null) {
      throw new ConfigException("'auth' gives no token: set 'auth.tokens' or 'auth.tokensFile' (or leave 'auth' out)");
    }
    List<JsonSection> all = new ArrayList<>(inline == null ? List.of() : inline);
    if (file != null) {
      all.addAll(fromFile(auth.path("tokensFile"), file));
    }
    for (JsonSection token : all) {
      tokens.add(token.path("name"), token.path("token"), token(token));
      token.rejectUnknownKeys();
    }
    return tokens;
  }

  /** The tokens of {@code file}: a JSON array of objects as in {@code auth.tokens}, its path as the conf gives it. */
  private static List<JsonSection> fromFile(String key, String file) {
    String text;
    try {
      text = Files.readString(Path.of(file), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException("'" + key + "': " + file + " does not exist");
    } catch (IOException e) {
      throw new ConfigException("'" + key + "': cannot read " + file + ": " + e.getMessage());
    }
    JsonArray array;
    try {
      array = new JsonArray(text);
    } catch (DecodeException | ClassCastException e) {
      // The parser's message may quote the file, tokens included.
      throw new ConfigException("'" + key + "': " + file + " is not a JSON list of tokens");
    }
    List<JsonSection> tokens = JsonSection.sectionsOf(array, key);
    if (tokens.isEmpty()) {
      throw new ConfigException("'" + key + "': " + file + " lists no token");
    }
    return tokens;
  }

  private static ApiToken token(JsonSection section) {
    String name = section.requiredString("name");
    if (name.isBlank()) {
      throw new ConfigException("'" + section.path("name") + "' must not be empty");
    }
    String roleName = section.requiredString("role");
    Role role = Role.named(roleName);
    if (role == null) {
      throw new ConfigException("'" + section.path("role") + "' must be read, write or admin, got \"" + roleName + "\"");
    }
    return new ApiToken(name, role, secret(section));
  }

  /** The token's text, checked without ever quoting it. */
  private static String secret(JsonSection section) {
    String key = "'" + section.path("token") + "'";
    Object value = section.raw("token");
    if (value == null) {
      throw new ConfigException("missing key " + key);
    }
    if (!(value instanceof String secret)) {
      throw new ConfigException(key + " must be a string");
    }
    if (secret.isEmpty()) {
      throw new ConfigException(key + " must not be empty");
    }
    // HTTP drops spaces around a header's value and a bearer token holds none: such a token could never match.
    for (int i = 0; i < secret.length(); i++) {
      char c = secret.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new ConfigException(key + " must be printable ASCII without spaces (its character " + (i + 1) + " is not)");
      }
    }
    return secret;
  }

  /** The tokens read so far, refusing a name or a secret given twice. */
  private static final class Tokens {
    private final List<ApiToken> all = new ArrayList<>();
    private final Map<String, String> nameOfSecret = new HashMap<>();
    private final Map<String, String> keyOfName = new HashMap<>();

    void add(String nameKey, String tokenKey, ApiToken token) {
      String sameName = keyOfName.putIfAbsent(token.name(), nameKey);
      if (sameName != null) {
        throw new ConfigException("'" + nameKey + "': the name '" + token.name() + "' is taken by '" + sameName + "'");
      }
      String sameSecret = nameOfSecret.putIfAbsent(token.secret(), token.name());
      if (sameSecret != null) {
        throw new ConfigException("'" + tokenKey + "' is the same token as that of '" + sameSecret + "'; give each its own");
      }
      all.add(token);
    }
  }
}
