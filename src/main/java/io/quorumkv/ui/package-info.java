/**
 * The dashboard at {@code /ui/}: {@code Dashboard} mounts the page's static files (from the jar,
 * uPlot from its WebJar) on the HTTP router; the page itself reads only the node's JSON endpoints
 * and {@code /metrics}. See docs/dashboard.md.
 */
package io.quorumkv.ui;
