package io.quorumkv.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The CPU this tool's JVM has used, and how long its JIT compilers have worked: snapshots taken
 * around the measured window say how much of the machine the tool took from a server beside it.
 */
record ToolCpu(long cpuNanos, long compilingMillis) {
  static ToolCpu now() {
    com.sun.management.OperatingSystemMXBean os =
        ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class);
    CompilationMXBean compilation = ManagementFactory.getCompilationMXBean();
    long compiling = compilation != null && compilation.isCompilationTimeMonitoringSupported()
        ? compilation.getTotalCompilationTime() : 0;
    return new ToolCpu(os.getProcessCpuTime(), compiling);
  }

  ToolCpu since(ToolCpu earlier) {
    return new ToolCpu(cpuNanos - earlier.cpuNanos, compilingMillis - earlier.compilingMillis);
  }
}
