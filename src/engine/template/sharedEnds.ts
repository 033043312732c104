/**
 * How far two sequences (texts, or token lists) agree from their start, and then from their end
 * without overlapping that start: what the template probes compare renders by. What lies between
 * is where the two differ.
 */
export function sharedEnds<T>(a: ArrayLike<T>, b: ArrayLike<T>): {start: number, end: number} {
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start])
        start++;
    let end = 0;
    while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
        end++;
    return {start, end};
}

/** How many items two sequences share at their end. */
export function sharedEnd<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
    let length = 0;
    while (length < a.length && length < b.length && a[a.length - 1 - length] === b[b.length - 1 - length])
        length++;
    return length;
}
