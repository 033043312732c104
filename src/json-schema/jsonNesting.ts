/**
 * How deep JSON may nest where chatserve walks it recursively (schemas turned into grammars, tool
 * results rendered into the template): deeper input would overflow the stack, a 500 for what is
 * bad input. OpenAI allows 5 levels in a strict schema; real requests stay far below this.
 */
export const maxJsonNesting = 128;

/** Whether a parsed JSON value nests objects and arrays deeper than `limit`, found without recursion. */
export function nestsDeeperThan(value: unknown, limit: number = maxJsonNesting): boolean {
    const pending: Array<[unknown, number]> = [[value, 0]];
    for (let entry = pending.pop(); entry != null; entry = pending.pop()) {
        const [item, depth] = entry;
        if (item == null || typeof item !== "object")
            continue;
        if (depth >= limit)
            return true;
        for (const child of Object.values(item))
            pending.push([child, depth + 1]);
    }
    return false;
}
