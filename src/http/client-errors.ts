import type http from 'node:http';
import type { Duplex } from 'node:stream';
import crypto from 'node:crypto';

/**
 * Requests Node's HTTP parser rejects before Express sees them (a request line or headers over the
 * 16 KiB limit, malformed syntax) would otherwise get a bare status with no body. They get the
 * service's error shape instead, so every answer a client can receive is a coded JSON error.
 */
export function answerClientErrorsAsJson(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    // Like every other answer, it names its request id in the X-Request-Id header and in the body.
    const requestId = crypto.randomUUID();
    const body = JSON.stringify({
      error: tooLarge ? 'The request line and headers exceed 16 KiB.' : 'The request is not valid HTTP.',
      code: tooLarge ? 'request_header_too_large' : 'invalid_request',
      requestId,
    });
    const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nX-Request-Id: ${requestId}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
