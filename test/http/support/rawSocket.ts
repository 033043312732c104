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
