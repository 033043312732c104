/**
 * Text checks the reply shapers share while a reply streams in pieces: how much of a marker may have
 * begun at the end of what was written so far (so it is held back, not shown), and whether a
 * value's text is complete JSON.
 */

/** The length of the longest end of `text` that begins `marker` (a marker split across tokens). */
export function partialSuffixLength(text: string, marker: string): number {
    for (let length = Math.min(text.length, marker.length - 1); length > 0; length--)
        if (marker.startsWith(text.slice(text.length - length)))
            return length;
    return 0;
}

export function isJson(text: string): boolean {
    try {
        JSON.parse(text);
        return true;
    } catch {
        return false;
    }
}
