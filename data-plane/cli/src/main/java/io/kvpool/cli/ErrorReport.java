package io.kvpool.cli;

import io.kvpool.client.KvPoolException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How the {@code kvpool} command reports errors: one line on stderr, {@code kvpool COMMAND: what
 * went wrong}, and exit code 2 for a wrong command line or 1 for an operation that failed. No stack
 * traces, unless {@code KVPOOL_DEBUG} is set (for an error the CLI did not expect, which the line
 * then says).
 */
final class ErrorReport implements IParameterExceptionHandler, IExecutionExceptionHandler {
  static final int FAILED = 1;
  static final int USAGE = 2;

  private final boolean stackTraces;

  ErrorReport(boolean stackTraces) {
    this.stackTraces = stackTraces;
  }

  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    String name = cl.getCommandSpec().qualifiedName();
    String message = withoutErrorPrefix(e.getMessage());
    if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      String first = u.getUnmatched().get(0);
      if (!cl.getSubcommands().isEmpty()
          && !first.startsWith("-")
          && cl.getCommandSpec().positionalParameters().isEmpty()) {
        message =
            "unknown command '"
                + first
                + "'; commands: "
                + String.join(", ", cl.getSubcommands().keySet());
      } else if (!u.getSuggestions().isEmpty()) {
        message += "; did you mean " + String.join(" or ", u.getSuggestions()) + "?";
      }
    }
    cl.getErr().println(name + ": " + oneLine(message) + " (see '" + name + " --help')");
    cl.getErr().flush();
    return USAGE;
  }

  @Override
  public int handleExecutionException(Exception e, CommandLine cl, ParseResult parsed) {
    PrintWriter err = cl.getErr();
    boolean expected = isExpected(e);
    err.println(
        cl.getCommandSpec().qualifiedName()
            + ": "
            + oneLine(describe(e))
            + (expected || stackTraces
                ? ""
                : " (unexpected; set KVPOOL_DEBUG=1 for the stack trace)"));
    if (stackTraces) {
      e.printStackTrace(err);
    }
    err.flush();
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return FAILED;
  }

  private static boolean isExpected(Throwable e) {
    return e instanceof CommandFailedException
        || e instanceof KvPoolException
        || e instanceof PoolProcessException
        || e instanceof AdminApi.AdminApiException
        || e instanceof DemoCommand.DemoFailedException
        || e instanceof IOException
        || e instanceof UnresolvedAddressException
        || e instanceof InterruptedException;
  }

  /** What went wrong, in words, for the error line. */
  static String describe(Throwable e) {
    if (e instanceof PoolProcessException p) {
      return p.summary();
    }
    if (e instanceof NoSuchFileException f) {
      return "no such file or folder: " + f.getFile();
    }
    if (e instanceof AccessDeniedException f) {
      return "permission denied: " + f.getFile();
    }
    if (e instanceof FileSystemException f) {
      return f.getFile() + ": " + f.getReason();
    }
    if (e instanceof UnresolvedAddressException) {
      return "a host name could not be resolved";
    }
    if (e instanceof InterruptedException) {
      return "interrupted";
    }
    if (isExpected(e) && e.getMessage() != null) {
      return e.getMessage();
    }
    return e.toString();
  }

  private static String withoutErrorPrefix(String message) {
    return message != null && message.startsWith("Error: ")
        ? message.substring("Error: ".length())
        : message;
  }

  /** The first line of {@code text}; the error report is one line by contract. */
  static String oneLine(String text) {
    if (text == null) {
      return "";
    }
    List<String> lines = text.strip().lines().toList();
    return lines.isEmpty() ? "" : lines.get(0).strip() + (lines.size() > 1 ? " ..." : "");
  }
}
