import http from "node:http";
import type {Duplex} from "node:stream";
import type {Logger} from "pino";
import {ApiError} from "../errors.js";

/**
 * Requests that never reach Express: Node's HTTP parser refuses them (headers over its 16 KiB
 * limit, a request line that is not HTTP, a body that takes longer than `requestTimeout`) and by
 * default answers with a bare status line. This answers with the same status and OpenAI's error
 * envelope, so a client shows a message rather than an empty body, then closes the connection:
 * after a parse error the rest of its bytes cannot be trusted.
 */
export function answerMalformedRequests(server: http.Server, logger: Logger): void {
    server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
        // Node's own rule: answer only where that cannot corrupt a reply already being written on
        // this connection (a pipelined request after one still streaming), and not to a peer that left.
        const inFlight = (socket as {_httpMessage?: http.ServerResponse})._httpMessage;
        if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
            socket.destroy();
            return;
        }
        const apiError = fromParserError(error);
        logger.debug({event: "malformed_request", code: error.code, status: apiError.status});
        const body = JSON.stringify(apiError.toBody());
        socket.end(`HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
    });
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
