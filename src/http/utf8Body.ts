import {isUtf8} from "node:buffer";
import {BadRequestError} from "../errors.js";

/**
 * A JSON body must be UTF-8 (RFC 8259). body-parser would decode stray bytes into U+FFFD and go
 * on: a prompt silently changed. This refuses them, naming the field whose text holds the first
 * bad byte (`messages[0].content`), so the client can find what its encoder got wrong.
 */
export function assertUtf8Json(body: Buffer): void {
    if (isUtf8(body))
        return;
    const offset = firstInvalidByte(body);
    // Everything before the bad byte is well-formed, so it decodes exactly.
    const {path, inKey} = jsonPathAt(body.subarray(0, offset).toString("utf8"));
    const where = path === "" ? "the request body" : inKey ? `a key in '${path}'` : `'${path}'`;
    throw new BadRequestError(`The request body is not valid UTF-8: ${where} holds a byte (at offset ${offset}) that is not part of a UTF-8 character. ` +
        "Send JSON encoded as UTF-8.", {param: path === "" ? null : path, code: "invalid_encoding"});
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (only called on text that has one). */
function firstInvalidByte(bytes: Uint8Array): number {
    let index = 0;
    while (index < bytes.length) {
        const lead = bytes[index]!;
        const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
        if (length === 0 || !isUtf8(bytes.subarray(index, index + length)))
            return index;
        index += length;
    }
    return bytes.length;
}

type Frame = {kind: "object", key: string | null} | {kind: "array", index: number};

/** Where in the JSON document the end of `prefix` lies: `messages[2].content`, and whether that is inside a key. */
function jsonPathAt(prefix: string): {path: string, inKey: boolean} {
    const frames: Frame[] = [];
    let expectingKey = false;
    let stringStart = -1;
    for (let index = 0; index < prefix.length; index++) {
        const char = prefix[index]!;
        if (stringStart >= 0) {
            if (char === "\\")
                index++;
            else if (char === "\"") {
                const top = frames.at(-1);
                if (top?.kind === "object" && expectingKey) {
                    top.key = decodedKey(prefix.slice(stringStart, index + 1));
                    expectingKey = false;
                }
                stringStart = -1;
            }
            continue;
        }
        const top = frames.at(-1);
        if (char === "\"")
            stringStart = index;
        else if (char === "{") {
            frames.push({kind: "object", key: null});
            expectingKey = true;
        } else if (char === "[")
            frames.push({kind: "array", index: 0});
        else if (char === "}" || char === "]")
            frames.pop();
        else if (char === "," && top?.kind === "array")
            top.index++;
        else if (char === "," && top?.kind === "object")
            expectingKey = true;
    }
    const inKey = stringStart >= 0 && expectingKey && frames.at(-1)?.kind === "object";
    const named = inKey ? frames.slice(0, -1) : frames;
    const path = named.reduce((text, frame) => frame.kind === "array" ? `${text}[${frame.index}]`
        : frame.key == null ? text : text === "" ? frame.key : `${text}.${frame.key}`, "");
    return {path, inKey};
}

function decodedKey(quoted: string): string {
    try {
        return JSON.parse(quoted) as string;
    } catch {
        return quoted.slice(1, -1);
    }
}
