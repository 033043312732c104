import net from "node:net";

/**
 * Writes `bytes` on a new connection to `port` and reads until `done` says what came back is whole,
 * or the server ends the connection. For what supertest cannot show: a chunk's framing, pipelined
 * requests, what Node answers before Express runs.
 */
export async function rawExchange(port: number, bytes: string, done: (received: Buffer) => boolean = () => false): Promise<Buffer> {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
    const received: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
        socket.on("data", (chunk) => {
            received.push(chunk);
            if (done(Buffer.concat(received)))
                resolve();
        });
        socket.once("end", () => resolve());
        socket.once("error", reject);
    });
    socket.destroy();
    return Buffer.concat(received);
}

/** Resolves with `value()` once it has stayed the same for five looks `intervalMs` apart (a generation no longer pulled, say). */
export async function settled(value: () => number, intervalMs = 100): Promise<number> {
    let last = -1;
    for (let still = 0; still < 5; still = value() === last ? still + 1 : 0) {
        last = value();
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    return last;
}
