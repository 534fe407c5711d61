/**
 * HTTP plumbing every route uses, public or internal: {@code RouteMount}, {@code ApiTokens} (bearer
 * tokens and their roles), {@code UnreadBodies} (a refused request's body), {@code RawBodyHandler}
 * (bodies collected up to a limit), {@code HeldBytes} (what a request holds of a byte budget until its
 * answer ends), {@code ContentLength}, {@code OverloadAnswer} (the one 503 with Retry-After for a client
 * refused at a bound), {@code QueryParams}, {@code ApiErrors} (a status and a short
 * text body for any failure), {@code ApiHeaders}, and {@code RangeStream}, which streams a storage
 * cursor into a response in a {@code RangeFormat} with back-pressure. TLS: {@code TlsOptions} (the
 * servers' and the peer clients' settings), {@code NodeSslContexts} (their SSL contexts, built once off
 * the event loops), {@code CertificateReload} (new certificates without a restart), {@code ClientTls}
 * with {@code NodeAccess} and {@code PemSslContext} (the command-line tools' side), and {@code ClientFailures} (what a tool says
 * when an exchange with a node fails).
 */
package io.quorumkv.web;
