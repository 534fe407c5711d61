package io.quorumkv.support;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The test class starts node processes (or the restore tool, or a node on a fake clock): it runs in
 * the process tier, {@code mvn verify}, and not in the fast tier, {@code mvn test} (docs/testing.md).
 * A class of the fast tier that starts a node process fails there, told to carry this annotation
 * ({@link TestTier#requireProcessTier}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(ProcessTier.TAG)
public @interface ProcessTier {
  /** The JUnit tag the build's two test executions select on (pom.xml). */
  String TAG = "process";
}
