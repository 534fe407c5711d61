package io.quorumkv.web;

import sun.misc.Signal;

/**
 * {@code SIGHUP} as a request to reload (as nginx and etcd read it), instead of the JVM's default of
 * running the shutdown hooks and exiting. Where the platform has no such signal, nothing happens.
 */
final class HangupSignal {
  private HangupSignal() {
  }

  static void onHangup(Runnable action) {
    try {
      Signal.handle(new Signal("HUP"), signal -> action.run());
    } catch (IllegalArgumentException unsupported) {
      System.getLogger(HangupSignal.class.getName()).log(System.Logger.Level.INFO,
          "no SIGHUP on this platform: TLS files are reloaded only when they change");
    }
  }
}
