/**
 * A map from a run's hash to a position, as two typed arrays with open addressing: lookup's index
 * writes one entry per prompt token on every request, and a JavaScript Map of 100,000 number keys
 * took four times as long (its entries are allocated and rehashed as it grows; these arrays are sized
 * for the prompt at once). Keys are 31-bit hashes, so −1 marks an empty slot.
 */
export class RunTable {
    private keys: Int32Array;
    private values: Int32Array;
    private size = 0;

    /** `expected`: the entries it will likely hold (a prompt's runs), so that it need not grow while they are written. */
    public constructor(expected = 0) {
        const slots = 2 ** Math.max(10, Math.ceil(Math.log2(2 * expected + 2)));
        this.keys = new Int32Array(slots).fill(-1);
        this.values = new Int32Array(slots);
    }

    /** The position stored for `hash`; −1: none. */
    public get(hash: number): number {
        const key = hash & 0x7fffffff;
        const mask = this.keys.length - 1;
        for (let slot = key & mask; ; slot = (slot + 1) & mask) {
            const stored = this.keys[slot]!;
            if (stored === key)
                return this.values[slot]!;
            if (stored === -1)
                return -1;
        }
    }

    /** Stores `position` for `hash`, returning what was stored before (−1: none). */
    public swap(hash: number, position: number): number {
        if (2 * (this.size + 1) > this.keys.length)
            this.grow();
        const key = hash & 0x7fffffff;
        const mask = this.keys.length - 1;
        for (let slot = key & mask; ; slot = (slot + 1) & mask) {
            const stored = this.keys[slot]!;
            if (stored === key) {
                const before = this.values[slot]!;
                this.values[slot] = position;
                return before;
            }
            if (stored === -1) {
                this.keys[slot] = key;
                this.values[slot] = position;
                this.size++;
                return -1;
            }
        }
    }

    /** Twice the slots, every entry placed again (kept at most half full, probes stay short). */
    private grow(): void {
        const {keys, values} = this;
        this.keys = new Int32Array(keys.length * 2).fill(-1);
        this.values = new Int32Array(keys.length * 2);
        this.size = 0;
        for (let slot = 0; slot < keys.length; slot++)
            if (keys[slot] !== -1)
                this.swap(keys[slot]!, values[slot]!);
    }
}
