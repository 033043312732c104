import {maxJsonNesting, nestsDeeperThan} from "./jsonNesting.js";

/**
 * JSON.parse for tool-call arguments and tool results, which go back into the prompt re-serialised:
 * an integer JavaScript cannot hold exactly (a 64-bit id such as 1234567890123456789) is kept as a
 * string of its digits, so the model reads the id the tool returned rather than 1234567890123456800.
 * JSON nested deeper than the template can render is refused as if it were not JSON.
 */
export function parseExactJson(text: string): unknown {
    const value: unknown = JSON.parse(quoteUnsafeIntegers(text));
    if (nestsDeeperThan(value))
        throw new SyntaxError(`it nests more than ${maxJsonNesting} levels deep`);
    return value;
}

const numberLiteral = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function quoteUnsafeIntegers(text: string): string {
    let result = "";
    let copiedUpTo = 0;
    let inString = false;
    for (let index = 0; index < text.length; index++) {
        const char = text[index]!;
        if (inString) {
            if (char === "\\")
                index++;
            else if (char === "\"")
                inString = false;
        } else if (char === "\"")
            inString = true;
        else if (char === "-" || (char >= "0" && char <= "9")) {
            numberLiteral.lastIndex = index;
            const literal = numberLiteral.exec(text)?.[0] ?? char;
            if (/^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
                result += `${text.slice(copiedUpTo, index)}"${literal}"`;
                copiedUpTo = index + literal.length;
            }
            index += literal.length - 1;
        }
    }
    return result + text.slice(copiedUpTo);
}
