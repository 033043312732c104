import type {IncomingMessage, ServerResponse} from "node:http";
import type {Socket} from "node:net";
import type {Duplex} from "node:stream";

/**
 * What chatserve still reads, and throws away, of a request it has already refused.
 *
 * A refusal often comes before the client has finished writing (a 413 for a declared 10 MB body,
 * a 431 after 16 KiB of a 1 MB header). Closing then, with the client's bytes still arriving,
 * makes the kernel answer them with a reset, and a client that writes its whole request before it
 * reads (Python's http.client, requests) sees "connection reset" or "broken pipe" instead of the
 * answer. So the rest is read and dropped, as nginx's lingering close does, within its bounds:
 * 30 s in all and 5 s of silence (nginx's lingering_time and lingering_timeout), and a byte count
 * on top, so that a client cannot keep a socket busy reading for ever. Past a bound the connection
 * is closed and the client may see the reset after all.
 */
export type LingerLimits = {bytes: number, totalMs: number, idleMs: number};

export const lingerLimits: LingerLimits = {bytes: 64 * 1024 ** 2, totalMs: 30_000, idleMs: 5_000};

/**
 * After an error reply to a request whose body is still arriving: the rest of the body is read and
 * dropped, and the connection then serves the next request as usual. When the reply is the
 * connection's last (the client sent `Connection: close`), Node would close the socket as soon as
 * the reply is out: its write side closes then, but the socket lives on until the body has been
 * read. A body declared larger than the byte bound is not worth reading: that reply says
 * `Connection: close`, and the client may see a reset. Call before the reply is sent.
 */
export function discardUnreadBody(req: IncomingMessage, res: ServerResponse, limits: LingerLimits = lingerLimits): void {
    if (req.complete || req.readableEnded || req.destroyed)
        return;
    if (Number(req.headers["content-length"]) > limits.bytes) {
        res.setHeader("Connection", "close");
        return;
    }
    const socket = req.socket as Socket & {destroySoon(): void};
    const destroySoon = socket.destroySoon;
    let drained = false;
    let lingering = false;
    // Node ends a connection after its last reply with destroySoon(): that is held back until the body is read.
    socket.destroySoon = () => {
        if (drained) {
            socket.destroySoon = destroySoon;
            socket.destroySoon();
            return;
        }
        lingering = true;
        socket.end();
    };
    const stop = watchBounds(limits, () => socket.destroy());
    req.on("data", (chunk: Buffer) => stop.count(chunk.length));
    req.once("end", () => {
        drained = true;
        stop.clear();
        if (lingering)
            socket.destroySoon();
    });
    req.once("close", stop.clear);
    req.resume();
}

/**
 * After an answer written straight to the socket (Node's parser refused the request, or it was a
 * CONNECT): the write side is closed with the answer, and what the client still sends is read and
 * dropped until it closes its side too, or a bound passes. The HTTP parser is unhooked first:
 * adding a `data` listener makes Node's server stop feeding the socket to it.
 */
export function closeAfterDraining(socket: Duplex, answer: string, limits: LingerLimits = lingerLimits): void {
    const stop = watchBounds(limits, () => socket.destroy());
    socket.removeAllListeners("data");
    socket.on("data", (chunk: Buffer) => stop.count(chunk.length));
    socket.once("end", () => socket.destroy()).once("close", stop.clear);
    socket.end(answer);
    socket.resume();
}

/** Timers for the total and the idle bound, and the byte count: `close` once any is passed. */
function watchBounds(limits: LingerLimits, close: () => void): {count(bytes: number): void, clear(): void} {
    let bytes = 0;
    const total = setTimeout(close, limits.totalMs);
    const idle = setTimeout(close, limits.idleMs);
    // Neither timer keeps the process alive: shutdown closes every connection anyway.
    total.unref();
    idle.unref();
    const clear = () => {
        clearTimeout(total);
        clearTimeout(idle);
    };
    return {
        count(chunk: number) {
            bytes += chunk;
            idle.refresh();
            if (bytes > limits.bytes) {
                clear();
                close();
            }
        },
        clear
    };
}
