/** The tokens that end a tiny ChatML model's reply: its end of turn, and the SentencePiece EOS, which llama.cpp ends generation at too. */
const endMarkers = ["<|im_end|>", "</s>"];

/**
 * A logit_bias that bans a ChatML model's end of turn (<|im_end|>) and its `</s>`, asked of the
 * server's own tokenizer. A random-weight model's reply ends whenever one of them happens to be
 * sampled, even under a seed (a batch evaluated in other pieces can tip a near tie); with them
 * banned, a reply a test needs to keep running runs to its max_tokens or the end of its context.
 */
export async function endOfTurnBanned(serverUrl: string, model: string): Promise<Record<string, number>> {
    const bias: Record<string, number> = {};
    for (const marker of endMarkers) {
        const response = await fetch(`${serverUrl.replace(/\/v1$/, "")}/tokenize`, {
            method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({model, content: marker})
        });
        const {tokens} = await response.json() as {tokens: number[]};
        if (response.status !== 200 || tokens.length !== 1)
            throw new Error(`${marker} is not one token of ${model}: ${JSON.stringify(tokens)}`);
        bias[tokens[0]!] = -100;
    }
    return bias;
}
