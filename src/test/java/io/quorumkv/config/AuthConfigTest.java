package io.quorumkv.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conf's {@code auth} section and {@code adminToken}: what they open and close, and every refusal naming its key. */
class AuthConfigTest {
  private static final String SECRET = "s3cret-value";

  @TempDir
  Path dir;

  @Test
  void withoutTokensEverythingIsOpen() {
    AuthConfig auth = parse(base());
    assertEquals(AuthConfig.OPEN, auth);
    assertTrue(auth.open(Role.ADMIN));
    assertEquals(AuthConfig.OPEN, NodeConfig.defaults().auth());
  }

  @Test
  void anAdminTokenAloneClosesOnlyAdmin() {
    AuthConfig auth = parse(base().put("adminToken", SECRET));
    assertEquals(List.of(new AuthConfig.ApiToken("adminToken", Role.ADMIN, SECRET)), auth.tokens());
    assertTrue(auth.open(Role.WRITE));
    assertFalse(auth.open(Role.ADMIN));
  }

  @Test
  void theAuthSectionClosesEverythingAndReadsItsFileBesideTheInlineTokens() throws IOException {
    Path file = Files.writeString(dir.resolve("tokens.json"), new JsonArray().add(token("r", "read", "rr")).encode());
    AuthConfig auth = parse(base().put("adminToken", SECRET).put("auth", new JsonObject()
        .put("tokens", new JsonArray().add(token("w", "write", "ww"))).put("tokensFile", file.toString())));
    assertEquals(List.of(new AuthConfig.ApiToken("adminToken", Role.ADMIN, SECRET),
        new AuthConfig.ApiToken("w", Role.WRITE, "ww"), new AuthConfig.ApiToken("r", Role.READ, "rr")), auth.tokens());
    assertNull(auth.anonymous());
    assertFalse(auth.open(Role.READ));
    // Dotted keys too, as every section.
    assertEquals(1, parse(base().put("auth.tokensFile", file.toString())).tokens().size());
  }

  @Test
  void rolesNest() {
    assertTrue(Role.ADMIN.includes(Role.WRITE) && Role.ADMIN.includes(Role.READ) && Role.WRITE.includes(Role.READ));
    assertFalse(Role.READ.includes(Role.WRITE) || Role.WRITE.includes(Role.ADMIN));
  }

  @Test
  void neitherATokenNorAConfPrintsTheSecret() {
    NodeConfig config = ConfigLoader.parse(base().put("auth.tokens", new JsonArray().add(token("app", "write", SECRET))));
    assertFalse(config.toString().contains(SECRET), config.toString());
    assertTrue(config.auth().tokens().get(0).toString().contains("app"));
  }

  @Test
  void badTokensAreRefusedByKeyWithoutQuotingTheSecret() throws IOException {
    assertProblem("'auth.tokens[0].token' must not be empty", tokens(token("a", "read", "")));
    assertProblem("'auth.tokens[0].token' must be printable ASCII without spaces (its character 13 is not)",
        tokens(token("a", "read", SECRET + " ")));
    assertProblem("'auth.tokens[0].token' must be printable ASCII without spaces (its character 3 is not)",
        tokens(token("a", "read", "ab\u00e9cd")));
    assertProblem("'auth.tokens[0].token' must be a string", tokens(new JsonObject().put("name", "a")
        .put("role", "read").put("token", 12345678)));
    assertProblem("missing key 'auth.tokens[0].token'", tokens(new JsonObject().put("name", "a").put("role", "read")));
    assertProblem("'auth.tokens[1]' must be an object", base().put("auth.tokens",
        new JsonArray().add(token("a", "read", "aa")).add(SECRET)));
    assertProblem("'auth.tokens[0].role' must be read, write or admin, got \"root\"", tokens(token("a", "root", SECRET)));
    assertProblem("missing key 'auth.tokens[0].role'", tokens(new JsonObject().put("name", "a").put("token", SECRET)));
    assertProblem("missing key 'auth.tokens[0].name'", tokens(new JsonObject().put("role", "read").put("token", SECRET)));
    assertProblem("'auth.tokens[0].name' must not be empty", tokens(token(" ", "read", SECRET)));
    assertProblem("unknown key 'auth.tokens[0].scope'", tokens(token("a", "read", SECRET).put("scope", "x")));
    assertProblem("'auth.tokens[1].name': the name 'a' is taken by 'auth.tokens[0].name'",
        tokens(token("a", "read", "one"), token("a", "write", "two")));
    assertProblem("'auth.tokens[1].token' is the same token as that of 'a'; give each its own",
        tokens(token("a", "read", SECRET), token("b", "write", SECRET)));
    assertProblem("'auth.tokens[0].token' is the same token as that of 'adminToken'; give each its own",
        tokens(token("b", "write", SECRET)).put("adminToken", SECRET));
    assertProblem("'auth' gives no token: set 'auth.tokens' or 'auth.tokensFile' (or leave 'auth' out)",
        base().put("auth", new JsonObject()));
    assertProblem("'auth' gives no token: set 'auth.tokens' or 'auth.tokensFile' (or leave 'auth' out)",
        base().put("auth.tokens", new JsonArray()));
    assertProblem("unknown key 'auth.token'", base().put("auth.token", SECRET)
        .put("auth.tokens", new JsonArray().add(token("a", "read", "aa"))));
    assertProblem("'adminToken' must not be empty (leave it out for no token)", base().put("adminToken", ""));

    Path absent = dir.resolve("absent.json");
    assertProblem("'auth.tokensFile': " + absent + " does not exist", base().put("auth.tokensFile", absent.toString()));
    Path notJson = Files.writeString(dir.resolve("bad.json"), "[{\"name\": \"a\", \"token\": \"" + SECRET + "\"");
    assertProblem("'auth.tokensFile': " + notJson + " is not a JSON list of tokens",
        base().put("auth.tokensFile", notJson.toString()));
    Path empty = Files.writeString(dir.resolve("empty.json"), "[]");
    assertProblem("'auth.tokensFile': " + empty + " lists no token", base().put("auth.tokensFile", empty.toString()));
    Path badRole = Files.writeString(dir.resolve("role.json"), new JsonArray().add(token("a", "reader", SECRET)).encode());
    assertProblem("'auth.tokensFile[0].role' must be read, write or admin, got \"reader\"",
        base().put("auth.tokensFile", badRole.toString()));
  }

  private static JsonObject base() {
    return new JsonObject().put("url", "http://127.0.0.1:8080");
  }

  private static JsonObject token(String name, String role, String secret) {
    return new JsonObject().put("name", name).put("role", role).put("token", secret);
  }

  private static JsonObject tokens(JsonObject... tokens) {
    JsonArray array = new JsonArray();
    for (JsonObject token : tokens) {
      array.add(token);
    }
    return base().put("auth", new JsonObject().put("tokens", array));
  }

  private static AuthConfig parse(JsonObject json) {
    return ConfigLoader.parse(json).auth();
  }

  private static void assertProblem(String expected, JsonObject json) {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(json));
    assertEquals(expected, e.getMessage());
    assertFalse(e.getMessage().contains(SECRET), e.getMessage());
  }
}
