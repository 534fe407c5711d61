package io.quorumkv.cli;

import io.quorumkv.backup.RestoreCommand;
import io.quorumkv.web.ClientTls;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code admin restore --from DIR [restore options]}: the restore tool ({@code java -jar quorumkv.jar
 * restore}, which keeps working) with the common options handed on as it takes them: the first url,
 * the token, the TLS files. It prints its own lines and its exit status is the subcommand's.
 */
final class RestoreSubcommand implements Subcommand {
  @Override
  public String name() {
    return "restore";
  }

  @Override
  public String synopsis() {
    return "restore --from DIR [--start K] [--end K] [--rollback] [--rate N] [--batch N] [--progress F] [--from-scratch]\n"
        + "                          restore backups into the cluster (as java -jar quorumkv.jar restore; the first --url)";
  }

  @Override
  public void run(List<String> arguments, AdminOptions options, NodeClient client, Output output) {
    int status = RestoreCommand.runFromCommandLine(restoreArguments(arguments, options));
    if (status != 0) {
      throw new Reported(status);
    }
  }

  static List<String> restoreArguments(List<String> arguments, AdminOptions options) {
    List<String> restore = new ArrayList<>(arguments);
    restore.addAll(List.of("--url", options.urls().get(0).toString()));
    if (options.token() != null) {
      restore.addAll(List.of("--token", options.token()));
    }
    ClientTls tls = options.tls();
    if (tls.caFile() != null) {
      restore.addAll(List.of("--cacert", tls.caFile().toString()));
    }
    if (tls.certFile() != null) {
      restore.addAll(List.of("--cert", tls.certFile().toString(), "--key", tls.keyFile().toString()));
    }
    return restore;
  }
}
