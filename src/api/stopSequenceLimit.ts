/**
 * The characters of all a request's stop sequences together. Agents and editors send a few short
 * ones ("\n\n", "</code>", "User:"), a few hundred characters at most; the matcher's automaton
 * grows with the total (engine/stopMatcher.ts), and 1,024 sequences of 8,000 characters made
 * every token cost 257 ms before there was one.
 */
export const maxStopCharacters = 16_384;

/** The message for a stop list over maxStopCharacters, or null when it is within. */
export function stopListTooLong(field: string, stops: readonly string[]): string | null {
    const total = stops.reduce((sum, stop) => sum + stop.length, 0);
    return total <= maxStopCharacters ? null : `${field} may hold at most ${maxStopCharacters} characters in all (these hold ${total})`;
}
