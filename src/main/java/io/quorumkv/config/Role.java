package io.quorumkv.config;

import java.util.Locale;

/**
 * What an API token may do; each role includes the ones before it: {@code read} (GET of entities,
 * ranges and the cluster), {@code write} (also PUT and DELETE of entities), {@code admin} (also
 * every {@code /admin/...} endpoint). See docs/api.md#authentication.
 */
public enum Role {
  READ, WRITE, ADMIN;

  /** Whether a token of this role may do what {@code needed} may. */
  public boolean includes(Role needed) {
    return compareTo(needed) >= 0;
  }

  /** The role's name in the conf and in answers: {@code read}, {@code write}, {@code admin}. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The role of a conf name, null for none. */
  static Role named(String name) {
    for (Role role : values()) {
      if (role.toString().equals(name)) {
        return role;
      }
    }
    return null;
  }
}
