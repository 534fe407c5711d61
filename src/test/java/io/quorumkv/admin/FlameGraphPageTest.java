package io.quorumkv.admin;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FlameGraphPageTest {
  @Test
  void unpacksNamesThatShareAPrefixWithTheOneBeforeAndDotsTheirClasses() {
    String page = "<script>\nconst cpool = [\n'all',\n' io/quorumkv/http/EntityHandler.get',\n"
        + "'?put',\n' java/lang/Thread.run'\n];\nunpack(cpool);\n</script>";
    assertEquals(List.of("io.quorumkv.http.EntityHandler.get", "io.quorumkv.http.EntityHandler.put",
        "java.lang.Thread.run"), FlameGraphPage.frameNames(page));
  }

  @Test
  void aGraphWithoutSamplesHasNoFrames() {
    assertEquals(List.of(), FlameGraphPage.frameNames("const cpool = [\n'all'\n];\nunpack(cpool);\nn(2)"));
  }

  @Test
  void anotherPageIsRefused() {
    assertThrows(AssertionError.class, () -> FlameGraphPage.frameNames("<html>no graph</html>"));
  }
}
