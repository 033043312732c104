import http from "node:http";
import type {Duplex} from "node:stream";
import type {Logger} from "pino";
import {ApiError} from "../errors.js";
import type {ErrorEnvelope} from "./errorEnvelope.js";
import {closeAfterDraining} from "./lingeringClose.js";

/**
 * Requests that never reach Express: Node's HTTP parser refuses them (headers over its 16 KiB
 * limit, a request line that is not HTTP, a body that takes longer than `requestTimeout`), and
 * CONNECT, which Node hands to a `connect` listener or drops without a word. By default Node
 * answers with a bare status line, or nothing; this answers with the status and the error in
 * `envelope` (server.ts passes OpenAI's, the default: which API the request was for is not known),
 * so a client shows a message rather than an empty body. The connection then closes, after
 * reading what the client is still sending (lingeringClose.ts): after a parse error the rest of
 * its bytes cannot be trusted, and closing on them would reset the connection before the client
 * has read its answer.
 *
 * A request without `Host` is left to Express too (Node would answer it with a bare 400):
 * hostCheck.ts answers it in the envelope.
 */
export function answerMalformedRequests(server: http.Server, logger: Logger, envelope: ErrorEnvelope): void {
    (server as {requireHostHeader?: boolean}).requireHostHeader = false;
    // Node's parser, once failed, reports each later chunk as another error: the first one is answered.
    const answered = new WeakSet<Duplex>();
    server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
        if (answered.has(socket))
            return;
        // Node's own rule: answer only where that cannot corrupt a reply already being written on
        // this connection (a pipelined request after one still streaming), and not to a peer that left.
        const inFlight = (socket as {_httpMessage?: http.ServerResponse})._httpMessage;
        if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
            socket.destroy();
            return;
        }
        answered.add(socket);
        const apiError = fromParserError(error);
        logger.debug({event: "malformed_request", code: error.code, status: apiError.status});
        closeAfterDraining(socket, rawResponse(envelope, apiError));
    });
    // A tunnel request (`CONNECT host:port`): its target is another server, not a resource of this
    // one, so there is no resource whose methods a 405 could list; 400, as for any request chatserve cannot serve.
    server.on("connect", (req: http.IncomingMessage, socket: Duplex) => {
        logger.debug({event: "malformed_request", method: req.method, status: 400});
        closeAfterDraining(socket, rawResponse(envelope, new ApiError(400,
            "CONNECT asks for a tunnel through a proxy; chatserve is an API server, not a proxy.", "invalid_request_error", "method_not_supported")));
    });
}

/** A whole HTTP/1.1 response carrying the error's envelope, for a socket no ServerResponse owns. */
function rawResponse(envelope: ErrorEnvelope, error: ApiError): string {
    const {status, body: envelopeBody} = envelope.response(error);
    const body = JSON.stringify(envelopeBody);
    return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** The status Node's own answer would have had, with a message that says what to change. */
function fromParserError(error: NodeJS.ErrnoException): ApiError {
    switch (error.code) {
        case "HPE_HEADER_OVERFLOW":
            return new ApiError(431, "The request's headers are larger than the server accepts (16 KiB in all): send fewer or shorter headers.",
                "invalid_request_error", "headers_too_large");
        case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
            return new ApiError(413, "The request's chunk extensions are larger than the server accepts.", "invalid_request_error", "payload_too_large");
        case "ERR_HTTP_REQUEST_TIMEOUT":
            return new ApiError(408, "The request was not received in time: its headers and body must arrive within the server's request timeout.",
                "invalid_request_error", "request_timeout");
        default:
            return new ApiError(400, `The request is not valid HTTP/1.1 (${error.code ?? error.message}).`, "invalid_request_error", "malformed_request");
    }
}
