/**
 * A logit_bias that bans a ChatML model's end of turn (<|im_end|>), asked of the server's own
 * tokenizer. A random-weight model's reply ends whenever that token happens to be sampled, even
 * under a seed (a batch evaluated in other pieces can tip a near tie); with it banned, a reply a
 * test needs to keep running runs to its max_tokens or the end of its context.
 */
export async function endOfTurnBanned(serverUrl: string, model: string): Promise<Record<string, number>> {
    const response = await fetch(`${serverUrl.replace(/\/v1$/, "")}/tokenize`, {
        method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({model, content: "<|im_end|>"})
    });
    const {tokens} = await response.json() as {tokens: number[]};
    if (response.status !== 200 || tokens.length !== 1)
        throw new Error(`<|im_end|> is not one token of ${model}: ${JSON.stringify(tokens)}`);
    return {[tokens[0]!]: -100};
}
