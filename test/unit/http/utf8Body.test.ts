import {describe, expect, it} from "vitest";
import {BadRequestError} from "../../../src/errors.js";
import {assertUtf8Json} from "../../../src/http/utf8Body.js";

/** The JSON text with `bad` bytes where `@` stands. */
function body(json: string, bad = [0xff]): Buffer {
    const [before = "", after = ""] = json.split("@");
    return Buffer.concat([Buffer.from(before), Buffer.from(bad), Buffer.from(after)]);
}

function refusal(bytes: Buffer): BadRequestError {
    try {
        assertUtf8Json(bytes);
    } catch (error) {
        return error as BadRequestError;
    }
    throw new Error("accepted");
}

describe("assertUtf8Json", () => {
    it("accepts UTF-8, multi-byte characters included", () => {
        expect(() => assertUtf8Json(Buffer.from('{"content": "héllo ✓ 🙂"}'))).not.toThrow();
    });

    it.each([
        ['{"model": "m", "messages": [{"role": "user", "content": "a@b"}]}', "messages[0].content"],
        ['{"messages": [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "@"}]}]}', "messages[1].content[0].text"],
        ['{"prompt": ["ok", "still, [ok]", "b\\"@"]}', "prompt[2]"],
        ['{"model": "m", "user": "@"}', "user"],
        ['{"a": {}, "b": [[1, 2], {"c": "@"}]}', "b[1].c"]
    ])("names the field whose text holds the bad byte: %s", (json, param) => {
        const error = refusal(body(json));
        expect(error.status).toBe(400);
        expect(error.param).toBe(param);
        expect(error.code).toBe("invalid_encoding");
        expect(error.message).toContain(`'${param}' holds a byte`);
    });

    it("says when the bad byte is in a key", () => {
        const error = refusal(body('{"messages": [{"ro@le": "user"}]}'));
        expect(error.param).toBe("messages[0]");
        expect(error.message).toContain("a key in 'messages[0]'");
    });

    it.each([[[0xc0, 0x80]], [[0xed, 0xa0, 0x80]], [[0xe2, 0x82]], [[0xf5, 0x80, 0x80, 0x80]]])("refuses overlong, surrogate, cut and out-of-range sequences %j", (bad) => {
        expect(refusal(body('{"prompt": "x@y"}', bad)).param).toBe("prompt");
    });
});
