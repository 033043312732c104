/**
 * Sizes of memory as people write them (`--memory-limit 8GB`, `512MiB`) and as chatserve writes
 * them in messages. Decimal units (KB, MB, GB, TB) are powers of 1000 and binary ones (KiB, MiB,
 * GiB, TiB) powers of 1024, as disk and RAM makers use them; a bare number is bytes.
 */
const units: Record<string, number> = {
    "": 1, b: 1,
    k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12,
    ki: 2 ** 10, kib: 2 ** 10, mi: 2 ** 20, mib: 2 ** 20, gi: 2 ** 30, gib: 2 ** 30, ti: 2 ** 40, tib: 2 ** 40
};

/** `8GB`, `7.5 GiB`, `512mib`, `1000000` → bytes; throws with the reason for anything else. */
export function parseByteSize(text: string): number {
    const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(text);
    const factor = match == null ? undefined : units[match[2]!.toLowerCase()];
    if (match == null || factor == null)
        throw new Error(`'${text}' is not a size (e.g. 8GB, 7.5GiB, 512MiB)`);
    const bytes = Math.floor(Number(match[1]) * factor);
    if (bytes <= 0)
        throw new Error(`'${text}' is no memory at all`);
    return bytes;
}

/** Binary units, as llama.cpp logs its buffers: 768 MiB, 1.5 GiB. */
export function formatBytes(bytes: number): string {
    const names = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let value = bytes;
    let unit = 0;
    while (value >= 1024 && unit < names.length - 1) {
        value /= 1024;
        unit++;
    }
    return `${unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${names[unit]}`;
}
