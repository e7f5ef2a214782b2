import type http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { requestIdFor } from './request-id';

export interface EdgeLimits {
  /** Node's maxHeaderSize: the request line and headers, in bytes. */
  maxHeaderBytes: number;
  /** A request body that receives nothing for this long is answered 408 (0: no bound). */
  bodyIdleTimeoutMs: number;
}

interface EdgeAnswer {
  status: number;
  reason: string;
  code: string;
  error: string;
}

function edgeAnswer(err: NodeJS.ErrnoException, limits: EdgeLimits): EdgeAnswer {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', code: 'request_header_too_large', error: `The request line and headers exceed ${limits.maxHeaderBytes} bytes.` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', code: 'request_timeout', error: 'The request did not arrive in time.' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large', code: 'request_too_large', error: 'The chunk extensions of the request body are too large.' };
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_EOF_STATE':
    case 'HPE_STRICT':
      return { status: 400, reason: 'Bad Request', code: 'invalid_request', error: 'The chunked framing of the request body is not valid HTTP.' };
    default:
      return { status: 400, reason: 'Bad Request', code: 'invalid_request', error: 'The request is not valid HTTP.' };
  }
}

/**
 * Writes a coded JSON error straight on the socket and closes it: for what Node refuses before or outside
 * Express. The request id is the one the app already gave the request (its response holds the header) when
 * the headers got that far, a fresh one otherwise. Nothing is written once a response has begun: its bytes
 * would corrupt that answer.
 */
function answerOnSocket(socket: Duplex, answer: EdgeAnswer, incomingRequestId?: string | string[]): void {
  const inFlight = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const header = inFlight?.getHeader('x-request-id');
  const requestId = typeof header === 'string' ? header : requestIdFor(incomingRequestId);
  const body = JSON.stringify({ error: answer.error, code: answer.code, requestId });
  // The app's handler may still be waiting on this request: once the socket is ended its writes go nowhere.
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\nX-Request-Id: ${requestId}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/**
 * Every answer the process gives is the service's coded JSON error with X-Request-Id, also where Node answers
 * by itself with a bare status or a closed connection:
 * - what its HTTP parser refuses (a request line and headers over the limit: 431; broken syntax or broken
 *   chunk framing: 400) and what its header and request timeouts cut (408): the `clientError` path;
 * - an `Expect` other than 100-continue: 417 (`checkExpectation`);
 * - a CONNECT (this is no proxy): 400, where Node closed the connection;
 * - a request body that stops arriving: 408 (the socket's idle timeout; Node would close without a word).
 */
export function answerEdgesAsJson(server: http.Server, limits: EdgeLimits): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerOnSocket(socket, edgeAnswer(err, limits)));

  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const requestId = requestIdFor(req.headers['x-request-id']);
    const body = JSON.stringify({ error: 'The only expectation this service meets is 100-continue.', code: 'expectation_failed', requestId });
    // The body the client held back may follow anyway: the connection is not reused.
    res.writeHead(417, { 'X-Request-Id': requestId, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
  });

  server.on('connect', (req: http.IncomingMessage, socket: Duplex) =>
    answerOnSocket(socket, { status: 400, reason: 'Bad Request', code: 'invalid_request', error: 'This service is not a proxy: CONNECT is not served.' }, req.headers['x-request-id']),
  );

  if (limits.bodyIdleTimeoutMs > 0) {
    server.timeout = limits.bodyIdleTimeoutMs;
    // With a listener here Node no longer closes idle sockets itself: this decides for every socket that timed out.
    server.on('timeout', (socket: net.Socket) => {
      const incoming = (socket as { parser?: { incoming?: http.IncomingMessage | null } | null }).parser?.incoming;
      const inFlight = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
      // Body bytes the app has not read yet mean the wait is the app's (backpressure), not the client's.
      if (incoming && !incoming.complete && incoming.readableLength === 0 && inFlight && !inFlight.headersSent) {
        answerOnSocket(socket, { status: 408, reason: 'Request Timeout', code: 'request_timeout', error: `The request body stopped arriving (nothing for ${limits.bodyIdleTimeoutMs} ms).` });
      } else if (incoming && !inFlight) {
        // A body still dripping in after its answer was sent: closed, as Node does.
        socket.destroy();
      } else if (!incoming && !inFlight && socket.timeout !== limits.bodyIdleTimeoutMs) {
        // Node's keep-alive timer (it sets its own timeout between requests): an idle connection, closed as Node does.
        socket.destroy();
      }
      // Otherwise: a request whose headers have not all arrived (Node's headers timeout answers it with a coded
      // 408, above), or a complete request whose answer is being computed or written: not a stalled body.
    });
  }
}
