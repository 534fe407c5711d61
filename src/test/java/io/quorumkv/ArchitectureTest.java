package io.quorumkv;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The package structure docs/architecture.md describes is the code's: its layer table lists every
 * package, from the top layer down, and a package uses only packages below it; no two packages
 * depend on each other, however indirectly. README names every package too.
 */
class ArchitectureTest {
  private static final String ROOT = "io.quorumkv";
  private static final Path ARCHITECTURE = Path.of("docs/architecture.md");
  /** A row of the layer table: {@code | n | `package` | ...}, the root package written as {@code io.quorumkv}. */
  private static final Pattern LAYER_ROW = Pattern.compile("^\\| *(\\d+) *\\| *`([a-z.]+)` *\\|");

  private static JavaClasses classes;
  /** Packages from the top layer down. */
  private static List<String> layers;

  @BeforeAll
  static void importClasses() throws IOException {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(ROOT);
    layers = layersOf(Files.readString(ARCHITECTURE));
  }

  @Test
  void theLayerTableListsEveryPackageOnce() {
    Set<String> inCode = classes.stream().map(JavaClass::getPackageName).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(layers.size(), new TreeSet<>(layers).size(), "a package appears twice in " + ARCHITECTURE);
    assertEquals(inCode, new TreeSet<>(layers), "the packages of " + ARCHITECTURE + "'s layer table");
  }

  @Test
  void readmeNamesEveryPackage() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    for (String layer : layers) {
      String name = layer.equals(ROOT) ? ROOT : layer.substring(ROOT.length() + 1);
      assertTrue(readme.contains("`" + name + "`"), "README.md does not name the package `" + name + "`");
    }
  }

  @Test
  void noPackageCycles() {
    SlicesRuleDefinition.slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void eachPackageUsesOnlyTheLayersBelowIt() {
    for (int i = 1; i < layers.size(); i++) {
      String[] above = layers.subList(0, i).toArray(String[]::new);
      ArchRule rule = noClasses().that().resideInAPackage(layers.get(i))
          .should().dependOnClassesThat().resideInAnyPackage(above)
          .because(ARCHITECTURE + " puts it at layer " + (i + 1) + ": it may use only the layers below");
      rule.check(classes);
    }
  }

  /** The packages of the layer table, in its order; the rows must be numbered 1, 2, 3... from the top. */
  static List<String> layersOf(String markdown) {
    List<String> found = new ArrayList<>();
    for (String line : markdown.split("\n")) {
      Matcher row = LAYER_ROW.matcher(line);
      if (row.find()) {
        assertEquals(found.size() + 1, Integer.parseInt(row.group(1)), "layer numbers in " + ARCHITECTURE);
        String name = row.group(2);
        found.add(name.equals(ROOT) ? ROOT : ROOT + "." + name);
      }
    }
    assertTrue(found.size() > 1, ARCHITECTURE + " has no layer table");
    return found;
  }
}
