package io.quorumkv.support;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for what an ordinary client hides: the chunks of a chunked
 * response as they were framed on the wire, and requests no well-behaved client would send.
 */
public final class RawHttp implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  /** A response as read off the wire; {@code chunks} is null unless it was chunked. */
  public record Response(int status, Map<String, String> headers, byte[] body, List<byte[]> chunks) {
    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  public RawHttp(int port) throws IOException {
    this(port, 0);
  }

  /** @param receiveBufferBytes the socket's receive buffer, 0 for the system default */
  public RawHttp(int port, int receiveBufferBytes) throws IOException {
    socket = new Socket();
    if (receiveBufferBytes > 0) {
      socket.setReceiveBufferSize(receiveBufferBytes);
    }
    socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(30_000);
    in = new java.io.BufferedInputStream(socket.getInputStream(), 64 * 1024);
    out = socket.getOutputStream();
  }

  /** How long a read may wait before it fails with a SocketTimeoutException (30 s unless set). */
  public RawHttp timeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
    return this;
  }

  public static Response exchange(int port, String rawRequest) throws IOException {
    try (RawHttp http = new RawHttp(port)) {
      http.send(rawRequest);
      return http.readResponse();
    }
  }

  public void send(String rawRequest) throws IOException {
    send(rawRequest.getBytes(StandardCharsets.ISO_8859_1));
  }

  public void send(byte[] rawRequest) throws IOException {
    out.write(rawRequest);
    out.flush();
  }

  public InputStream input() {
    return in;
  }

  public Response readResponse() throws IOException {
    String statusLine = readLine();
    String[] parts = statusLine.split(" ", 3);
    int status = Integer.parseInt(parts[1]);
    Map<String, String> headers = readHeaders();
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      List<byte[]> chunks = new ArrayList<>();
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      byte[] chunk;
      while ((chunk = readChunk()) != null) {
        chunks.add(chunk);
        body.writeBytes(chunk);
      }
      return new Response(status, headers, body.toByteArray(), chunks);
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    return new Response(status, headers, in.readNBytes(length), null);
  }

  /** Reads the status line and headers only, leaving the body on the socket. */
  public Map<String, String> readHead() throws IOException {
    readLine();
    return readHeaders();
  }

  /** Like {@link #readHead()}, with the status code. */
  public Response readHeadOnly() throws IOException {
    int status = Integer.parseInt(readLine().split(" ", 3)[1]);
    return new Response(status, readHeaders(), new byte[0], null);
  }

  /** The next chunk's data, or null after the last (zero-length) chunk and its trailers. */
  public byte[] readChunk() throws IOException {
    String sizeLine = readLine();
    int semicolon = sizeLine.indexOf(';');
    int size = Integer.parseInt(semicolon < 0 ? sizeLine.trim() : sizeLine.substring(0, semicolon).trim(), 16);
    if (size == 0) {
      while (!readLine().isEmpty()) {
        // trailers
      }
      return null;
    }
    byte[] data = in.readNBytes(size);
    if (data.length < size) {
      throw new EOFException("chunk cut short");
    }
    String end = readLine();
    if (!end.isEmpty()) {
      throw new IOException("chunk of " + size + " bytes not followed by CRLF");
    }
    return data;
  }

  private Map<String, String> readHeaders() throws IOException {
    Map<String, String> headers = new LinkedHashMap<>();
    String line;
    while (!(line = readLine()).isEmpty()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    return headers;
  }

  private String readLine() throws IOException {
    return readLine(in);
  }

  /** One CRLF- or LF-terminated line of a raw HTTP stream, without its terminator. */
  public static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b == -1) {
        throw new EOFException("connection closed mid-line");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
